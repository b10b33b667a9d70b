// Nsight Systems GPU activity: kernels, memcpys, memsets and CUDA graph traces (NsysImporter.h).
#include "core/import/NsysImporter.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace chokepoint::core::nsys {

namespace {

// CUDA_MEMCPY_KIND_* by value (ENUM_CUDA_MEMCPY_OPER).
MemcpyKind memcpyKindFromValue(std::int64_t v) {
    switch (v) {
        case 1:
        case 3:
        case 11:
            return MemcpyKind::HostToDevice;  // HtoD, HtoA, UVM HtoD
        case 2:
        case 4:
        case 12:
            return MemcpyKind::DeviceToHost;  // DtoH, AtoH, UVM DtoH
        case 5:
        case 6:
        case 7:
        case 8:
        case 13:
            return MemcpyKind::DeviceToDevice;
        case 9:
            return MemcpyKind::HostToHost;
        case 10:
            return MemcpyKind::PeerToPeer;
        default:
            return MemcpyKind::Unknown;
    }
}

MemcpyKind memcpyKindFromSymbol(std::string_view s) {
    auto has = [&](std::string_view suffix) {
        return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    };
    if (has("_HTOD") || has("_HTOA"))
        return MemcpyKind::HostToDevice;
    if (has("_DTOH") || has("_ATOH"))
        return MemcpyKind::DeviceToHost;
    if (has("_DTOD") || has("_ATOA") || has("_ATOD") || has("_DTOA"))
        return MemcpyKind::DeviceToDevice;
    if (has("_HTOH"))
        return MemcpyKind::HostToHost;
    if (has("_PTOP"))
        return MemcpyKind::PeerToPeer;
    return MemcpyKind::Unknown;
}

// CUDA_MEMOPR_MEMORY_KIND_* by value (ENUM_CUDA_MEM_KIND). Note: nsys's numbering, not CUPTI's.
MemoryKind memoryKindFromValue(std::int64_t v) {
    switch (v) {
        case 0:
            return MemoryKind::Pageable;
        case 1:
            return MemoryKind::Pinned;
        case 2:
        case 3:
        case 5:
            return MemoryKind::Device;  // device, array, device static
        case 4:
        case 6:
            return MemoryKind::Managed;  // managed, managed static
        default:
            return MemoryKind::Unknown;
    }
}

MemoryKind memoryKindFromSymbol(std::string_view s) {
    auto has = [&](std::string_view suffix) {
        return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    };
    if (has("_PAGEABLE"))
        return MemoryKind::Pageable;
    if (has("_PINNED"))
        return MemoryKind::Pinned;
    if (has("_DEVICE") || has("_ARRAY") || has("_DEVICE_STATIC"))
        return MemoryKind::Device;
    if (has("_MANAGED") || has("_MANAGED_STATIC"))
        return MemoryKind::Managed;
    return MemoryKind::Unknown;
}

}  // namespace

Status Importer::readKernels() {
    const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}, true},
                                                    {{"deviceId"}},
                                                    {{"streamId"}},
                                                    {{"correlationId"}},
                                                    {{"demangledName"}},
                                                    {{"shortName"}},
                                                    {{"mangledName"}},
                                                    {{"gridX"}},
                                                    {{"gridY"}},
                                                    {{"gridZ"}},
                                                    {{"blockX"}},
                                                    {{"blockY"}},
                                                    {{"blockZ"}},
                                                    {{"registersPerThread"}},
                                                    {{"staticSharedMemory"}},
                                                    {{"dynamicSharedMemory"}},
                                                    {{"globalPid"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        KernelRow k;
        if (!readGpuPlacement(st, table, row, k)) {
            return;
        }
        bool named = false;
        for (int col : {5, 6, 7}) {
            IntCell id = readInt(st, col);
            if (id.ok()) {
                k.name = stringFor(id.value);
                named = true;
                break;
            }
        }
        if (!named) {
            k.name = m_model.intern("<unnamed kernel>");
            badValue(table, row, "demangledName", "is missing");
        }
        k.gridX = static_cast<std::int32_t>(optionalInt(st, 8, table, row, "gridX", 0, kMax32));
        k.gridY = static_cast<std::int32_t>(optionalInt(st, 9, table, row, "gridY", 0, kMax32));
        k.gridZ = static_cast<std::int32_t>(optionalInt(st, 10, table, row, "gridZ", 0, kMax32));
        k.blockX = static_cast<std::int32_t>(optionalInt(st, 11, table, row, "blockX", 0, kMax32));
        k.blockY = static_cast<std::int32_t>(optionalInt(st, 12, table, row, "blockY", 0, kMax32));
        k.blockZ = static_cast<std::int32_t>(optionalInt(st, 13, table, row, "blockZ", 0, kMax32));
        k.registersPerThread =
            static_cast<std::int32_t>(optionalInt(st, 14, table, row, "registersPerThread", 0, kMax32));
        k.staticSharedBytes =
            static_cast<std::int32_t>(optionalInt(st, 15, table, row, "staticSharedMemory", 0, kMax32));
        k.dynamicSharedBytes =
            static_cast<std::int32_t>(optionalInt(st, 16, table, row, "dynamicSharedMemory", 0, kMax32));
        IntCell pid = readInt(st, 17);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.kernels.add(k);
        m_kernelPid.push_back(p);
    });
}

Status Importer::readMemcpys() {
    const std::string table = "CUPTI_ACTIVITY_KIND_MEMCPY";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}, true},
                                                    {{"deviceId"}},
                                                    {{"streamId"}},
                                                    {{"correlationId"}},
                                                    {{"bytes"}},
                                                    {{"copyKind"}},
                                                    {{"srcKind"}},
                                                    {{"dstKind"}},
                                                    {{"globalPid"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();
    auto memKind = [&](sqlite3_stmt* st, int col, std::int64_t row, const char* name) {
        IntCell cell = readInt(st, col);
        if (cell.state == CellState::WrongType) {
            badValue(table, row, name, "is not an integer");
        }
        if (!cell.ok()) {
            return MemoryKind::Unknown;
        }
        if (auto it = m_memKindEnum.find(cell.value); it != m_memKindEnum.end()) {
            return memoryKindFromSymbol(it->second);
        }
        return memoryKindFromValue(cell.value);
    };
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        MemcpyRow m;
        if (!readGpuPlacement(st, table, row, m)) {
            return;
        }
        m.sizeBytes = optionalInt(st, 5, table, row, "bytes", 0, kMax64);
        IntCell kind = readInt(st, 6);
        if (kind.ok()) {
            auto it = m_memcpyEnum.find(kind.value);
            m.kind =
                it != m_memcpyEnum.end() ? memcpyKindFromSymbol(it->second) : memcpyKindFromValue(kind.value);
        } else if (kind.state == CellState::WrongType) {
            badValue(table, row, "copyKind", "is not an integer");
        }
        m.srcKind = memKind(st, 7, row, "srcKind");
        m.dstKind = memKind(st, 8, row, "dstKind");
        IntCell pid = readInt(st, 9);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.memcpys.add(m);
        m_memcpyPid.push_back(p);
    });
}

// With `--cuda-graph-trace=graph` (the default in recent nsys versions) a launched CUDA graph is
// one row of CUPTI_ACTIVITY_KIND_GRAPH_TRACE instead of one row per kernel. The GPU is busy for
// that whole span, so each row becomes a kernel named after its graph; the stat says the kernels
// inside are unknown.
Status Importer::readGraphTraces() {
    const std::string table = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
    Result<std::optional<Query>> q = select(table,
                                            {{{"start"}, true},
                                             {{"end"}, true},
                                             {{"deviceId"}},
                                             {{"streamId"}},
                                             {{"correlationId"}},
                                             {{"graphId"}},
                                             {{"globalPid"}}},
                                            {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    std::int64_t graphs = 0;
    std::unordered_map<std::int64_t, StringId> names;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        KernelRow k;
        if (!readGpuPlacement(st, table, row, k)) {
            return;
        }
        std::int64_t graphId =
            optionalInt(st, 5, table, row, "graphId", 0, std::numeric_limits<std::int64_t>::max());
        auto it = names.find(graphId);
        if (it == names.end()) {
            it = names.emplace(graphId, m_model.intern("CUDA graph " + std::to_string(graphId))).first;
        }
        k.name = it->second;
        IntCell pid = readInt(st, 6);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.kernels.add(k);
        m_kernelPid.push_back(p);
        ++graphs;
    });
    if (s.ok() && graphs > 0) {
        m_model.stats.add(
            "import.nsys_graph_level_trace", Severity::Info, graphs,
            "CUDA graphs traced as whole launches (nsys --cuda-graph-trace=graph): each is one GPU row "
            "named \"CUDA graph N\"; the kernels inside are not in the report");
    }
    return s;
}

Status Importer::readMemsets() {
    const std::string table = "CUPTI_ACTIVITY_KIND_MEMSET";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}, true},
                                                    {{"deviceId"}},
                                                    {{"streamId"}},
                                                    {{"correlationId"}},
                                                    {{"bytes"}},
                                                    {{"memKind"}},
                                                    {{"globalPid"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        MemsetRow m;
        if (!readGpuPlacement(st, table, row, m)) {
            return;
        }
        m.sizeBytes = optionalInt(st, 5, table, row, "bytes", 0, std::numeric_limits<std::int64_t>::max());
        IntCell kind = readInt(st, 6);
        if (kind.ok()) {
            auto it = m_memKindEnum.find(kind.value);
            m.memoryKind = it != m_memKindEnum.end() ? memoryKindFromSymbol(it->second)
                                                     : memoryKindFromValue(kind.value);
        }
        IntCell pid = readInt(st, 7);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.memsets.add(m);
        m_memsetPid.push_back(p);
    });
}

}  // namespace chokepoint::core::nsys

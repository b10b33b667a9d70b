// Nsight Systems metadata: the report's metadata, StringIds, enum tables, thread and process
// names, devices (NsysImporter.h).
#include "core/import/NsysImporter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

namespace chokepoint::core::nsys {

Status Importer::readMetadata() {
    CaptureMetadata& meta = m_model.metadata;
    meta.sourceFormat = "nsys-sqlite";
    meta.sourcePath = m_db.displayName();
    meta.producer = "Nsight Systems";
    // The export metadata table was renamed: EXPORT_META_DATA (2.x) -> META_DATA_EXPORT (3.x).
    for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        Result<std::optional<Query>> q = select(table, {{{"name"}, true}, {{"value"}, true}}, {}, false);
        if (!q.ok()) {
            return q.error();
        }
        if (!q->has_value()) {
            continue;
        }
        std::string version;
        std::string schema;
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
            CellState a = CellState::Null;
            CellState b = CellState::Null;
            std::string_view name = readText(st, 0, a);
            std::string_view value = readText(st, 1, b);
            if (a != CellState::Ok || b != CellState::Ok) {
                return;
            }
            if (name == "EXPORT_PRODUCT_VERSION") {
                version = value;
            } else if (name == "EXPORT_SCHEMA_VERSION") {
                schema = value;
            }
        });
        if (!s.ok()) {
            return s;
        }
        if (!version.empty()) {
            meta.producer = "Nsight Systems " + version;
        }
        if (!schema.empty()) {
            meta.notes.emplace_back("nsys.schemaVersion", schema);
        }
        break;
    }
    if (Result<std::optional<Query>> q =
            select("TARGET_INFO_SESSION_START_TIME", {{{"utcEpochNs"}, true}}, {}, false);
        !q.ok()) {
        return q.error();
    } else if (q->has_value()) {
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
            IntCell cell = readInt(st, 0);
            if (cell.ok() && cell.value > 0) {
                meta.captureStartUnixNs = cell.value;
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    if (Result<std::optional<Query>> q = select(
            "TARGET_INFO_SYSTEM_ENV", {{{"name"}, true}, {{"value"}, true}}, "name = 'Hostname'", false);
        !q.ok()) {
        return q.error();
    } else if (q->has_value()) {
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
            CellState state = CellState::Null;
            std::string_view value = readText(st, 1, state);
            if (state == CellState::Ok && meta.hostName.empty()) {
                meta.hostName = value;
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    return Ok{};
}

// StringIds also holds callchain symbols and whole captured stdout/stderr streams, which the
// model never needs. When `id` is the table's integer primary key (as nsys writes it), names are
// looked up one id at a time, so only the strings the events use are read. Otherwise (an unusual
// or hand-made file, where a lookup would be a full scan) the table is read once.
Status Importer::readStrings() {
    if (!m_db.hasTable("StringIds")) {
        m_model.stats.add("import.nsys_missing_table", Severity::Info, 1,
                          "table not in this export, its events are absent: StringIds");
        return Ok{};
    }
    Result<Statement> pk = Statement::prepare(
        m_db,
        "SELECT COUNT(*), SUM(name = 'id' AND upper(type) = 'INTEGER') FROM pragma_table_info('StringIds') "
        "WHERE pk > 0");
    if (!pk.ok()) {
        return pk.error();
    }
    bool failed = false;
    bool indexed = false;
    if (pk->step(failed)) {
        indexed = readInt(pk->get(), 0).value == 1 && readInt(pk->get(), 1).value == 1;
    }
    if (failed) {
        return makeError(m_db.displayName() +
                         ": table StringIds: cannot read its columns: " + m_db.lastError());
    }
    if (indexed) {
        Result<Statement> lookup = Statement::prepare(m_db, "SELECT value FROM StringIds WHERE id = ?1");
        if (!lookup.ok()) {
            return lookup.error();
        }
        m_stringLookup = std::move(lookup.value());
        return Ok{};
    }
    Result<std::optional<Query>> q = select("StringIds", {{{"id"}, true}, {{"value"}, true}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell id = readInt(st, 0);
        CellState state = CellState::Null;
        std::string_view value = readText(st, 1, state);
        if (!id.ok()) {
            badRow("StringIds", row, "id", id.state);
            return;
        }
        if (state == CellState::WrongType) {
            badValue("StringIds", row, "value", "is not text");
        }
        if (m_stringIndex.emplace(id.value, static_cast<std::uint32_t>(m_rawStrings.size())).second) {
            m_rawStrings.emplace_back(value);
        }
    });
}

Status Importer::readEnum(const char* table, std::unordered_map<std::int64_t, std::string>& out) {
    Result<std::optional<Query>> q = select(table, {{{"id"}, true}, {{"name"}, true}}, {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
        IntCell id = readInt(st, 0);
        CellState state = CellState::Null;
        std::string_view name = readText(st, 1, state);
        if (id.ok() && state == CellState::Ok) {
            out.emplace(id.value, std::string(name));
        }
    });
}

Status Importer::readThreadNames() {
    Result<std::optional<Query>> q =
        select("ThreadNames", {{{"nameId"}, true}, {{"globalTid"}, true}}, {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
        IntCell nameId = readInt(st, 0);
        IntCell tid = readInt(st, 1);
        if (!nameId.ok() || !tid.ok()) {
            return;
        }
        ThreadIndex index = threadFor(tid.value);
        if (m_model.threads[index].name.empty()) {
            m_model.threads[index].name = std::string(m_model.text(stringFor(nameId.value)));
        }
    });
}

Status Importer::readDevices() {
    // GPU rows keyed by the GPU id used in the report; mapped to CUDA ordinals below.
    struct GpuRow {
        std::int64_t id = 0;
        std::int64_t cudaOrdinal = -1;
        DeviceInfo info;
        std::int64_t memoryBandwidth = 0;
    };
    std::vector<GpuRow> gpus;
    // TARGET_INFO_GPU (2021.2 and later, 2.x and 3.x schemas) or TARGET_INFO_CUDA_GPU (older).
    // Column names differ between versions; each spec lists the known spellings.
    const std::vector<ColumnSpec> specs = {
        {{"id", "deviceId"}, true},
        {{"name"}},
        {{"totalMemory", "totalGlobalMemory", "globalMemorySize"}},
        {{"smCount", "numMultiprocessors"}},
        {{"computeMajor", "computeCapabilityMajor"}},
        {{"computeMinor", "computeCapabilityMinor"}},
        {{"maxThreadsPerBlock"}},
        {{"maxWarpsPerSm", "maxWarpsPerMultiprocessor"}},
        {{"threadsPerWarp", "numThreadsPerWarp"}},
        {{"maxRegistersPerBlock"}},
        {{"maxShmemPerBlock", "maxSharedMemoryPerBlock"}},
        {{"l2CacheSize"}},
        {{"clockRate", "coreClockRate"}},  // Hz
        {{"memoryBandwidth"}},             // B/s
        {{"cuDevice"}},
    };
    for (const char* table : {"TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"}) {
        Result<std::optional<Query>> q = select(table, specs, {}, false);
        if (!q.ok()) {
            return q.error();
        }
        if (!q->has_value()) {
            continue;
        }
        const std::string tableName = table;
        constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
        constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
            IntCell id = readInt(st, 0);
            if (!id.ok()) {
                badRow(tableName, row, "id", id.state);
                return;
            }
            GpuRow gpu;
            gpu.id = id.value;
            CellState state = CellState::Null;
            std::string_view name = readText(st, 1, state);
            gpu.info.name = std::string(name);
            gpu.info.vendor = "NVIDIA";
            gpu.info.totalMemoryBytes = optionalInt(st, 2, tableName, row, "totalMemory", 0, kMax64);
            gpu.info.smCount =
                static_cast<std::int32_t>(optionalInt(st, 3, tableName, row, "smCount", 0, kMax32));
            gpu.info.computeMajor =
                static_cast<std::int32_t>(optionalInt(st, 4, tableName, row, "computeMajor", 0, 1000));
            gpu.info.computeMinor =
                static_cast<std::int32_t>(optionalInt(st, 5, tableName, row, "computeMinor", 0, 1000));
            gpu.info.maxThreadsPerBlock = static_cast<std::int32_t>(
                optionalInt(st, 6, tableName, row, "maxThreadsPerBlock", 0, kMax32));
            std::int64_t warpsPerSm = optionalInt(st, 7, tableName, row, "maxWarpsPerSm", 0, 1 << 16);
            gpu.info.warpSize =
                static_cast<std::int32_t>(optionalInt(st, 8, tableName, row, "threadsPerWarp", 0, 1024));
            gpu.info.maxThreadsPerSm = static_cast<std::int32_t>(warpsPerSm * gpu.info.warpSize);
            gpu.info.registersPerBlock = static_cast<std::int32_t>(
                optionalInt(st, 9, tableName, row, "maxRegistersPerBlock", 0, kMax32));
            gpu.info.sharedMemoryPerBlockBytes =
                optionalInt(st, 10, tableName, row, "maxShmemPerBlock", 0, kMax64);
            gpu.info.l2CacheBytes = optionalInt(st, 11, tableName, row, "l2CacheSize", 0, kMax64);
            gpu.info.coreClockKhz = optionalInt(st, 12, tableName, row, "clockRate", 0, kMax64) / 1000;
            gpu.memoryBandwidth = optionalInt(st, 13, tableName, row, "memoryBandwidth", 0, kMax64);
            gpu.cudaOrdinal = optionalInt(st, 14, tableName, row, "cuDevice", 0, 0x7FFF, -1);
            gpus.push_back(std::move(gpu));
        });
        if (!s.ok()) {
            return s;
        }
        break;
    }
    if (gpus.empty()) {
        m_model.stats.add(
            "import.nsys_missing_table", Severity::Info, 1,
            "no GPU description table (TARGET_INFO_GPU / TARGET_INFO_CUDA_GPU): device names unknown");
        return Ok{};
    }
    // TARGET_INFO_CUDA_DEVICE (newer exports) maps a process's CUDA ordinal to a GPU id; without it
    // the ordinal is cuDevice, else the GPU id itself.
    std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> ordinalToGpu;  // -> gpu id, SMs
    Result<std::optional<Query>> map =
        select("TARGET_INFO_CUDA_DEVICE", {{{"cudaId"}, true}, {{"gpuId"}, true}, {{"numMultiprocessors"}}},
               {}, false);
    if (!map.ok()) {
        return map.error();
    }
    bool ambiguous = false;
    if (map->has_value()) {
        Status s = scan(**map, [&](sqlite3_stmt* st, std::int64_t) {
            IntCell cuda = readInt(st, 0);
            IntCell gpu = readInt(st, 1);
            IntCell sms = readInt(st, 2);
            if (!cuda.ok() || !gpu.ok() || cuda.value < 0 || cuda.value > 0x7FFF) {
                return;
            }
            auto [it, added] =
                ordinalToGpu.emplace(cuda.value, std::make_pair(gpu.value, sms.ok() ? sms.value : 0));
            if (!added && it->second.first != gpu.value) {
                ambiguous = true;
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    if (ambiguous) {
        m_model.stats.add(
            "import.nsys_ambiguous_device_map", Severity::Warning, 1,
            "processes in this report see different GPUs under one CUDA ordinal; the first mapping "
            "was used");
    }
    auto addDevice = [&](std::int64_t ordinal, const GpuRow& gpu, std::int64_t smsOverride) {
        m_ordinalOfGpuId[gpu.id] = ordinal;
        DeviceInfo& device = m_model.deviceOrAdd(static_cast<std::int32_t>(ordinal));
        std::int32_t index = device.deviceIndex;
        device = gpu.info;
        device.deviceIndex = index;
        if (device.smCount == 0 && smsOverride > 0 && smsOverride < 1 << 20) {
            device.smCount = static_cast<std::int32_t>(smsOverride);
        }
        if (gpu.memoryBandwidth > 0) {
            m_model.metadata.notes.emplace_back(
                "nsys.gpu" + std::to_string(ordinal) + ".memoryBandwidthBytesPerSecond",
                std::to_string(gpu.memoryBandwidth));
        }
    };
    if (!ordinalToGpu.empty()) {
        for (const auto& [ordinal, target] : ordinalToGpu) {
            for (const GpuRow& gpu : gpus) {
                if (gpu.id == target.first) {
                    addDevice(ordinal, gpu, target.second);
                    break;
                }
            }
        }
    } else {
        for (const GpuRow& gpu : gpus) {
            std::int64_t ordinal = gpu.cudaOrdinal >= 0 ? gpu.cudaOrdinal : gpu.id;
            if (ordinal < 0 || ordinal > 0x7FFF) {
                continue;
            }
            addDevice(ordinal, gpu, 0);
        }
    }
    return Ok{};
}

Status Importer::readProcessNames(std::unordered_map<std::int64_t, std::string>& names) {
    Result<std::optional<Query>> q = select("PROCESSES", {{{"pid"}, true}, {{"name"}}}, {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
        IntCell pid = readInt(st, 0);
        CellState state = CellState::Null;
        std::string_view name = readText(st, 1, state);
        if (pid.ok() && state == CellState::Ok && m_pids.count(pid.value)) {
            names.emplace(pid.value, std::string(name));
        }
    });
}

void Importer::addProcesses(const std::unordered_map<std::int64_t, std::string>& processNames) {
    for (std::int64_t pid : m_pids) {
        if (pid == 0) {
            continue;
        }
        auto it = processNames.find(pid);
        m_model.processes.push_back(ProcessInfo{pid, it != processNames.end() ? it->second : std::string()});
    }
}

}  // namespace chokepoint::core::nsys

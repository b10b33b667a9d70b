// Nsight Systems CUDA memory usage (CUDA_GPU_MEMORY_USAGE_EVENTS, `nsys profile
// --cuda-memory-usage=true`): each allocation and free of device memory, as the GPU's memory
// track (NsysImporter.h). Columns as NVIDIA's exporter writes them: start, deviceId, bytes, memKind
// (ENUM_CUDA_MEM_KIND: 2 device, 3 array, 5 device static; host and managed kinds stay out) and
// memoryOperationType (ENUM_CUDA_DEV_MEM_EVENT_OPER: 0 allocation, 1 deallocation).
//
// The running sum from the capture's start is the device memory the process holds (for PyTorch, the
// caching allocator's reserved memory), a level the capacity check reads, when the capture began
// with the process (nsys launches it). A sum that goes below zero frees memory allocated before the
// capture: then it is only the change since the capture began, shown, never taken for the peak.
#include "core/import/NsysImporter.h"
#include "core/model/CounterSemantics.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace chokepoint::core::nsys {

Status Importer::readCudaMemoryUsage() {
    const std::string table = "CUDA_GPU_MEMORY_USAGE_EVENTS";
    if (!m_db.hasTable(table)) {
        return Ok{};
    }
    Result<std::optional<Query>> q = select(table,
                                            {{{"start"}, true},
                                             {{"deviceId"}, true},
                                             {{"bytes"}, true},
                                             {{"memoryOperationType"}, true},
                                             {{"memKind"}},
                                             {{"globalPid"}}},
                                            {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    struct Change {
        TimestampNs timeNs = 0;
        std::int64_t bytes = 0;  // + allocated, - freed
    };
    struct Device {
        std::int64_t pid = 0;
        std::vector<Change> changes;
    };
    std::map<std::int16_t, Device> devices;
    std::int64_t badRows = 0;
    std::int64_t otherKinds = 0;
    std::string firstBad;
    constexpr std::int64_t kDevice = 2, kArray = 3, kDeviceStatic = 5;
    constexpr std::int64_t kAllocation = 0, kDeallocation = 1;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell start = readInt(st, 0);
        IntCell device = readInt(st, 1);
        IntCell bytes = readInt(st, 2);
        IntCell operation = readInt(st, 3);
        const char* bad =
            !start.ok() || start.value < 0                              ? "start"
            : !device.ok() || device.value < 0 || device.value > 0x7FFF ? "deviceId"
            : !bytes.ok() || bytes.value < 0                            ? "bytes"
            : !operation.ok() || (operation.value != kAllocation && operation.value != kDeallocation)
                ? "memoryOperationType"
                : nullptr;
        if (bad != nullptr) {
            if (badRows++ == 0) {
                firstBad = "row " + std::to_string(row) + ": column " + bad;
            }
            return;
        }
        // Without memKind (older exports) every row is device memory.
        if (IntCell kind = readInt(st, 4);
            kind.ok() && kind.value != kDevice && kind.value != kArray && kind.value != kDeviceStatic) {
            ++otherKinds;
            return;
        }
        Device& d = devices[static_cast<std::int16_t>(device.value)];
        if (d.changes.empty()) {
            IntCell globalPid = readInt(st, 5);
            d.pid = globalPid.ok() ? pidOf(globalPid.value) : 0;
        }
        d.changes.push_back({start.value, operation.value == kAllocation ? bytes.value : -bytes.value});
    });
    if (!s.ok()) {
        return s;
    }
    if (badRows > 0) {
        m_model.stats.add("import.nsys_bad_memory_row", Severity::Warning, badRows,
                          m_db.displayName() + ": table " + table + ": " + std::to_string(badRows) +
                              " rows without a usable start, deviceId, bytes or memoryOperationType were "
                              "dropped (first: " +
                              firstBad + "); the memory track misses them");
    }
    std::int64_t imported = 0;
    for (auto& [deviceIndex, d] : devices) {
        std::stable_sort(d.changes.begin(), d.changes.end(),
                         [](const Change& a, const Change& b) { return a.timeNs < b.timeNs; });
        CounterTrack track;
        track.unit = "bytes";
        track.deviceIndex = deviceIndex;
        track.pid = d.pid;
        std::int64_t level = 0;
        std::int64_t lowest = 0;
        for (const Change& c : d.changes) {
            level += c.bytes;
            lowest = std::min(lowest, level);
            track.timesNs.push_back(c.timeNs);
            track.values.push_back(static_cast<double>(level));
        }
        imported += static_cast<std::int64_t>(d.changes.size());
        track.name = std::string(lowest < 0 ? kMemoryAllocatedChangeTrack : kDeviceMemoryAllocatedTrack);
        if (lowest < 0) {
            m_model.stats.add("import.nsys_memory_before_capture", Severity::Info, 1,
                              "GPU " + std::to_string(deviceIndex) +
                                  ": the capture frees memory allocated before it began: the memory track is "
                                  "the change since the capture began, not the peak the job holds");
        }
        m_model.counters.push_back(std::move(track));
    }
    if (imported > 0) {
        m_model.stats.add("import.nsys_memory_usage", Severity::Info, imported,
                          "device memory allocations and frees imported from " + table + " into " +
                              std::to_string(devices.size()) + " memory tracks");
    }
    if (otherKinds > 0) {
        m_model.stats.add("import.nsys_host_memory_usage", Severity::Info, otherKinds,
                          "host, managed and other non-device memory events counted, not imported");
    }
    return Ok{};
}

}  // namespace chokepoint::core::nsys

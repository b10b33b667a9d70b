#pragma once
// torch.profiler's memory events (profile_memory=True): an instant "[memory]" per allocation and
// free, args {"Device Type", "Device Id", "Bytes" (negative for a free), "Addr"}, and since
// PyTorch 1.10 "Total Allocated" and "Total Reserved" (the caching allocator's totals after the
// event). They become counter tracks on the GPU (core/model/CounterSemantics.h names them):
// - "Memory allocated" and "Memory reserved" (bytes) from the totals: the levels a capacity check
//   can read;
// - without totals (older traces), "Memory allocated, change since the trace began": the running
//   sum of Bytes. Memory held before the profiler started (weights, optimizer state) is not in it,
//   so it is shown, never read as the job's peak.
// Host (Device Type 0) events are counted, not imported.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/model/TraceModel.h"

namespace chokepoint::core {

class KinetoMemoryEvents {
public:
    // One event of a CUDA device (`deviceIndex` as the model numbers GPUs).
    void addDevice(std::int16_t deviceIndex, std::int64_t pid, std::int64_t timeNs, std::int64_t deltaBytes,
                   std::optional<std::int64_t> totalAllocated, std::optional<std::int64_t> totalReserved);
    void addHost() { ++m_hostEvents; }
    // Appends the tracks (time-sorted) and the import notes.
    void finish(TraceModel& model) const;

private:
    struct Sample {
        std::int64_t timeNs = 0;
        std::int64_t deltaBytes = 0;
        std::optional<std::int64_t> totalAllocated, totalReserved;
    };
    struct Device {
        std::int64_t pid = 0;
        std::vector<Sample> samples;
    };
    std::map<std::int16_t, Device> m_devices;
    std::int64_t m_hostEvents = 0;
};

}  // namespace chokepoint::core

#pragma once
// What a counter sample at time t stands for. Two kinds are recorded:
// - a rate over the interval that ends at t: the agent's per-thread "CPU %" (CPU time since the
//   previous /proc read, collectors/host/HostSampler.cpp), and Nsight Systems' thread scheduling
//   imported in the same form (core/import/NsysSchedReader.cpp);
// - a level that holds from t until the next sample: every other counter (GPU metrics, PM
//   sampling, memory).
// The analysis and the timeline read each track by its kind, so both place the same value over the
// same interval.

#include <string_view>

#include "core/model/Tables.h"

namespace chokepoint::core {

// A host thread's CPU use, 100 = one core: deviceIndex < 0, a thread id, this name and unit.
inline constexpr std::string_view kThreadCpuTrack = "CPU %";
inline constexpr std::string_view kThreadCpuUnit = "%";
bool isThreadCpuTrack(const CounterTrack& track);

// True when sample i covers (timesNs[i - 1], timesNs[i]] (the first sample covers nothing);
// false when it covers [timesNs[i], timesNs[i + 1]).
bool sampleCoversPreviousInterval(const CounterTrack& track);

// Device memory tracks from torch.profiler's memory events (core/import/KinetoMemoryEvents.h), in
// bytes: the caching allocator's totals, and for traces without totals the running change.
inline constexpr std::string_view kMemoryAllocatedTrack = "Memory allocated";
inline constexpr std::string_view kMemoryReservedTrack = "Memory reserved";
inline constexpr std::string_view kMemoryAllocatedChangeTrack =
    "Memory allocated, change since the trace began";
// Nsight Systems' CUDA memory usage (core/import/NsysMemoryReader.cpp): the device memory the
// process holds, the running sum of its allocations and frees.
inline constexpr std::string_view kDeviceMemoryAllocatedTrack = "Device memory allocated (CUDA)";

// A device's memory in use, in bytes, whose peak is what the job needs (the capacity check): an
// allocated, reserved or used level (from any importer), not a change from an unknown start.
bool isDeviceMemoryLevelTrack(const CounterTrack& track);

}  // namespace chokepoint::core

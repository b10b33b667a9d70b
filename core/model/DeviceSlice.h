#pragma once
// One GPU's share of a trace: its kernels, copies, memsets, GPU ranges and counters, with the host
// threads that launch work on it. Used for per-device accounting and verdicts when one trace holds
// several GPUs (one process driving several devices, or one process per GPU in a fused trace).
//
// Which host threads go with a device (DeviceThreads):
//   - a thread that launches GPU work goes with every device holding at least a tenth of what it
//     launches, and always with its busiest one (a thread driving two GPUs belongs to both);
//   - a thread that launches nothing goes with the devices its process launches on;
//   - threads of processes that launch nothing (data-loader workers) go with no device.
// Pure; linear in the model's rows.

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "core/model/TraceModel.h"

namespace chokepoint::core {

// Devices that hold kernels, copies or memsets, ascending.
std::vector<std::int16_t> devicesWithGpuWork(const TraceModel& model);

class DeviceThreads {
public:
    explicit DeviceThreads(const TraceModel& model);

    bool goesWith(ThreadIndex thread, std::int16_t device) const;
    // The device a thread launches most of its work on; -1 when it launches nothing.
    std::int16_t busiestDeviceOf(ThreadIndex thread) const;
    // Devices a process launches on (through any of its threads).
    const std::set<std::int16_t>& devicesOfProcess(std::int64_t pid) const;
    // Processes that launch GPU work, with their devices.
    const std::map<std::int64_t, std::set<std::int16_t>>& launchingProcesses() const {
        return m_processDevices;
    }

private:
    const TraceModel& m_model;
    std::map<ThreadIndex, std::set<std::int16_t>> m_threadDevices;
    std::map<ThreadIndex, std::int16_t> m_threadBusiest;
    std::map<std::int64_t, std::set<std::int16_t>> m_processDevices;
};

// A finalized model with `device`'s GPU work and the host threads that go with it. Names are
// re-interned; links (launch calls, op nesting) are rebuilt by finalize from correlation ids.
TraceModel sliceDevice(const TraceModel& model, std::int16_t device, const DeviceThreads& threads);

}  // namespace chokepoint::core

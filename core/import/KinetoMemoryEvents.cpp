#include "core/import/KinetoMemoryEvents.h"

#include <algorithm>
#include <string>

#include "core/base/Format.h"
#include "core/model/CounterSemantics.h"

namespace chokepoint::core {

void KinetoMemoryEvents::addDevice(std::int16_t deviceIndex, std::int64_t pid, std::int64_t timeNs,
                                   std::int64_t deltaBytes, std::optional<std::int64_t> totalAllocated,
                                   std::optional<std::int64_t> totalReserved) {
    Device& device = m_devices[deviceIndex];
    if (device.samples.empty()) {
        device.pid = pid;
    }
    device.samples.push_back({timeNs, deltaBytes, totalAllocated, totalReserved});
}

void KinetoMemoryEvents::finish(TraceModel& model) const {
    std::int64_t deviceEvents = 0;
    for (const auto& [deviceIndex, device] : m_devices) {
        std::vector<Sample> samples = device.samples;
        std::stable_sort(samples.begin(), samples.end(),
                         [](const Sample& a, const Sample& b) { return a.timeNs < b.timeNs; });
        deviceEvents += static_cast<std::int64_t>(samples.size());
        auto track = [&](std::string_view name) {
            CounterTrack t;
            t.name = std::string(name);
            t.unit = "bytes";
            t.deviceIndex = deviceIndex;
            t.pid = device.pid;
            return t;
        };
        const bool totals = std::any_of(samples.begin(), samples.end(),
                                        [](const Sample& s) { return s.totalAllocated.has_value(); });
        if (totals) {
            CounterTrack allocated = track(kMemoryAllocatedTrack);
            CounterTrack reserved = track(kMemoryReservedTrack);
            for (const Sample& s : samples) {
                if (s.totalAllocated) {
                    allocated.timesNs.push_back(s.timeNs);
                    allocated.values.push_back(static_cast<double>(*s.totalAllocated));
                }
                if (s.totalReserved) {
                    reserved.timesNs.push_back(s.timeNs);
                    reserved.values.push_back(static_cast<double>(*s.totalReserved));
                }
            }
            model.counters.push_back(std::move(allocated));
            if (!reserved.timesNs.empty()) {
                model.counters.push_back(std::move(reserved));
            }
            continue;
        }
        CounterTrack change = track(kMemoryAllocatedChangeTrack);
        std::int64_t level = 0;
        std::int64_t peak = 0;
        for (const Sample& s : samples) {
            level += s.deltaBytes;
            peak = std::max(peak, level);
            change.timesNs.push_back(s.timeNs);
            change.values.push_back(static_cast<double>(level));
        }
        model.counters.push_back(std::move(change));
        model.stats.add("import.memory_events_without_totals", Severity::Info, 1,
                        "GPU " + std::to_string(deviceIndex) +
                            ": the memory events carry the change of each allocation only (no \"Total "
                            "Allocated\"): the track is the change since the trace began (at most +" +
                            formatBytes(static_cast<double>(peak)) +
                            "), not the job's peak, which the capacity check needs");
    }
    if (deviceEvents > 0) {
        model.stats.add(
            "import.memory_events", Severity::Info, deviceEvents,
            "GPU memory events ([memory], profile_memory=True) imported as memory counter tracks");
    }
    if (m_hostEvents > 0) {
        model.stats.add("import.host_memory_events", Severity::Info, m_hostEvents,
                        "host memory events ([memory] on the CPU) counted, not imported");
    }
}

}  // namespace chokepoint::core

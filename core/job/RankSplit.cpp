#include "core/job/RankSplit.h"

#include <set>

#include "core/job/RankIdentity.h"
#include "core/model/DeviceSlice.h"

namespace chokepoint::job {

namespace {

// Several GPUs used by ONE process are one rank's devices, not ranks: not split (the rank's report
// carries per-device accounting instead, AnalysisReport::deviceReports).
bool processesOnDifferentDevices(const core::DeviceThreads& threads) {
    std::set<std::int16_t> devicesOfProcesses;
    for (const auto& [pid, processDevices] : threads.launchingProcesses()) {
        devicesOfProcesses.insert(processDevices.begin(), processDevices.end());
    }
    return threads.launchingProcesses().size() >= 2 && devicesOfProcesses.size() >= 2;
}

}  // namespace

bool holdsSeveralRanks(const core::TraceModel& model) {
    return core::devicesWithGpuWork(model).size() >= 2 &&
           processesOnDifferentDevices(core::DeviceThreads(model));
}

std::vector<RankPart> splitRanks(const core::TraceModel& model, std::int32_t orderBase) {
    const std::vector<std::int16_t> devices = core::devicesWithGpuWork(model);
    if (devices.size() < 2) {
        return {};
    }
    const core::DeviceThreads threads(model);
    if (!processesOnDifferentDevices(threads)) {
        return {};
    }

    std::vector<RankPart> parts;
    int position = 0;
    for (std::int16_t device : devices) {
        RankPart part;
        part.deviceIndex = device;
        part.model = core::sliceDevice(model, device, threads);
        core::TraceModel& m = part.model;

        // Rank: a process name when the part's processes carry one; else the device ordinal in
        // order (one rank per GPU of a single-node job).
        part.identity = {orderBase + position, RankSource::Order};
        for (const core::ProcessInfo& process : m.processes) {
            if (auto rank = rankFromProcessName(process.name)) {
                part.identity = {*rank, RankSource::ProcessName};
                break;
            }
        }
        m.distributed.present = false;  // the file's one distributedInfo does not name each part
        parts.push_back(std::move(part));
        ++position;
    }
    return parts;
}

}  // namespace chokepoint::job

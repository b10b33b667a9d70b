#include "core/job/RankSummary.h"

#include <algorithm>

namespace chokepoint::job {

std::string_view toString(RankSource source) {
    switch (source) {
        case RankSource::DistributedInfo:
            return "distributedInfo";
        case RankSource::ProcessName:
            return "process name";
        case RankSource::FileName:
            return "file name";
        case RankSource::Order:
            return "input order";
    }
    return "input order";
}

std::string_view toString(WorkKind kind) {
    switch (kind) {
        case WorkKind::GpuKernels:
            return "gpu-kernels";
        case WorkKind::DataWait:
            return "data-wait";
        case WorkKind::HostWork:
            return "host-work";
        case WorkKind::Synchronization:
            return "synchronization";
        case WorkKind::GarbageCollection:
            return "garbage-collection";
        case WorkKind::Unexplained:
            return "unexplained";
    }
    return "unexplained";
}

core::DurationNs RankSummary::meanStepNs() const {
    if (steps.empty()) {
        return 0;
    }
    core::DurationNs total = 0;
    for (const RankStep& step : steps) {
        total += step.range.durationNs();
    }
    return total / static_cast<core::DurationNs>(steps.size());
}

core::DurationNs RankSummary::medianStepNs() const {
    if (steps.empty()) {
        return 0;
    }
    std::vector<core::DurationNs> durations;
    durations.reserve(steps.size());
    for (const RankStep& step : steps) {
        durations.push_back(step.range.durationNs());
    }
    std::nth_element(durations.begin(), durations.begin() + static_cast<std::ptrdiff_t>(durations.size() / 2),
                     durations.end());
    return durations[durations.size() / 2];
}

}  // namespace chokepoint::job

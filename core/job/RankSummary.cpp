#include "core/job/RankSummary.h"

#include <algorithm>
#include <cmath>

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

namespace {

// The step durations the step time is over: the steady ones, or every one when none is steady.
std::vector<core::DurationNs> countedStepDurations(const std::vector<RankStep>& steps) {
    std::vector<core::DurationNs> durations;
    for (const RankStep& step : steps) {
        if (step.excludedReason.empty()) {
            durations.push_back(step.range.durationNs());
        }
    }
    if (durations.empty()) {
        for (const RankStep& step : steps) {
            durations.push_back(step.range.durationNs());
        }
    }
    return durations;
}

}  // namespace

core::DurationNs RankSummary::meanStepNs() const {
    const std::vector<core::DurationNs> durations = countedStepDurations(steps);
    if (durations.empty()) {
        return 0;
    }
    core::DurationNs total = 0;
    for (core::DurationNs d : durations) {
        total += d;
    }
    return total / static_cast<core::DurationNs>(durations.size());
}

core::DurationNs RankSummary::medianStepNs() const {
    std::vector<core::DurationNs> durations = countedStepDurations(steps);
    if (durations.empty()) {
        return 0;
    }
    // The median of an even count is the mean of the middle two, as in the rank's own analysis.
    std::sort(durations.begin(), durations.end());
    const std::size_t mid = durations.size() / 2;
    return durations.size() % 2 == 1 ? durations[mid] : (durations[mid - 1] + durations[mid]) / 2;
}

double RankSummary::exposedCommunicationShareOfStep() const {
    if (exposedCommunicationShare) {
        return *exposedCommunicationShare;
    }
    const core::DurationNs step = meanStepNs();
    if (step <= 0 || steps.empty()) {
        return 0;
    }
    return static_cast<double>(exposedCommunicationNs) / static_cast<double>(steps.size()) /
           static_cast<double>(step);
}

core::DurationNs RankSummary::exposedCommunicationPerStepNs() const {
    return static_cast<core::DurationNs>(
        std::llround(exposedCommunicationShareOfStep() * static_cast<double>(meanStepNs())));
}

}  // namespace chokepoint::job

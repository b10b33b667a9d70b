#include "core/job/JobReport.h"

#include <algorithm>

#include "core/base/Format.h"

namespace chokepoint::job {

std::string stragglerLateness(const Straggler& s) {
    const std::string own = core::formatDuration(s.latePerStepNs);
    const std::string all = core::formatDuration(s.arrivalLatePerStepNs);
    if (own == all || s.arrivalLatePerStepNs <= s.latePerStepNs) {
        return own + " late per step";
    }
    return own + " late per step from its own work (" + all +
           " in all: the rest it inherits from waiting for others or carries over from an earlier "
           "collective)";
}

core::DurationNs JobRank::latePerStepNs() const {
    const std::size_t steps = summary ? summary->steps.size() : 0;
    return lateNs / static_cast<core::DurationNs>(std::max<std::size_t>(1, steps));
}

std::string_view toString(StragglerCause cause) {
    switch (cause) {
        case StragglerCause::DataWait:
            return "data-wait";
        case StragglerCause::HostWork:
            return "host-work";
        case StragglerCause::MoreKernels:
            return "more-kernels";
        case StragglerCause::LongerKernels:
            return "longer-kernels";
        case StragglerCause::Synchronization:
            return "synchronization";
        case StragglerCause::GarbageCollection:
            return "garbage-collection";
        case StragglerCause::BeforeWindow:
            return "before-window";
        case StragglerCause::Unknown:
            return "unknown";
    }
    return "unknown";
}

std::string_view describe(StragglerCause cause) {
    switch (cause) {
        case StragglerCause::DataWait:
            return "waits longer for input data";
        case StragglerCause::HostWork:
            return "spends longer in host/Python work";
        case StragglerCause::MoreKernels:
            return "runs more kernels (imbalanced work)";
        case StragglerCause::LongerKernels:
            return "runs the same kernels slower (slower GPU or larger inputs)";
        case StragglerCause::Synchronization:
            return "blocks longer in synchronization";
        case StragglerCause::GarbageCollection:
            return "spends longer in Python garbage collection";
        case StragglerCause::BeforeWindow:
            return "was delayed before its trace window began";
        case StragglerCause::Unknown:
            return "is late for a reason its trace does not show";
    }
    return "is late for a reason its trace does not show";
}

std::string_view toString(JobBottleneck bottleneck) {
    switch (bottleneck) {
        case JobBottleneck::Undetermined:
            return "undetermined";
        case JobBottleneck::StragglerWait:
            return "straggler-wait";
        case JobBottleneck::TransferBound:
            return "transfer-bound";
        case JobBottleneck::ExposedCommunication:
            return "exposed-communication";
        case JobBottleneck::RankBound:
            return "rank-bound";
    }
    return "undetermined";
}

std::string_view displayName(JobBottleneck bottleneck) {
    switch (bottleneck) {
        case JobBottleneck::Undetermined:
            return "Undetermined";
        case JobBottleneck::StragglerWait:
            return "Communication-bound: waiting for a late rank";
        case JobBottleneck::TransferBound:
            return "Communication-bound: transfers far below the link";
        case JobBottleneck::ExposedCommunication:
            return "Communication-bound: communication not overlapped";
        case JobBottleneck::RankBound:
            return "Decided on each rank";
    }
    return "Undetermined";
}

int JobReport::indexOfRank(std::int32_t rank) const {
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (ranks[i].summary && ranks[i].summary->rank == rank) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

}  // namespace chokepoint::job

#include "core/analysis/metrics/StepCompilation.h"

#include "core/analysis/metrics/IntervalSet.h"
#include "core/model/NameMemo.h"
#include "core/names/NameRules.h"

namespace chokepoint::analysis {

namespace {

bool isCompilation(std::string_view name) {
    return names::hostRoleOf(name) == names::HostRole::Compilation;
}

bool isHousekeeping(std::string_view name) {
    return names::hostRoleOf(name) == names::HostRole::Housekeeping;
}

std::vector<core::DurationNs> roleNsPerStep(const core::TraceModel& model, const StepsResult& steps,
                                            bool (*isRole)(std::string_view));

}  // namespace

std::vector<core::DurationNs> compilationNsPerStep(const core::TraceModel& model, const StepsResult& steps) {
    return roleNsPerStep(model, steps, isCompilation);
}

std::vector<core::DurationNs> housekeepingNsPerStep(const core::TraceModel& model, const StepsResult& steps) {
    return roleNsPerStep(model, steps, isHousekeeping);
}

namespace {

std::vector<core::DurationNs> roleNsPerStep(const core::TraceModel& model, const StepsResult& steps,
                                            bool (*isRole)(std::string_view)) {
    std::vector<core::DurationNs> out(steps.steps.size(), 0);
    if (steps.steps.empty()) {
        return out;
    }
    core::NameMemo compiling(model, isRole);
    std::vector<core::TimeRange> intervals;
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        if (compiling(model.cpuOps.name[i])) {
            intervals.push_back({model.cpuOps.startNs[i], model.cpuOps.endNs[i]});
        }
    }
    for (std::size_t i = 0; i < model.ranges.size(); ++i) {
        if (compiling(model.ranges.name[i])) {
            intervals.push_back({model.ranges.startNs[i], model.ranges.endNs[i]});
        }
    }
    if (intervals.empty()) {
        return out;
    }
    const IntervalSet compilation = IntervalSet::fromUnsorted(std::move(intervals));
    for (std::size_t s = 0; s < steps.steps.size(); ++s) {
        out[s] = compilation.coveredNs(steps.steps[s].range);
    }
    return out;
}

}  // namespace

}  // namespace chokepoint::analysis

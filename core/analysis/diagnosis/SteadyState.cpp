#include "core/analysis/diagnosis/SteadyState.h"

#include <algorithm>
#include <limits>

#include "core/base/Format.h"

namespace chokepoint::analysis {

namespace {

// Start of the first kernel, copy or memset, or max() when there is none.
core::TimestampNs firstGpuStartNs(const core::TraceModel& model) {
    core::TimestampNs first = std::numeric_limits<core::TimestampNs>::max();
    if (model.kernels.size() > 0) {
        first =
            std::min(first, *std::min_element(model.kernels.startNs.begin(), model.kernels.startNs.end()));
    }
    if (model.memcpys.size() > 0) {
        first =
            std::min(first, *std::min_element(model.memcpys.startNs.begin(), model.memcpys.startNs.end()));
    }
    if (model.memsets.size() > 0) {
        first =
            std::min(first, *std::min_element(model.memsets.startNs.begin(), model.memsets.startNs.end()));
    }
    return first;
}

}  // namespace

SteadyStateCheck checkSteadyState(const core::TraceModel& model, const TraceMetrics& metrics) {
    SteadyStateCheck check;
    const StepsResult& steps = metrics.steps;
    if (!metrics.hasGpuWork || steps.source == StepSource::RepeatingKernels) {
        return check;
    }
    const bool markers = steps.source == StepSource::ProfilerStep || steps.source == StepSource::StepMarker;
    if (markers && !steps.steps.empty()) {
        const bool onlyFirst =
            std::all_of(steps.steps.begin(), steps.steps.end(), [](const Step& s) { return s.number == 0; });
        if (onlyFirst) {
            check.startUpOnly = true;
            check.reason =
                "the window holds only the job's first step (" + steps.steps.front().name + ", " +
                formatStepDuration(static_cast<double>(steps.steps.front().durationNs())) +
                "): warm-up (cuDNN benchmarking, autotuning, allocator growth, lazy initialisation), "
                "not the steady state";
            return check;
        }
    }
    if (metrics.stepTimes.allCount > 0 && metrics.stepTimes.count == 0) {
        check.startUpOnly = true;
        check.reason = "every step in the window is flagged warm-up or outlier: no steady step to judge";
        return check;
    }
    if (steps.source == StepSource::WholeTrace) {
        const core::TimeRange span = model.timeSpan();
        const core::TimestampNs first = firstGpuStartNs(model);
        if (!span.empty() && first != std::numeric_limits<core::TimestampNs>::max() &&
            (first - span.startNs) * 2 >= span.durationNs()) {
            check.startUpOnly = true;
            check.reason = "the window holds start-up: the GPU's first work begins " +
                           core::formatDuration(first - span.startNs) + " into the " +
                           core::formatDuration(span.durationNs()) +
                           " window (process start, imports, model build) and what follows does not repeat "
                           "into training steps";
        }
    }
    return check;
}

}  // namespace chokepoint::analysis

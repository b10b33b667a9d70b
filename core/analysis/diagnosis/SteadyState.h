#pragma once
// Does the analysed window hold steady-state training steps, or only start-up? A window that holds
// only process start, model build, autotuning or a warm-up step gets no steady-state verdict: the
// report says what the window holds instead (AnalysisReport::startUpOnly).
//
// Start-up only when
//   * the steps come from markers and every one is the job's first step (ProfilerStep#0,
//     chokepoint:step#0: cuDNN benchmarking, autotuning, allocator growth, lazy initialisation), or
//     every step is flagged warm-up (StepTimes.h);
//   * no steps were found (whole-trace window) and the GPU's first work starts after at least
//     half of the window: most of it is process start and model build, and what follows did not
//     repeat into steps.
// Steps found from a repeating kernel sequence are steady by construction. Pure function.

#include <string>

#include "core/analysis/metrics/TraceMetrics.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

struct SteadyStateCheck {
    bool startUpOnly = false;
    std::string reason;  // what the window holds, one sentence
};

SteadyStateCheck checkSteadyState(const core::TraceModel& model, const TraceMetrics& metrics);

}  // namespace chokepoint::analysis

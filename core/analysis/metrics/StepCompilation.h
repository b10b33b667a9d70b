#pragma once
// How long the host compiled inside each step: torch.compile (dynamo, inductor lowering, Triton
// autotuning), nvFuser lowering, TorchScript/JIT (the NameRules compilation role), on any thread,
// overlaps counted once, clipped to the step's window. summarizeStepTimes uses it to call a step
// that compiles a warm-up step wherever it falls (a recompilation in step 40 as much as step 1).
// Pure function, O(n log n) in the host ops and ranges.

#include <vector>

#include "core/analysis/metrics/StepDetection.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

// One entry per step of `steps`, in order.
std::vector<core::DurationNs> compilationNsPerStep(const core::TraceModel& model, const StepsResult& steps);

// The host's checkpoint saving, logging and evaluation time inside each step (names::HostRole::
// Housekeeping ops and ranges, union per step), in step order.
std::vector<core::DurationNs> housekeepingNsPerStep(const core::TraceModel& model, const StepsResult& steps);

}  // namespace chokepoint::analysis

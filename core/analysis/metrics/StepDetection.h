#pragma once
// Training-step detection. Steps come, in order of preference, from:
//   1. step markers: host ranges whose name starts with one of the capture's step-marker prefixes
//      (core/names/NameRules.h, "Step and phase markers": the capture note capture.step_markers,
//      else ProfilerStep#, chokepoint:step, step), the first prefix with matches winning:
//      ProfilerStep#N (torch.profiler's schedule annotations, also recorded as ops), the Python
//      helper's chokepoint:step#N, or a capture's own --marker,
//   2. NVTX / user ranges named like steps ("train_step", "iteration 3", "step_12", configurable),
//   3. optimizer-step markers (`Optimizer.step#Adam.step`, `optimizer.step`): a step ends where an
//      optimizer step ends,
//   4. the period of the repeating kernel-name sequence on the busiest device; kernels before the
//      periodic part (process start, model build, autotuning) belong to no step and are counted in
//      StepsResult::leadingKernels,
//   5. the whole trace as one window (StepsResult::note says so).
// A host range that waits for the step's input (the helper's chokepoint:data, a DataLoader
// __next__ range: NameRules' data-loading role) and lies between the previous step's end and a
// marker step's start on the same thread belongs to that step: the step's host range starts there
// (the helper marks the wait for the next batch outside its step range).
// Each step's host range is stretched over the GPU work launched inside it (kernels, copies and
// memsets whose launch call starts inside the host range; GPU work without a launch call is
// assigned by its own start time), but never past the next step's start: stretched steps tile the
// time line without overlapping. All times are ns on the trace clock. Pure function, linear
// (sort + sweep) in the number of events.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

enum class StepSource : std::uint8_t {
    ProfilerStep = 0,  // ProfilerStep#N ranges
    NamedRange,        // NVTX or user ranges that match StepDetectionOptions::rangePatterns
    OptimizerMarker,   // boundaries at the end of each optimizer step
    RepeatingKernels,  // period of the kernel-name sequence
    WholeTrace,        // fallback: one window over all events
    StepMarker,        // ranges named with a capture's step-marker prefix (chokepoint:step#N, --marker)
};

std::string_view toString(StepSource source);

struct StepDetectionOptions {
    // Step-marker prefixes (NameRules.h); empty: the trace's capture.step_markers note, else the
    // defaults (ProfilerStep#, chokepoint:step, step).
    std::vector<std::string> stepMarkers;
    // Range names that mark a step: a name matches when, lower-cased, it equals a pattern or starts
    // with it followed by a non-letter ("train_step_3", "iteration 5", "step#7").
    std::vector<std::string> rangePatterns = {"train_step", "training_step", "iteration", "step"};
    // CPU op / range names (prefix, case-sensitive) that mark the end of an optimizer step.
    std::vector<std::string> optimizerPatterns = {"Optimizer.step#", "optimizer.step", "Optimizer.step"};
    // Fewest repetitions of the kernel-name sequence accepted as steps.
    int minRepeats = 2;
    // Fraction of kernels that must match the period when the repeating sequence is verified.
    double minPeriodMatch = 0.9;
    // Stretch each step's end over the GPU work launched inside it.
    bool stretchOverGpuWork = true;
};

struct Step {
    std::int64_t number = 0;  // N of ProfilerStep#N when present, else the 0-based ordinal
    std::string name;         // "ProfilerStep#12", "train_step", "iteration 3 (kernel period)"
    // The host-side marker. For RepeatingKernels, whose steps are found on the GPU clock: the span
    // of the launch calls of the step's GPU work (the GPU range when the trace has no launch calls).
    // A marker step's host range includes the wait for its input just before it (dataWaitRange).
    core::TimeRange cpuRange;
    // The step window: cpuRange stretched over the GPU work launched inside it. For RepeatingKernels
    // the window is on the GPU clock (its GPU work, assigned by GPU start), never the host's.
    core::TimeRange range;
    core::TimeRange gpuRange;     // first start to last end of the GPU work attributed to the step
    core::TimeRange launchRange;  // RepeatingKernels: first to last launch call of its GPU work
    core::RangeId markerRange;    // the range row that defined the step, when one did
    core::CpuOpId markerOp;       // the optimizer op that closed the step, for OptimizerMarker
    // The input waits (chokepoint:data, DataLoader ranges) before the marker that belong to the
    // step: first start to last end; empty when none.
    core::TimeRange dataWaitRange;
    core::ThreadIndex thread = core::kNoThread;
    std::int64_t kernelCount = 0;
    std::int64_t memcpyCount = 0;
    std::int64_t memsetCount = 0;
    std::int64_t launchCallCount = 0;  // RepeatingKernels: launch calls found for its GPU work

    core::DurationNs durationNs() const { return range.durationNs(); }
};

struct StepsResult {
    StepSource source = StepSource::WholeTrace;
    std::string note;         // human-readable: where the steps came from, what was guessed
    std::vector<Step> steps;  // sorted by range start
    // Some steps' host ranges overlap the next step's (steps of several threads). Stretching never
    // creates an overlap: a stretched range is clipped at the next step's start.
    bool overlapping = false;
    std::int32_t clippedSteps = 0;  // steps whose GPU work ran past the next step's start
    // Steps whose window starts after their host start, when the GPU finished the work queued
    // before them (the host ran ahead of the GPU).
    std::int32_t queuedSteps = 0;
    bool stretched = false;  // StepDetectionOptions::stretchOverGpuWork was on
    // Step index of every GPU row (same order as the model's tables), -1 when outside all steps.
    std::vector<std::int32_t> kernelStep, memcpyStep, memsetStep;
    // RepeatingKernels: kernels on the detecting device before the periodic part (start-up, model
    // build, autotuning, a first step that differs) and the time from the first of them to the
    // first step's start.
    std::int64_t leadingKernels = 0;
    core::DurationNs leadingNs = 0;
    // The step-marker prefixes that were looked for (capture.step_markers or the defaults).
    std::vector<std::string> stepMarkers;

    // Union window of all steps (empty when there are none).
    core::TimeRange span() const;
};

StepsResult detectSteps(const core::TraceModel& model, const StepDetectionOptions& options = {});

// True when `name` matches one of `patterns` under the rule of StepDetectionOptions::rangePatterns.
bool matchesStepPattern(std::string_view name, const std::vector<std::string>& patterns);

}  // namespace chokepoint::analysis

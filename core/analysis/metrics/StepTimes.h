#pragma once
// The step time of a trace, defined once: every output (CLI text, JSON, HTML/PDF, CSV, GUI) shows
// these figures and says what they are with `definition`.
//
// Definition: the steps are StepsResult's steps; a step's time is the duration of its window, the
// host range stretched over the GPU work it launched, started no earlier than the GPU finished the
// work queued before it (a host running ahead) and clipped at the next step's start, so windows
// never overlap. Every steady step counts: only a step that is clearly not training is left
// out of the mean, the median and the verdicts, and the summary says which and why:
//   * warm-up: the first step when it is far slower than the median of all steps, by both tests
//       - the modified z-score 0.6745 * |d - median| / MAD exceeds StepTimeOptions::outlierModifiedZ
//         (3.5, Iglewicz and Hoaglin, "How to Detect and Handle Outliers", ASQC 1993; MAD = median
//         absolute deviation), and
//       - |d - median| exceeds StepTimeOptions::outlierMinRelative of the median (10 %), so that the
//         jitter of very regular steps is not called an outlier
//     (compilation, autotuning, allocator or profiler start), from minStepsForOutliers steps on;
//   * wherever it falls, a step that compiles (given per step, StepCompilation.h: at least
//     StepTimeOptions::compilationMinShare of its window) and is slower than the median of the
//     steps that do not compile by more than outlierMinRelative (warm-up), from two steps on;
//   * the same for a step that saves a checkpoint, logs or evaluates (not training).
// When every step compiles (or checkpoints), that is the steady state and nothing is left out for
// it. Any other step far from the median by the two tests above (a slow DataLoader batch, a
// straggling collective) is KEPT: it is part of what the job costs, and throughput comparisons
// (Compare, diff, predictions, the job step) must count it on both sides; it is listed in keptFar.
// Mean and median are over the steady steps (the median of an even count is the mean of the
// middle two; it is the robust figure beside the mean); the mean over all steps is kept as
// allMeanNs. Pure function, O(n log n) in steps.

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/metrics/StepDetection.h"

namespace chokepoint::analysis {

struct StepTimeOptions {
    double outlierModifiedZ = 3.5;
    double outlierMinRelative = 0.10;
    std::int64_t minStepsForOutliers = 4;
    double compilationMinShare = 0.10;
};

struct ExcludedStep {
    std::int32_t stepIndex = -1;  // index into StepsResult::steps
    std::string name;
    double durationNs = 0;
    bool warmUp = false;  // the first step, slower than the others, or a step that compiles
    std::string reason;   // "warm-up: 1.4x the median step (compilation, autotuning, ...)"
};

struct StepTimeSummary {
    std::int64_t count = 0;  // steady steps (the ones the figures below are over)
    std::int64_t allCount = 0;
    double meanNs = 0;
    double medianNs = 0;
    double minNs = 0;
    double maxNs = 0;
    double totalNs = 0;                  // sum of the steady step windows
    double allMeanNs = 0;                // mean over every step, outliers included
    bool stretched = false;              // windows stretched over the GPU work each step launched
    std::int32_t clipped = 0;            // steps whose stretch was clipped at the next step's start
    std::int32_t queued = 0;             // steps started when the GPU finished the work queued before them
    std::vector<ExcludedStep> excluded;  // steps left out (warm-up, not training), in step order
    std::vector<ExcludedStep>
        keptFar;               // steps far from the median but kept (reason: "1.29x the median step")
    std::vector<bool> steady;  // per step of StepsResult: counted in the figures
    std::string definition;    // "over 4 of 6 ProfilerStep steps (...)"

    bool isSteady(std::size_t stepIndex) const { return stepIndex < steady.size() && steady[stepIndex]; }
};

// `compilationNs`: the host's compilation time per step (compilationNsPerStep), or empty;
// `housekeepingNs`: its checkpoint saving, logging and evaluation time per step
// (housekeepingNsPerStep), or empty.
StepTimeSummary summarizeStepTimes(const StepsResult& steps, const StepTimeOptions& options = {},
                                   const std::vector<core::DurationNs>& compilationNs = {},
                                   const std::vector<core::DurationNs>& housekeepingNs = {});

// "mean 178 ms, median 176 ms over all 6 ProfilerStep steps, each stretched over the GPU work it
// launched": the one sentence every output uses for the step time ("no steps" when there are none).
std::string describeStepTimes(const StepTimeSummary& summary);

// A step-time figure as every output prints it ("178 ms"), rounded to the nearest ns first.
std::string formatStepDuration(double ns);

}  // namespace chokepoint::analysis

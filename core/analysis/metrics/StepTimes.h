#pragma once
// The step time of a trace, defined once: every output (CLI text, JSON, HTML/PDF, CSV, GUI) shows
// these figures and says what they are with `definition`.
//
// Definition: the steps are StepsResult's steps (all of them, none dropped); a step's time is the
// duration of its window, the host range stretched over the GPU work it launched and clipped at the
// next step's start, so windows never overlap and the mean times the count is the time they cover.
// Mean and median are over those durations (the median of an even count is the mean of the middle
// two). Pure function, O(n log n) in steps.

#include <cstdint>
#include <string>

#include "core/analysis/metrics/StepDetection.h"

namespace chokepoint::analysis {

struct StepTimeSummary {
    std::int64_t count = 0;
    double meanNs = 0;
    double medianNs = 0;
    double minNs = 0;
    double maxNs = 0;
    double totalNs = 0;        // sum of the step windows
    bool stretched = false;    // windows stretched over the GPU work each step launched
    std::int32_t clipped = 0;  // steps whose stretch was clipped at the next step's start
    std::string definition;    // "mean of all 6 ProfilerStep steps, each stretched over ..."
};

StepTimeSummary summarizeStepTimes(const StepsResult& steps);

// "mean 178 ms, median 176 ms over all 6 ProfilerStep steps, each stretched over the GPU work it
// launched": the one sentence every output uses for the step time ("no steps" when there are none).
std::string describeStepTimes(const StepTimeSummary& summary);

// A step-time figure as every output prints it ("178 ms"), rounded to the nearest ns first.
std::string formatStepDuration(double ns);

}  // namespace chokepoint::analysis

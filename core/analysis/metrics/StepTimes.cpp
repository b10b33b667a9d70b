#include "core/analysis/metrics/StepTimes.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/Format.h"

namespace chokepoint::analysis {

StepTimeSummary summarizeStepTimes(const StepsResult& steps) {
    StepTimeSummary s;
    s.stretched = steps.stretched;
    s.clipped = steps.clippedSteps;
    std::vector<double> durations;
    durations.reserve(steps.steps.size());
    for (const Step& step : steps.steps) {
        durations.push_back(static_cast<double>(step.durationNs()));
    }
    if (durations.empty()) {
        s.definition = "no steps";
        return s;
    }
    s.count = static_cast<std::int64_t>(durations.size());
    for (double d : durations) {
        s.totalNs += d;
    }
    s.meanNs = s.totalNs / static_cast<double>(durations.size());
    std::sort(durations.begin(), durations.end());
    s.minNs = durations.front();
    s.maxNs = durations.back();
    const std::size_t mid = durations.size() / 2;
    s.medianNs = durations.size() % 2 == 1 ? durations[mid] : (durations[mid - 1] + durations[mid]) / 2.0;

    s.definition = "over all " + std::to_string(s.count) + " " + std::string(toString(steps.source)) +
                   (s.count == 1 ? " step" : " steps");
    if (s.stretched) {
        s.definition += ", each stretched over the GPU work it launched";
        if (s.clipped > 0) {
            s.definition += " and clipped at the next step's start";
        }
    } else {
        s.definition += ", host ranges";
    }
    return s;
}

std::string formatStepDuration(double ns) {
    return core::formatDuration(static_cast<core::DurationNs>(std::llround(ns)));
}

std::string describeStepTimes(const StepTimeSummary& summary) {
    if (summary.count == 0) {
        return summary.definition;
    }
    return "mean " + formatStepDuration(summary.meanNs) + ", median " + formatStepDuration(summary.medianNs) +
           " " + summary.definition;
}

}  // namespace chokepoint::analysis

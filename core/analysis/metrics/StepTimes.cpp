#include "core/analysis/metrics/StepTimes.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/base/Format.h"

namespace chokepoint::analysis {

namespace {

double medianOf(std::vector<double> v) {
    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    const std::size_t mid = v.size() / 2;
    return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
}

// Marks a slow first step as warm-up; every other step far from the median is kept (a slow step
// is part of what the job costs) and listed (see the header for the rule).
void flagOutliers(const StepsResult& steps, const std::vector<double>& durations, const StepTimeOptions& o,
                  StepTimeSummary& s) {
    s.steady.assign(durations.size(), true);
    if (static_cast<std::int64_t>(durations.size()) < o.minStepsForOutliers) {
        return;
    }
    const double median = medianOf(durations);
    std::vector<double> deviations;
    deviations.reserve(durations.size());
    for (double d : durations) {
        deviations.push_back(std::abs(d - median));
    }
    const double mad = medianOf(deviations);
    for (std::size_t i = 0; i < durations.size(); ++i) {
        const double deviation = std::abs(durations[i] - median);
        const bool farByZ = mad > 0 ? 0.6745 * deviation / mad > o.outlierModifiedZ : deviation > 0;
        if (!farByZ || deviation <= o.outlierMinRelative * median || median <= 0) {
            continue;
        }
        ExcludedStep e;
        e.stepIndex = static_cast<std::int32_t>(i);
        e.name = steps.steps[i].name;
        e.durationNs = durations[i];
        const bool slower = durations[i] > median;
        e.warmUp = i == 0 && slower;
        const std::string ratio = core::formatFixed(durations[i] / median, 2) + "x the median step";
        if (e.warmUp) {
            e.reason =
                "warm-up: " + ratio + " (first step: compilation, autotuning, allocator or profiler start)";
            s.steady[i] = false;
            s.excluded.push_back(std::move(e));
        } else {
            e.reason = ratio;
            s.keptFar.push_back(std::move(e));
        }
    }
}

// Steps that do work other than training (compilation; checkpoint saving, logging, evaluation) for
// at least compilationMinShare of their window and are slower than the steps that do not: left out
// wherever they fall (see the header). `what` names the work ("compiling").
void flagNonTrainingSteps(const StepsResult& steps, const std::vector<double>& durations,
                          const std::vector<core::DurationNs>& workNs, const std::string& what,
                          const std::string& kind, const StepTimeOptions& o, StepTimeSummary& s) {
    if (durations.size() < 2 || workNs.size() != durations.size()) {
        return;
    }
    std::vector<bool> does(durations.size(), false);
    std::vector<double> others;
    for (std::size_t i = 0; i < durations.size(); ++i) {
        does[i] = workNs[i] > 0 && static_cast<double>(workNs[i]) >= o.compilationMinShare * durations[i];
        if (!does[i]) {
            others.push_back(durations[i]);
        }
    }
    if (others.empty()) {
        return;  // every step does it: that is the steady state, not a step apart
    }
    const double reference = medianOf(others);
    const double median = medianOf(durations);
    for (std::size_t i = 0; i < durations.size(); ++i) {
        if (!does[i] || durations[i] <= reference * (1.0 + o.outlierMinRelative) || median <= 0) {
            continue;
        }
        const std::string why = kind + ": " + core::formatFixed(durations[i] / median, 2) +
                                "x the median step, " + what + " " +
                                formatStepDuration(static_cast<double>(workNs[i])) + " of it";
        auto it = std::find_if(s.excluded.begin(), s.excluded.end(), [&](const ExcludedStep& e) {
            return e.stepIndex == static_cast<std::int32_t>(i);
        });
        if (it != s.excluded.end() && kind != "warm-up") {
            continue;  // already left out as warm-up: that reason stays
        }
        if (it == s.excluded.end()) {
            ExcludedStep e;
            e.stepIndex = static_cast<std::int32_t>(i);
            e.name = steps.steps[i].name;
            e.durationNs = durations[i];
            it = s.excluded.insert(std::upper_bound(s.excluded.begin(), s.excluded.end(), e.stepIndex,
                                                    [](std::int32_t index, const ExcludedStep& x) {
                                                        return index < x.stepIndex;
                                                    }),
                                   std::move(e));
        }
        it->warmUp = kind == "warm-up";
        it->reason = why;
        s.steady[i] = false;
        s.keptFar.erase(std::remove_if(s.keptFar.begin(), s.keptFar.end(),
                                       [&](const ExcludedStep& e) {
                                           return e.stepIndex == static_cast<std::int32_t>(i);
                                       }),
                        s.keptFar.end());
    }
}

}  // namespace

StepTimeSummary summarizeStepTimes(const StepsResult& steps, const StepTimeOptions& options,
                                   const std::vector<core::DurationNs>& compilationNs,
                                   const std::vector<core::DurationNs>& housekeepingNs) {
    StepTimeSummary s;
    s.stretched = steps.stretched;
    s.clipped = steps.clippedSteps;
    s.queued = steps.queuedSteps;
    std::vector<double> durations;
    durations.reserve(steps.steps.size());
    for (const Step& step : steps.steps) {
        durations.push_back(static_cast<double>(step.durationNs()));
    }
    if (durations.empty()) {
        s.definition = "no steps";
        return s;
    }
    s.allCount = static_cast<std::int64_t>(durations.size());
    double allTotal = 0;
    for (double d : durations) {
        allTotal += d;
    }
    s.allMeanNs = allTotal / static_cast<double>(durations.size());
    flagOutliers(steps, durations, options, s);
    flagNonTrainingSteps(steps, durations, compilationNs, "compiling", "warm-up", options, s);
    flagNonTrainingSteps(steps, durations, housekeepingNs, "checkpoint saving, logging or evaluation",
                         "not training", options, s);

    std::vector<double> steady;
    for (std::size_t i = 0; i < durations.size(); ++i) {
        if (s.steady[i]) {
            steady.push_back(durations[i]);
            s.totalNs += durations[i];
        }
    }
    s.count = static_cast<std::int64_t>(steady.size());
    s.meanNs = s.totalNs / static_cast<double>(steady.size());
    s.medianNs = medianOf(steady);
    s.minNs = *std::min_element(steady.begin(), steady.end());
    s.maxNs = *std::max_element(steady.begin(), steady.end());

    const std::string source(toString(steps.source));
    // "over all 10 steps (step marker)", "over 14 of 15 steps (repeating kernels)".
    if (s.excluded.empty()) {
        s.definition =
            "over " +
            std::string(s.count == 1 ? "the one step" : "all " + std::to_string(s.count) + " steps") + " (" +
            source + ")";
    } else {
        s.definition = "over " + std::to_string(s.count) + " of " + std::to_string(s.allCount) + " steps (" +
                       source + ")";
    }
    if (s.stretched) {
        s.definition += ", each stretched over the GPU work it launched";
        if (s.queued > 0) {
            s.definition += ", from when the GPU finished the work queued before it";
        }
        if (s.clipped > 0) {
            s.definition += " and clipped at the next step's start";
        }
    } else {
        s.definition += ", host ranges";
    }
    if (!s.excluded.empty()) {
        s.definition += "; left out of the figures and the verdict: ";
        for (std::size_t i = 0; i < s.excluded.size(); ++i) {
            const ExcludedStep& e = s.excluded[i];
            s.definition += (i > 0 ? ", " : "") + e.name + " (" + formatStepDuration(e.durationNs) + ", " +
                            e.reason + ")";
        }
        s.definition +=
            "; mean of all " + std::to_string(s.allCount) + " steps " + formatStepDuration(s.allMeanNs);
    }
    if (!s.keptFar.empty()) {
        // Far on either side: a slow step is part of what the job costs, a fast one part of what it does.
        const bool anySlow = std::any_of(s.keptFar.begin(), s.keptFar.end(),
                                         [&](const ExcludedStep& e) { return e.durationNs > s.medianNs; });
        const bool anyFast = std::any_of(s.keptFar.begin(), s.keptFar.end(),
                                         [&](const ExcludedStep& e) { return e.durationNs < s.medianNs; });
        s.definition += std::string("; kept, although far from the median (") +
                        (anySlow && anyFast ? "a slow or a short step is part of what the job does"
                         : anyFast          ? "a short step is part of what the job does"
                                            : "a slow step is part of what the job costs") +
                        "): ";
        for (std::size_t i = 0; i < s.keptFar.size(); ++i) {
            const ExcludedStep& e = s.keptFar[i];
            s.definition += (i > 0 ? ", " : "") + e.name + " (" + formatStepDuration(e.durationNs) + ", " +
                            e.reason + ")";
        }
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
    // min and max sit with the figures they bound: the steady steps, never the ones left out.
    std::string range;
    if (summary.count > 1) {
        range =
            ", min " + formatStepDuration(summary.minNs) + ", max " + formatStepDuration(summary.maxNs) + ",";
    }
    return "mean " + formatStepDuration(summary.meanNs) + ", median " + formatStepDuration(summary.medianNs) +
           " (robust to slow steps)" + range + " " + summary.definition;
}

}  // namespace chokepoint::analysis

#pragma once
// Compare two analysis reports (before/after a change, or two ranks of one job): per-metric deltas
// (step time, busy, MFU, idle by cause, shares), verdict changes (overall and per phase), kernels
// matched by name whose time per step got longer or shorter (the figure printed first; the mean per
// call is shown beside it), warnings when the traces differ in device, kernel set or world size,
// and whether the predicted gain of the first report's
// top fix materialised in the second. Pure function; linear in kernel names (hash join).
// Units: ns for times, fractions 0..1 for shares.

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/diagnosis/AnalysisReport.h"

namespace chokepoint::analysis {

struct MetricDelta {
    std::string name;  // "stepTimeNs", "busy", "mfu", "idle.dataWait", ...
    std::string unit;  // "ns" or "fraction"
    double before = 0;
    double after = 0;
    double delta = 0;     // after − before
    double relative = 0;  // delta / before (0 when before is 0)
    bool lowerIsBetter = true;
    bool improved = false;  // moved in the better direction by a noticeable amount
    bool regressed = false;
    // Why the two sides are not judged against each other ("" when they are): an MFU whose model
    // FLOPs come from different sources differs by its method, not by the job.
    std::string notComparable;
};

struct VerdictChange {
    std::string scope;  // "overall", "phase backward"
    Bottleneck before = Bottleneck::Undetermined;
    Bottleneck after = Bottleneck::Undetermined;
    bool changed() const { return before != after; }
};

struct KernelDelta {
    std::string name;
    KernelClass kernelClass = KernelClass::Other;
    std::int64_t countBefore = 0, countAfter = 0;          // calls in each whole trace
    double callsPerStepBefore = 0, callsPerStepAfter = 0;  // over each side's steps, like totalNs
    double totalNsBefore = 0, totalNsAfter = 0;
    double meanNsBefore = 0, meanNsAfter = 0;
    double meanRatio = 1;     // meanAfter / meanBefore (per call)
    double perStepRatio = 1;  // totalNsAfter / totalNsBefore (per step): slower/faster go by this
};

struct PredictionCheck {
    bool available = false;  // the first report had a fix with a computed gain
    std::string ruleId;
    double stepNsBefore = 0;
    double predictedStepNs = 0;
    double predictedLowNs = 0;  // the range the fix stated (ExpectedGain::stepTimeLowNs/HighNs)
    double predictedHighNs = 0;
    double actualStepNs = 0;
    double errorRelative = 0;     // (predicted - actual) / actual
    bool withinRange = false;     // the measured step falls in the stated range
    double fractionRealised = 0;  // (before − actual) / (before − predicted)
    // "materialised", "partly materialised", "did not materialise", or "not applied" when nothing
    // changed: the same kernels as long per step, the step time within noise, the same verdict;
    // "not checked" when the traces do not look like two runs of one job (a warning says why).
    std::string verdict;
    std::string summary;
};

struct CompareOptions {
    double kernelChangeMinRatio = 1.10;   // time per step changed by ≥ 10 %
    double sameModelMinOverlap = 0.5;     // kernel time (both sides) in kernels both traces run
    double kernelMinShareOfTime = 0.005;  // and the kernel holds ≥ 0.5 % of kernel time on a side
    std::size_t maxKernels = 15;          // per list
    double metricNoiseRelative = 0.02;    // changes under 2 % (relative) are "unchanged"
    // The top fix's target constraint moved less than this share of the step (or than
    // metricNoiseRelative of its share): the fix does not look applied.
    double targetUnmovedAbsolute = 0.02;
    double shareNoiseAbsolute = 0.01;  // and under 1 percentage point for fractions
};

struct ComparisonReport {
    std::string labelBefore, labelAfter;  // source paths
    std::vector<MetricDelta> metrics;
    VerdictChange overall;
    std::vector<VerdictChange> phases;
    std::vector<KernelDelta> slower;    // largest time increase first
    std::vector<KernelDelta> faster;    // largest time decrease first
    std::vector<KernelDelta> appeared;  // only in the second report
    std::vector<KernelDelta> vanished;  // only in the first report
    PredictionCheck prediction;
    // The two traces are not runs of the same job: other device, other kernel set (model) or other
    // world size. Each entry is one sentence; deltas and the prediction check mean little then.
    std::vector<std::string> warnings;
    std::string headline;  // the step time and the verdict, in one sentence
    std::string summary;   // the headline and the first warning ("CAUTION: ..."), for one-line outputs
    // Each side's step time with the steps it is over and those left out and why
    // (describeStepTimes): one rule on both sides, every steady step counted.
    std::string stepsBefore;
    std::string stepsAfter;
    const MetricDelta* metric(const std::string& name) const;
};

ComparisonReport compareReports(const AnalysisReport& before, const AnalysisReport& after,
                                const CompareOptions& options = {});

std::string writeTextComparison(const ComparisonReport& comparison);
std::string writeJsonComparison(const ComparisonReport& comparison);
std::string writeMarkdownComparison(const ComparisonReport& comparison);

}  // namespace chokepoint::analysis

#include "core/analysis/diagnosis/Compare.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/base/Format.h"
#include "core/base/JsonEscape.h"

namespace chokepoint::analysis {

const MetricDelta* ComparisonReport::metric(const std::string& name) const {
    for (const MetricDelta& m : metrics) {
        if (m.name == name) {
            return &m;
        }
    }
    return nullptr;
}

namespace {

std::string pct(double f) {
    return core::formatPercent(f);
}

std::string dur(double ns) {
    return formatStepDuration(ns);
}

// A kernel's mean time per call, or "—" on the side where it never ran.
std::string perCall(std::int64_t calls, double meanNs) {
    return calls > 0 ? dur(meanNs) : "—";
}

// Calls per step: whole numbers as such ("12"), others with one decimal ("1.5").
std::string callsText(double callsPerStep) {
    const double whole = std::round(callsPerStep);
    return std::abs(callsPerStep - whole) < 0.05 ? core::formatFixed(whole, 0)
                                                 : core::formatFixed(callsPerStep, 1);
}

MetricDelta makeDelta(std::string name, std::string unit, double before, double after, bool lowerIsBetter,
                      const CompareOptions& o) {
    MetricDelta d;
    d.name = std::move(name);
    d.unit = std::move(unit);
    d.before = before;
    d.after = after;
    d.delta = after - before;
    d.relative = before != 0 ? d.delta / before : 0;
    d.lowerIsBetter = lowerIsBetter;
    const bool fraction = d.unit == "fraction";
    const bool noticeable =
        fraction ? std::abs(d.delta) >= o.shareNoiseAbsolute
                 : std::abs(d.relative) >= o.metricNoiseRelative || (before == 0 && after != 0);
    if (noticeable) {
        const bool better = lowerIsBetter ? d.delta < 0 : d.delta > 0;
        d.improved = better;
        d.regressed = !better;
    }
    return d;
}

std::string metricText(const MetricDelta& m) {
    if (m.unit == "ns") {
        return dur(m.before) + " -> " + dur(m.after) + " (" + (m.delta >= 0 ? "+" : "") +
               core::formatFixed(100.0 * m.relative, 1) + " %)";
    }
    if (m.unit == "fraction") {
        return pct(m.before) + " -> " + pct(m.after) + " (" + (m.delta >= 0 ? "+" : "") +
               core::formatFixed(100.0 * m.delta, 1) + " pp)";
    }
    return core::formatCount(static_cast<std::int64_t>(std::llround(m.before))) + " -> " +
           core::formatCount(static_cast<std::int64_t>(std::llround(m.after)));
}

}  // namespace

ComparisonReport compareReports(const AnalysisReport& a, const AnalysisReport& b, const CompareOptions& o) {
    ComparisonReport c;
    c.labelBefore = a.sourcePath;
    c.labelAfter = b.sourcePath;
    c.stepsBefore = describeStepTimes(a.metrics.stepTimes);
    c.stepsAfter = describeStepTimes(b.metrics.stepTimes);
    const DiagnosisSignals& sa = a.overallSignals;
    const DiagnosisSignals& sb = b.overallSignals;

    c.metrics.push_back(makeDelta("stepTimeNs", "ns", a.mfu.stepTimeNs, b.mfu.stepTimeNs, true, o));
    c.metrics.push_back(makeDelta("busy", "fraction", sa.busyFraction, sb.busyFraction, false, o));
    if (a.mfu.mfu && b.mfu.mfu) {
        MetricDelta mfu = makeDelta("mfu", "fraction", *a.mfu.mfu, *b.mfu.mfu, false, o);
        if (a.mfu.source != b.mfu.source) {
            mfu.improved = false;
            mfu.regressed = false;
            mfu.notComparable = "model FLOPs from different sources (" + std::string(toString(a.mfu.source)) +
                                " vs " + std::string(toString(b.mfu.source)) + ")";
        }
        c.metrics.push_back(mfu);
    }
    if (a.mfu.hfu && b.mfu.hfu) {
        c.metrics.push_back(makeDelta("hfu", "fraction", *a.mfu.hfu, *b.mfu.hfu, false, o));
    }
    c.metrics.push_back(makeDelta("compute", "fraction", sa.computeFraction, sb.computeFraction, false, o));
    c.metrics.push_back(
        makeDelta("communication", "fraction", sa.communicationFraction, sb.communicationFraction, true, o));
    c.metrics.push_back(makeDelta("exposedCommunication", "fraction", sa.exposedCommunicationFraction,
                                  sb.exposedCommunicationFraction, true, o));
    c.metrics.push_back(makeDelta("copy", "fraction", sa.copyFraction, sb.copyFraction, true, o));
    c.metrics.push_back(makeDelta("idle", "fraction", sa.idleFraction, sb.idleFraction, true, o));
    c.metrics.push_back(
        makeDelta("idle.dataWait", "fraction", sa.idleDataWaitFraction, sb.idleDataWaitFraction, true, o));
    c.metrics.push_back(makeDelta("idle.launchOverhead", "fraction", sa.idleLaunchOverheadFraction,
                                  sb.idleLaunchOverheadFraction, true, o));
    c.metrics.push_back(
        makeDelta("idle.synchronization", "fraction", sa.idleSyncFraction, sb.idleSyncFraction, true, o));
    c.metrics.push_back(makeDelta("idle.collective", "fraction", sa.idleCollectiveFraction,
                                  sb.idleCollectiveFraction, true, o));
    c.metrics.push_back(makeDelta("idle.unexplained", "fraction", sa.idleUnexplainedFraction,
                                  sb.idleUnexplainedFraction, true, o));
    c.metrics.push_back(
        makeDelta("idle.hostWork", "fraction", sa.idleHostWorkFraction, sb.idleHostWorkFraction, true, o));
    c.metrics.push_back(makeDelta("idle.compilation", "fraction", sa.idleCompilationFraction,
                                  sb.idleCompilationFraction, true, o));
    c.metrics.push_back(makeDelta("idle.housekeeping", "fraction", sa.idleHousekeepingFraction,
                                  sb.idleHousekeepingFraction, true, o));
    c.metrics.push_back(
        makeDelta("idle.garbageCollection", "fraction", sa.idleGcFraction, sb.idleGcFraction, true, o));
    // Per step: the overall signals count the kernels of every steady step, and two captures of
    // one job rarely hold as many steps (10 against 5 read as half the kernels).
    const auto kernelsPerStep = [](const AnalysisReport& r) {
        return static_cast<double>(r.overallSignals.kernelCount) /
               static_cast<double>(std::max<std::int64_t>(1, r.metrics.stepTimes.count));
    };
    c.metrics.push_back(makeDelta("kernelsPerStep", "count", kernelsPerStep(a), kernelsPerStep(b), true, o));

    c.overall = {"overall", a.overall.bottleneck, b.overall.bottleneck};
    for (const PhaseDiagnosis& pa : a.phases) {
        for (const PhaseDiagnosis& pb : b.phases) {
            if (pa.kind == pb.kind) {
                c.phases.push_back({"phase " + std::string(toString(pa.kind)), pa.verdict.bottleneck,
                                    pb.verdict.bottleneck});
            }
        }
    }

    // Kernels matched by name, per step of the steady steps (the ones each side's step time is
    // over): runs with different step counts compare, and warm-up autotuning (cudnn trying kernel
    // variants in a first step) is neither "per step" work nor a kernel that appeared or vanished.
    // A side without steady steps is one window.
    struct PerStep {
        const TopKernel* kernel = nullptr;
        double calls = 0, ns = 0, meanNs = 0, share = 0;
    };
    const auto perStepOf = [](const AnalysisReport& r) {
        const bool steady = r.metrics.stepTimes.count > 0;
        const double steps = steady ? static_cast<double>(r.metrics.stepTimes.count) : 1.0;
        std::unordered_map<std::string, PerStep> out;
        double totalNs = 0;
        for (const TopKernel& k : r.kernelsByName) {
            const double calls = static_cast<double>(steady ? k.steadyCount : k.count);
            const double ns = steady ? k.steadyTotalNs : k.totalNs;
            if (calls <= 0) {
                continue;  // ran only outside the steady steps
            }
            out[k.name] = {&k, calls / steps, ns / steps, ns / calls, 0};
            totalNs += ns / steps;
        }
        for (auto& [name, p] : out) {
            p.share = totalNs > 0 ? p.ns / totalNs : 0;
        }
        return out;
    };
    const std::unordered_map<std::string, PerStep> perStepA = perStepOf(a);
    const std::unordered_map<std::string, PerStep> perStepB = perStepOf(b);
    const auto fill = [](KernelDelta& d, const PerStep& p, bool after) {
        d.name = p.kernel->name;
        d.kernelClass = p.kernel->kernelClass;
        (after ? d.countAfter : d.countBefore) = p.kernel->count;
        (after ? d.callsPerStepAfter : d.callsPerStepBefore) = p.calls;
        (after ? d.totalNsAfter : d.totalNsBefore) = p.ns;
        (after ? d.meanNsAfter : d.meanNsBefore) = p.meanNs;
    };
    for (const auto& [name, pb] : perStepB) {
        KernelDelta d;
        fill(d, pb, true);
        const auto it = perStepA.find(name);
        if (it == perStepA.end()) {
            if (pb.share >= o.kernelMinShareOfTime) {
                c.appeared.push_back(d);
            }
            continue;
        }
        const PerStep& pa = it->second;
        fill(d, pa, false);
        d.meanRatio = pa.meanNs > 0 ? pb.meanNs / pa.meanNs : 1;
        d.perStepRatio = pa.ns > 0 ? pb.ns / pa.ns : 1;
        if (std::max(pa.share, pb.share) < o.kernelMinShareOfTime) {
            continue;
        }
        if (d.perStepRatio >= o.kernelChangeMinRatio) {
            c.slower.push_back(d);
        } else if (d.perStepRatio > 0 && d.perStepRatio <= 1.0 / o.kernelChangeMinRatio) {
            c.faster.push_back(d);
        }
    }
    for (const auto& [name, pa] : perStepA) {
        if (perStepB.count(name) == 0 && pa.share >= o.kernelMinShareOfTime) {
            KernelDelta d;
            fill(d, pa, false);
            c.vanished.push_back(d);
        }
    }
    // Ties go by name, so the lists do not depend on the order of the hash maps above.
    const auto byIncrease = [](const KernelDelta& x, const KernelDelta& y) {
        const double dx = x.totalNsAfter - x.totalNsBefore;
        const double dy = y.totalNsAfter - y.totalNsBefore;
        return dx != dy ? dx > dy : x.name < y.name;
    };
    std::sort(c.slower.begin(), c.slower.end(), byIncrease);
    std::sort(c.faster.begin(), c.faster.end(), [&](const KernelDelta& x, const KernelDelta& y) {
        const double dx = x.totalNsAfter - x.totalNsBefore;
        const double dy = y.totalNsAfter - y.totalNsBefore;
        return dx != dy ? dx < dy : x.name < y.name;
    });
    std::sort(c.appeared.begin(), c.appeared.end(), byIncrease);
    std::sort(c.vanished.begin(), c.vanished.end(), [](const KernelDelta& x, const KernelDelta& y) {
        return x.totalNsBefore != y.totalNsBefore ? x.totalNsBefore > y.totalNsBefore : x.name < y.name;
    });
    for (auto* list : {&c.slower, &c.faster, &c.appeared, &c.vanished}) {
        if (list->size() > o.maxKernels) {
            list->resize(o.maxKernels);
        }
    }

    // Steps on both sides? A trace without steps is analysed as one window: its "step time" is the
    // whole trace, and comparing it with a step (19.4 s -> 55.8 ms) says nothing about the change.
    const bool hasStepsA = a.metrics.steps.source != StepSource::WholeTrace && !a.metrics.steps.steps.empty();
    const bool hasStepsB = b.metrics.steps.source != StepSource::WholeTrace && !b.metrics.steps.steps.empty();
    const bool stepsOnOneSide = hasStepsA != hasStepsB;
    if (stepsOnOneSide) {
        const AnalysisReport& without = hasStepsA ? b : a;
        std::string w = std::string(hasStepsA ? "the second trace" : "the first trace") + " (" +
                        (without.sourcePath.empty() ? std::string("no path") : without.sourcePath) +
                        ") has no training steps: its step time is the whole trace (" +
                        dur(without.mfu.stepTimeNs) + ")";
        w += "; step time, shares and the predicted gain compare different windows, not a change to one step "
             "(record steps: ProfilerStep, the helper's chokepoint.step(), an NVTX range per step)";
        c.warnings.insert(c.warnings.begin(), std::move(w));
        MetricDelta& step = c.metrics.front();
        step.improved = false;
        step.regressed = false;
    }

    // Are these two runs of the same job?
    const std::string deviceA =
        a.device.traceDeviceName.empty() ? a.device.spec.id : a.device.traceDeviceName;
    const std::string deviceB =
        b.device.traceDeviceName.empty() ? b.device.spec.id : b.device.traceDeviceName;
    if (!deviceA.empty() && !deviceB.empty() && deviceA != deviceB) {
        c.warnings.push_back("the traces ran on different devices ('" + deviceA + "' and '" + deviceB +
                             "'): differences include the hardware");
    }
    const int worldA = a.distributed.present ? a.distributed.worldSize : 1;
    const int worldB = b.distributed.present ? b.distributed.worldSize : 1;
    if (worldA != worldB) {
        c.warnings.push_back("the traces have different world sizes (" + std::to_string(worldA) + " and " +
                             std::to_string(worldB) + " ranks)");
    }
    {
        double totalA = 0, totalB = 0, sharedA = 0, sharedB = 0;
        std::unordered_map<std::string, double> timeB;
        for (const TopKernel& k : b.kernelsByName) {
            timeB[k.name] += k.totalNs;
            totalB += k.totalNs;
        }
        for (const TopKernel& k : a.kernelsByName) {
            totalA += k.totalNs;
            if (const auto it = timeB.find(k.name); it != timeB.end()) {
                sharedA += k.totalNs;
                sharedB += it->second;
            }
        }
        if (totalA > 0 && totalB > 0) {
            const double overlap = std::min(sharedA / totalA, sharedB / totalB);
            if (overlap < o.sameModelMinOverlap) {
                c.warnings.push_back(
                    "the traces run different kernels (only " + pct(overlap) +
                    " of the kernel time is in kernels both run): probably different models; "
                    "the deltas compare two jobs, not a change to one");
            }
        }
    }

    // A side without GPU work reads zeros everywhere: fewer idle and kernels are no improvement.
    if (a.metrics.hasGpuWork != b.metrics.hasGpuWork) {
        c.warnings.push_back(std::string(a.metrics.hasGpuWork ? "B" : "A") +
                             " has no GPU work (a CPU-only trace?): its GPU figures are zeros, not a change");
        for (MetricDelta& m : c.metrics) {
            if (m.name != "stepTimeNs") {
                m.improved = false;
                m.regressed = false;
            }
        }
    }

    // Did the first report's top fix deliver its predicted gain? Only two runs of one job can say.
    PredictionCheck& p = c.prediction;
    if (!stepsOnOneSide && !a.fixes.recommendations.empty() &&
        a.fixes.recommendations.front().gain.computed) {
        const Recommendation& top = a.fixes.recommendations.front();
        p.available = true;
        p.ruleId = top.ruleId;
        p.stepNsBefore = a.mfu.stepTimeNs;
        p.predictedStepNs = top.gain.stepTimeAfterNs;
        p.predictedLowNs = top.gain.stepTimeLowNs;
        p.predictedHighNs = top.gain.stepTimeHighNs;
        p.actualStepNs = b.mfu.stepTimeNs;
    }
    // Two ranks of one job side by side are not a before and an after.
    const bool twoRanks = a.distributed.present && b.distributed.present && a.distributed.rank >= 0 &&
                          b.distributed.rank >= 0 && a.distributed.rank != b.distributed.rank &&
                          a.distributed.worldSize == b.distributed.worldSize;
    if (p.available && twoRanks) {
        p.verdict = "not checked";
        p.summary = p.ruleId + " (" + a.fixes.recommendations.front().title +
                    "): its prediction is not checked, as these are two ranks of one job (ranks " +
                    std::to_string(a.distributed.rank) + " and " + std::to_string(b.distributed.rank) +
                    "), not a run before and after a change";
    } else if (p.available && !c.warnings.empty()) {
        p.verdict = "not checked";
        p.summary = p.ruleId + " (" + a.fixes.recommendations.front().title +
                    "): its prediction is not checked, as these do not look like two runs of one job (" +
                    c.warnings.front() + ")";
    } else if (p.available) {
        const Recommendation& top = a.fixes.recommendations.front();
        p.errorRelative = p.actualStepNs > 0 ? (p.predictedStepNs - p.actualStepNs) / p.actualStepNs : 0;
        p.withinRange = p.actualStepNs >= p.predictedLowNs && p.actualStepNs <= p.predictedHighNs;
        const double predictedGain = p.stepNsBefore - p.predictedStepNs;
        const double actualGain = p.stepNsBefore - p.actualStepNs;
        p.fractionRealised = predictedGain != 0 ? actualGain / predictedGain : 0;
        // Two captures of one unchanged job (before any fix, or two profilers) are no test of it.
        const bool nothingChanged = c.slower.empty() && c.faster.empty() && c.appeared.empty() &&
                                    c.vanished.empty() && !c.overall.changed() &&
                                    std::abs(c.metrics.front().relative) < o.metricNoiseRelative;
        // The constraint the fix targets holds the same share of the step after: the fix was not
        // applied (or did nothing), whatever else moved (two captures of one job by two profilers
        // read "did not materialise" while the data wait stayed at 85 %).
        const double targetBefore = a.overall.shareOf(top.target);
        const double targetAfter = b.overall.shareOf(top.target);
        const bool targetUnmoved =
            targetBefore > 0 && std::abs(targetAfter - targetBefore) <
                                    std::max(o.targetUnmovedAbsolute, o.metricNoiseRelative * targetBefore);
        p.verdict = nothingChanged || targetUnmoved ? "not applied"
                    : p.fractionRealised >= 0.5     ? "materialised"
                    : p.fractionRealised >= 0.2     ? "partly materialised"
                                                    : "did not materialise";
        if (!nothingChanged && targetUnmoved) {
            p.summary = p.ruleId + " (" + top.title + ") does not look applied: the constraint it targets (" +
                        std::string(toString(top.target)) + ") holds " + pct(targetBefore) +
                        " of the step before and " + pct(targetAfter) +
                        " after; its prediction to check once it is: step time " + dur(p.predictedStepNs) +
                        " (range " + dur(p.predictedLowNs) + " - " + dur(p.predictedHighNs) + ")";
        } else if (nothingChanged) {
            p.summary = p.ruleId + " (" + top.title +
                        ") does not look applied: the same kernels run as long per step, and the step time "
                        "moved " +
                        core::formatFixed(100.0 * c.metrics.front().relative, 1) + " % (under the noise of " +
                        core::formatFixed(100.0 * o.metricNoiseRelative, 0) +
                        " %); its prediction to check once it is: step time " + dur(p.predictedStepNs) +
                        " (range " + dur(p.predictedLowNs) + " - " + dur(p.predictedHighNs) + ")";
        } else {
            p.summary = "if " + p.ruleId + " (" + top.title + ") was applied: predicted step time " +
                        dur(p.predictedStepNs) + " (range " + dur(p.predictedLowNs) + " - " +
                        dur(p.predictedHighNs) + "), measured " + dur(p.actualStepNs) +
                        " (the prediction is " + (p.errorRelative >= 0 ? "+" : "") +
                        core::formatFixed(100.0 * p.errorRelative, 1) +
                        " % off the measured step, which lies " + (p.withinRange ? "inside" : "outside") +
                        " the range; " + core::formatFixed(100.0 * p.fractionRealised, 0) +
                        " % of the predicted gain realised: " + p.verdict + ")";
        }
    }

    const MetricDelta& step = c.metrics.front();
    std::string s = "step time (mean) " + metricText(step);
    s += c.overall.changed() ? "; verdict " + std::string(displayName(c.overall.before)) + " -> " +
                                   std::string(displayName(c.overall.after))
                             : "; verdict unchanged: " + std::string(displayName(c.overall.after));
    c.headline = s;
    if (!c.warnings.empty()) {
        s += "; CAUTION: " + c.warnings.front();
    }
    c.summary = s;
    return c;
}

std::string writeTextComparison(const ComparisonReport& c) {
    std::string out = "Chokepoint diff\n  A: " + c.labelBefore + "\n  B: " + c.labelAfter + "\n\n";
    out += "SUMMARY: " + c.summary + "\n";
    if (!c.warnings.empty()) {
        out += "\nWARNINGS (these may not be two runs of one job)\n";
        for (const std::string& w : c.warnings) {
            out += "  " + w + "\n";
        }
    }
    out +=
        "\nSTEP TIME (the same rule on both sides: every steady step counts; only warm-up, compilation and "
        "checkpointing steps are left out)\n  A: " +
        c.stepsBefore + "\n  B: " + c.stepsAfter + "\n";
    out += "\nMETRICS (A -> B)\n";
    for (const MetricDelta& m : c.metrics) {
        std::string name = m.name;
        name.resize(std::max<std::size_t>(name.size(), 24), ' ');
        out += "  " + name + metricText(m) +
               (m.improved    ? "  better"
                : m.regressed ? "  worse"
                              : "") +
               (m.notComparable.empty() ? "" : "  not compared: " + m.notComparable) + "\n";
    }
    out += "\nVERDICTS\n  overall: " + std::string(toString(c.overall.before)) + " -> " +
           std::string(toString(c.overall.after)) + (c.overall.changed() ? "  (changed)" : "") + "\n";
    for (const VerdictChange& v : c.phases) {
        out += "  " + v.scope + ": " + std::string(toString(v.before)) + " -> " +
               std::string(toString(v.after)) + (v.changed() ? "  (changed)" : "") + "\n";
    }
    const auto list = [&](const char* title, const std::vector<KernelDelta>& ks) {
        if (ks.empty()) {
            return;
        }
        out += std::string("\n") + title + "\n";
        for (const KernelDelta& k : ks) {
            std::string name = k.name.size() > 70 ? k.name.substr(0, 67) + "..." : k.name;
            out += "  " + dur(k.totalNsBefore) + " -> " + dur(k.totalNsAfter) + " per step; " +
                   perCall(k.countBefore, k.meanNsBefore) + " -> " + perCall(k.countAfter, k.meanNsAfter) +
                   " per call (" + callsText(k.callsPerStepBefore) + " -> " + callsText(k.callsPerStepAfter) +
                   " calls per step)  " + name + "\n";
        }
    };
    list("KERNELS SLOWER (more time per step)", c.slower);
    list("KERNELS FASTER (less time per step)", c.faster);
    list("KERNELS ONLY IN B (time per step)", c.appeared);
    list("KERNELS ONLY IN A (time per step)", c.vanished);
    if (c.prediction.available) {
        out += "\nPREDICTION CHECK\n  " + c.prediction.summary + "\n";
    }
    return out;
}

std::string writeMarkdownComparison(const ComparisonReport& c) {
    std::string out =
        "# Chokepoint diff\n\n- **A:** `" + c.labelBefore + "`\n- **B:** `" + c.labelAfter + "`\n\n";
    out += "> " + c.summary + "\n\n";
    for (const std::string& w : c.warnings) {
        out += "- **Warning:** " + w + "\n";
    }
    out += std::string(c.warnings.empty() ? "" : "\n") + "- **Step time A:** " + c.stepsBefore +
           "\n- **Step time B:** " + c.stepsAfter + "\n\n";
    out += "| metric | A -> B | |\n|---|---|---|\n";
    for (const MetricDelta& m : c.metrics) {
        out += "| " + m.name + " | " + metricText(m) + " | " +
               (m.improved ? "better" : (m.regressed ? "worse" : "")) +
               (m.notComparable.empty() ? "" : "not compared: " + m.notComparable) + " |\n";
    }
    out += "\n## Verdicts\n\n- overall: " + std::string(toString(c.overall.before)) + " → " +
           std::string(toString(c.overall.after)) + "\n";
    for (const VerdictChange& v : c.phases) {
        out += "- " + v.scope + ": " + std::string(toString(v.before)) + " → " +
               std::string(toString(v.after)) + "\n";
    }
    const auto list = [&](const char* title, const std::vector<KernelDelta>& ks) {
        if (ks.empty()) {
            return;
        }
        out += std::string("\n## ") + title +
               "\n\n| kernel | per step A -> B | per call A -> B |\n|---|---|---|\n";
        for (const KernelDelta& k : ks) {
            out += "| `" + k.name + "` | " + dur(k.totalNsBefore) + " -> " + dur(k.totalNsAfter) + " | " +
                   perCall(k.countBefore, k.meanNsBefore) + " -> " + perCall(k.countAfter, k.meanNsAfter) +
                   " |\n";
        }
    };
    list("Kernels slower (more time per step)", c.slower);
    list("Kernels faster (less time per step)", c.faster);
    list("Kernels only in B", c.appeared);
    list("Kernels only in A", c.vanished);
    if (c.prediction.available) {
        out += "\n## Prediction check\n\n" + c.prediction.summary + "\n";
    }
    return out;
}

std::string writeJsonComparison(const ComparisonReport& c) {
    std::string out = "{\"schema\":\"chokepoint.diff\",\"schemaVersion\":1";
    out += ",\"before\":" + core::jsonString(c.labelBefore) + ",\"after\":" + core::jsonString(c.labelAfter);
    out += ",\"summary\":" + core::jsonString(c.summary);
    out += ",\"warnings\":[";
    for (std::size_t i = 0; i < c.warnings.size(); ++i) {
        out += std::string(i ? "," : "") + core::jsonString(c.warnings[i]);
    }
    out += "]";
    const auto num = [](double v) {
        return std::isfinite(v) ? core::formatFixed(v, 6) : std::string("null");
    };
    out += ",\"metrics\":[";
    for (std::size_t i = 0; i < c.metrics.size(); ++i) {
        const MetricDelta& m = c.metrics[i];
        out += std::string(i ? "," : "") + "{\"name\":" + core::jsonString(m.name) +
               ",\"unit\":" + core::jsonString(m.unit) + ",\"before\":" + num(m.before) +
               ",\"after\":" + num(m.after) + ",\"delta\":" + num(m.delta) +
               ",\"relative\":" + num(m.relative) + ",\"improved\":" + (m.improved ? "true" : "false") +
               ",\"regressed\":" + (m.regressed ? "true" : "false") +
               ",\"notComparable\":" + core::jsonString(m.notComparable) + "}";
    }
    out += "],\"verdicts\":[";
    std::vector<VerdictChange> all = {c.overall};
    all.insert(all.end(), c.phases.begin(), c.phases.end());
    for (std::size_t i = 0; i < all.size(); ++i) {
        out += std::string(i ? "," : "") + "{\"scope\":" + core::jsonString(all[i].scope) +
               ",\"before\":" + core::jsonString(toString(all[i].before)) +
               ",\"after\":" + core::jsonString(toString(all[i].after)) +
               ",\"changed\":" + (all[i].changed() ? "true" : "false") + "}";
    }
    out += "]";
    const auto list = [&](const char* key, const std::vector<KernelDelta>& ks) {
        out += std::string(",\"") + key + "\":[";
        for (std::size_t i = 0; i < ks.size(); ++i) {
            const KernelDelta& k = ks[i];
            out += std::string(i ? "," : "") + "{\"name\":" + core::jsonString(k.name) +
                   ",\"class\":" + core::jsonString(toString(k.kernelClass)) +
                   ",\"countBefore\":" + std::to_string(k.countBefore) +
                   ",\"countAfter\":" + std::to_string(k.countAfter) +
                   ",\"callsPerStepBefore\":" + num(k.callsPerStepBefore) +
                   ",\"callsPerStepAfter\":" + num(k.callsPerStepAfter) +
                   ",\"perStepNsBefore\":" + num(k.totalNsBefore) +
                   ",\"perStepNsAfter\":" + num(k.totalNsAfter) + ",\"meanNsBefore\":" + num(k.meanNsBefore) +
                   ",\"meanNsAfter\":" + num(k.meanNsAfter) + ",\"meanRatio\":" + num(k.meanRatio) +
                   ",\"perStepRatio\":" + num(k.perStepRatio) + "}";
        }
        out += "]";
    };
    list("slowerKernels", c.slower);
    list("fasterKernels", c.faster);
    list("kernelsOnlyInAfter", c.appeared);
    list("kernelsOnlyInBefore", c.vanished);
    out += ",\"prediction\":";
    if (c.prediction.available) {
        const PredictionCheck& p = c.prediction;
        out += "{\"rule\":" + core::jsonString(p.ruleId) + ",\"stepNsBefore\":" + num(p.stepNsBefore) +
               ",\"predictedStepNs\":" + num(p.predictedStepNs) +
               ",\"predictedLowNs\":" + num(p.predictedLowNs) +
               ",\"predictedHighNs\":" + num(p.predictedHighNs) + ",\"actualStepNs\":" + num(p.actualStepNs) +
               ",\"errorRelative\":" + num(p.errorRelative) +
               ",\"withinRange\":" + (p.withinRange ? "true" : "false") +
               ",\"fractionRealised\":" + num(p.fractionRealised) +
               ",\"verdict\":" + core::jsonString(p.verdict) + ",\"summary\":" + core::jsonString(p.summary) +
               "}";
    } else {
        out += "null";
    }
    out += "}\n";
    return out;
}

}  // namespace chokepoint::analysis

// Text and Markdown writers for AnalysisReport: the terminal view of `chokepoint-cli analyze` and a
// shareable Markdown document with the same content.

#include <algorithm>
#include <cstdio>

#include "core/analysis/diagnosis/DeviceMemoryText.h"
#include "core/analysis/diagnosis/HostCauses.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/base/Format.h"
#include "core/base/KernelName.h"

namespace chokepoint::analysis {

namespace {

std::string pct(double f) {
    return core::formatPercent(f);
}

// The TensorBoard profiler plugin's Overview figures, computed its way (TbPluginOverview.h).
std::string tbPluginLines(const TbPluginOverview& tb, const std::string& prefix) {
    if (!tb.available) {
        return {};
    }
    std::string out = prefix + "TensorBoard plugin's overview (" + tb.note + "): average step " +
                      core::formatFixed(tb.averageStepNs / 1e3, 0) + " us, DataLoader " +
                      core::formatFixed(100.0 * tb.roleShare(TbRole::DataLoader), 2) + " %, kernel " +
                      core::formatFixed(100.0 * tb.roleShare(TbRole::Kernel), 2) + " %\n";
    for (const TbGpuMetrics& g : tb.gpus) {
        out += prefix + "  GPU " + std::to_string(g.deviceIndex) + ": utilization " +
               core::formatFixed(100.0 * g.utilization, 2) + " %, est. SM efficiency " +
               (g.smEfficiency ? core::formatFixed(100.0 * *g.smEfficiency, 2) + " %" : std::string("n/a")) +
               ", est. achieved occupancy " +
               (g.achievedOccupancyPercent ? core::formatFixed(*g.achievedOccupancyPercent, 2) + " %"
                                           : std::string("n/a")) +
               "\n";
    }
    return out;
}

std::string dur(double ns) {
    return formatStepDuration(ns);
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) {
        s.append(width - s.size(), ' ');
    }
    return s;
}

std::string indent(const std::string& text, const std::string& prefix) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        out += prefix + text.substr(start, end == std::string::npos ? std::string::npos : end - start) + "\n";
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    return out;
}

std::string evidenceLine(const Evidence& e) {
    std::string mark = e.comparison.empty() ? "  " : (e.passed ? "+ " : "- ");
    std::string line = mark + e.note;
    if (!e.comparison.empty()) {
        line += "  [" + e.signal + " " + core::formatFixed(e.value, 3) + " " + e.comparison + " " +
                core::formatFixed(e.threshold, 3) + (e.passed ? ": yes" : ": no") + "]";
    }
    if (e.estimated) {
        line += " (estimate)";
    }
    return line;
}

// Why no fix applies when no GPU work was found, and what to do: a counter-mode trace had kernels
// but no timeline, a file cut short may have lost them.
std::string noGpuWorkLine(const AnalysisReport& r) {
    if (r.model && r.model->stats.counterModeRecords() > 0) {
        return "Kernels ran, but the profiler's counter mode recorded counters, not a timeline; no fixes "
               "apply. Profile again without counter mode (torch.profiler without experimental_config's "
               "profiler_metrics) to diagnose the job.";
    }
    if (r.model && r.model->stats.truncation() != nullptr) {
        return "No GPU work in the part of the file that was written; no fixes apply. Record again and let "
               "the profiler finish writing the trace.";
    }
    return "Nothing ran on a GPU in this trace; no fixes apply.";
}

// After the expected gain of a fix that removes the same time as an earlier one.
std::string sameGainNote(const Recommendation& f) {
    return f.sameGainAs.empty()
               ? std::string()
               : " (the same time " + f.sameGainAs + " removes: the two gains do not add up)";
}

// The sampled host stacks' hottest functions; "" without stack samples.
std::string sampledStacksSection(const AnalysisReport& r) {
    if (r.sampledFunctions.empty()) {
        return {};
    }
    constexpr std::size_t kShown = 8;
    std::string out =
        "\nHOST STACKS (sampled: " + core::formatCount(r.stackSampleCount) + " samples on " +
        std::to_string(r.sampledThreadCount) + " thread(s), " + dur(static_cast<double>(r.sampledTimeNs)) +
        " of thread time (wall clock, added over the threads; a sleeping thread counts); self time; every "
        "function: --format json)\n";
    for (std::size_t i = 0; i < r.sampledFunctions.size() && i < kShown; ++i) {
        const SampledFunction& f = r.sampledFunctions[i];
        out += "  " + pad(pct(f.shareOfSampledTime), 8) + pad(dur(static_cast<double>(f.selfNs)), 10) +
               f.function + (f.file.empty() ? std::string() : "  (" + f.file + ")") + "\n";
    }
    return out;
}

std::string sharesLine(const Verdict& v) {
    std::string out;
    for (const ConstraintShare& s : v.shares) {
        out += (out.empty() ? "" : ", ") + std::string(toString(s.bottleneck)) + " " + pct(s.shareOfWindow);
    }
    return out;
}

std::string utilizationLines(const AnalysisReport& r, const std::string& prefix) {
    const MfuReport& m = r.mfu;
    std::string out =
        prefix + "GPU busy " + pct(m.busyFraction) + " (time-based; the verdict's thresholds use this)\n";
    if (m.mfu) {
        out += prefix + "MFU " + core::formatSmallPercent(*m.mfu) +
               (m.estimate ? " (estimate from shapes)" : "") + ": " + m.bandLabel + "\n";
    } else if (m.impossibleMfu) {
        out += prefix + m.impossibleReason + "\n";
    } else {
        out += prefix + "MFU not computed (" +
               (m.modelFlopsPerStep > 0 ? "device peak unknown"
                                        : "pass --model-flops or --params/--tokens-per-step") +
               ")\n";
    }
    if (m.hfu) {
        out += prefix + "HFU " + core::formatSmallPercent(*m.hfu) + " (FLOPs counted from recorded shapes)\n";
    }
    if (m.peakFlopsPerSecond > 0) {
        out += prefix + "peak used: " + core::formatFlopsPerSecond(m.peakFlopsPerSecond) + " " +
               std::string(toString(m.precision)) + " (" + m.precisionReason + ")\n";
    }
    if (m.modelFlopsPerStep > 0) {
        // A withheld MFU's FLOPs are the figure it distrusts: said, so nobody divides by them.
        out += prefix + "O_model per step: " + core::formatFlops(m.modelFlopsPerStep) + " (" +
               (m.sourceNote.empty() ? std::string(toString(m.source)) : m.sourceNote) +
               (!m.mfu && m.impossibleMfu ? "; not used: the MFU above is withheld" : "") + ")\n";
    }
    out +=
        prefix + "reference: production 30-50 % MFU, practical ceiling 55-65 %; PaLM 46.2 %, GPT-3 ~45 %\n";
    if (const std::string memory = describeDeviceMemory(r.overallSignals); !memory.empty()) {
        out += prefix + "device memory: " + memory + "\n";
    }
    return out;
}

std::string accountingLines(const DiagnosisSignals& s, const std::string& prefix) {
    std::string out = prefix + "busy " + pct(s.busyFraction) + "  compute " + pct(s.computeFraction) +
                      "  communication " + pct(s.communicationFraction) + " (exposed " +
                      pct(s.exposedCommunicationFraction) + ")  copy " + pct(s.copyFraction) + "  memset " +
                      pct(s.memsetFraction) + "  idle " + pct(s.idleFraction) + "\n";
    out += prefix + "idle by cause: data wait " + pct(s.idleDataWaitFraction) + ", launch overhead " +
           pct(s.idleLaunchOverheadFraction) + ", synchronization " + pct(s.idleSyncFraction) +
           ", collective " + pct(s.idleCollectiveFraction) + ", host work " + pct(s.idleHostWorkFraction) +
           ", compilation " + pct(s.idleCompilationFraction) + ", checkpoint/log/eval " +
           pct(s.idleHousekeepingFraction) + ", GC " + pct(s.idleGcFraction) + ", unexplained " +
           pct(s.idleUnexplainedFraction) + "\n";
    if (!s.hostWorkFrames.empty()) {
        out += prefix + "host work " + hostFramesText(s, 5) + "\n";
    }
    if (!s.dataWaitFrames.empty()) {
        out += prefix + "data wait " + dataFramesText(s, 5) + "\n";
    }
    for (const DiagnosisSignals::SampledStackShare& st : s.sampledStacks) {
        out += prefix + "sampled in the GPU idle: " + st.thread + ", " + st.path + " (" + st.role + ") " +
               pct(st.shareOfIdle) + " of GPU idle\n";
    }
    if (!s.sampledFrames.empty()) {
        out += prefix + sampledFramesText(s, 5) + "\n";
    }
    out += prefix + "kernels: " + std::to_string(s.kernelCount) + " (" + std::to_string(s.shortKernelCount) +
           " short), mean " + dur(s.meanKernelNs) + "; GEMM/conv " + pct(s.gemmShare) + " (FP32 " +
           pct(s.fp32MatmulShare) + "), tensor cores " + pct(s.tensorCoreShare) +
           ", elementwise/norm/reduce " + pct(s.elementwiseShare) + "\n";
    return out;
}

// One line per device when the trace holds several (AnalysisReport::deviceReports).
std::string perDeviceLines(const AnalysisReport& r, const std::string& prefix) {
    std::string out;
    for (const auto& d : r.deviceReports) {
        out += prefix + pad("GPU " + std::to_string(d->scopeDeviceIndex), 8) + "busy " +
               pad(pct(d->overallSignals.busyFraction), 9) + "step " +
               pad(dur(d->overallSignals.stepTimeNs), 11) + "idle " +
               pad(pct(d->overallSignals.idleFraction), 9) + std::string(displayName(d->overall.bottleneck)) +
               "\n";
    }
    return out;
}

std::string joinSettings(const std::vector<std::string>& settings) {
    std::string out;
    for (const std::string& s : settings) {
        out += out.empty() ? s : "; " + s;
    }
    return out;
}

}  // namespace

std::string writeTextReport(const AnalysisReport& r, const TextReportOptions& options) {
    std::string out;
    out +=
        "Chokepoint analysis of " + (r.sourcePath.empty() ? std::string("(in-memory trace)") : r.sourcePath);
    out += r.sourceFormat.empty() ? "\n" : " (" + r.sourceFormat + (r.synthetic ? ", synthetic" : "") + ")\n";
    out += "Device: " +
           (r.device.traceDeviceName.empty() ? std::string("none recorded") : r.device.traceDeviceName);
    out +=
        r.device.matched ? " -> " + r.device.spec.id + " (" + r.device.method + ")\n" : " (no datasheet)\n";
    if (!r.userSettings.empty()) {
        out += "Analysis settings: " + joinSettings(r.userSettings) + "\n";
    }
    if (r.scopeDeviceIndex >= 0) {
        out += "Scope: GPU " + std::to_string(r.scopeDeviceIndex) +
               " alone (its kernels, copies and the host threads that launch on it)\n";
    }
    if (r.distributed.present) {
        out += "Rank " + std::to_string(r.distributed.rank) + " of " +
               std::to_string(r.distributed.worldSize) +
               (r.distributed.backend.empty() ? std::string() : " (" + r.distributed.backend + ")") + "\n";
    }
    out += "Steps: " + std::to_string(r.metrics.steps.steps.size()) + " from " +
           std::string(toString(r.metrics.steps.source)) + "; step time " +
           describeStepTimes(r.metrics.stepTimes) + "\n\n";

    // Counter mode ran kernels but recorded no timeline: "No GPU activity" would contradict the line below.
    out += "VERDICT: " + verdictDisplayName(r) + "  (confidence " + std::string(r.overall.confidenceLabel()) +
           ", " + core::formatFixed(r.overall.confidence, 2) + ")\n";
    out += "  " + r.headline + "\n";
    if (!rationaleRepeatsHeadline(r)) {
        out += "  why: " + r.overall.rationale + "\n";
    }
    for (const Evidence& e : r.overall.evidence) {
        out += "    " + evidenceLine(e) + "\n";
    }
    if (!r.overall.missingSignals.empty()) {
        out += "  missing signals:";
        for (const std::string& m : r.overall.missingSignals) {
            out += " " + m + ";";
        }
        out += "\n";
    }
    if (!r.overall.shares.empty()) {
        out += "  share of the step by constraint: " + sharesLine(r.overall) + "\n";
    }
    if (!r.deviceReports.empty()) {
        out += "\nPER DEVICE (each GPU analysed alone; --device-index N for one GPU's full report)\n" +
               perDeviceLines(r, "  ");
    }
    if (r.overall.bottleneck == Bottleneck::NoGpuActivity) {
        out += "\n" + noGpuWorkLine(r) +
               (r.sampledFunctions.empty() ? "" : " Where the host's time went: HOST STACKS, below.") + "\n";
        out += sampledStacksSection(r);
    } else {
        out += "\nUTILIZATION\n" + utilizationLines(r, "  ");
        out += "\nTIME PER STEP (share of the window)\n" + accountingLines(r.overallSignals, "  ");
        out += "  iron law: data movement " + pct(r.ironLaw.dataShare) + " + compute " +
               pct(r.ironLaw.computeShare) + " + fixed latency " + pct(r.ironLaw.latencyShare) + " of " +
               dur(r.ironLaw.stepTimeNs) + "; " + r.ironLaw.note + "\n";
        if (r.metrics.hta.hasGpuWork) {
            out += "  HTA-equivalent window " + dur(static_cast<double>(r.metrics.hta.windowNs)) + ": idle " +
                   core::formatFixed(r.metrics.hta.idlePercent(), 2) + " %, compute " +
                   core::formatFixed(r.metrics.hta.computePercent(), 2) + " %, non-compute " +
                   core::formatFixed(r.metrics.hta.nonComputePercent(), 2) + " %\n";
        }
        out += tbPluginLines(r.metrics.tbPlugin, "  ");
        if (!r.steps.empty()) {
            const std::size_t limit =
                options.showAllSteps ? r.steps.size() : std::min<std::size_t>(10, r.steps.size());
            // Wide enough for the longest name shown ("iteration 12 (kernel period)"), so the
            // name never runs into the duration.
            std::size_t nameWidth = 26;
            for (std::size_t i = 0; i < limit; ++i) {
                nameWidth = std::max(nameWidth, std::min<std::size_t>(r.steps[i].name.size() + 2, 64));
            }
            out += "\nSTEPS\n  " + pad("step", nameWidth) + pad("duration", 11) + pad("busy", 9) +
                   pad("data wait", 11) + "verdict\n";
            for (std::size_t i = 0; i < limit; ++i) {
                const StepDiagnosis& s = r.steps[i];
                out += "  " + pad(s.name, nameWidth) + pad(dur(s.signals.stepTimeNs), 11) +
                       pad(pct(s.signals.busyFraction), 9) + pad(pct(s.signals.idleDataWaitFraction), 11) +
                       std::string(toString(s.verdict.bottleneck)) +
                       (s.excluded ? "  (left out of the overall figures: " + s.excludedReason + ")" : "") +
                       "\n";
            }
            if (limit < r.steps.size()) {
                out += "  ... " + std::to_string(r.steps.size() - limit) + " more steps\n";
            }
        }
        if (!r.phases.empty()) {
            const std::size_t leftOut = r.metrics.stepTimes.excluded.size();
            out += leftOut == 0 ? "\nPHASES (all steps)\n"
                                : "\nPHASES (the " + std::to_string(r.metrics.stepTimes.count) +
                                      " steps in the figures; those left out above are not in them)\n";
            double phaseGpuNs = 0;
            for (const PhaseDiagnosis& p : r.phases) {
                phaseGpuNs += p.gpuTimeNs;
                // A phase that ran no GPU work has nothing a GPU verdict could say.
                out += "  " + pad(std::string(toString(p.kind)), 15) + "host " +
                       pad(pct(p.shareOfStepTime), 9) + "GPU " + pad(dur(p.gpuTimeNs), 11) +
                       (p.gpuTimeNs > 0 ? std::string(toString(p.verdict.bottleneck))
                                        : std::string("no GPU work")) +
                       "\n";
            }
            // Kernels are placed in a phase by their launch call, or without one by the kernels around
            // them on their stream (PhaseDetection.h): those at a phase's edge stay in none (an attach
            // capture that lost the runtime API's launches), and the phases say so.
            const double busyNs = r.overallSignals.busyFraction * r.overallSignals.windowNs;
            constexpr double kPhasesHoldTheWork = 0.9;
            if (busyNs > 0 && phaseGpuNs < kPhasesHoldTheWork * busyNs) {
                out += "  (the phases hold " + pct(phaseGpuNs / busyNs) +
                       " of the GPU's busy time: kernels are placed in a phase by their launch call or, "
                       "without one, by the kernels around them on their stream; the others' launch is "
                       "outside every phase or not in the trace)\n";
            }
        }
        if (!r.kernelsByName.empty()) {
            out += "\nTOP KERNELS (" + std::to_string(std::min<std::size_t>(8, r.kernelsByName.size())) +
                   " of " + std::to_string(r.kernelsByName.size()) +
                   "; every kernel: --format csv-kernels or json)\n";
            for (std::size_t i = 0; i < r.kernelsByName.size() && i < 8; ++i) {
                const TopKernel& k = r.kernelsByName[i];
                std::string name = core::shortKernelName(k.name);
                if (name.size() > 70) {
                    name = name.substr(0, 67) + "...";
                }
                out += "  " + pad(pct(k.shareOfKernelTime), 8) +
                       pad(std::string(toString(k.kernelClass)), 19) + pad(std::to_string(k.count) + "x", 8) +
                       name + "\n";
            }
        }
        out += sampledStacksSection(r);
        out += "\nRECOMMENDED FIXES\n";
        if (r.fixes.recommendations.empty()) {
            out += "  none: no rule's guard holds for this profile\n";
        }
        int n = 0;
        for (const Recommendation& f : r.fixes.recommendations) {
            out += "  " + std::to_string(++n) + ". [" + f.ruleId + "] " + f.title + "  (targets " +
                   std::string(toString(f.target)) + "; " + std::string(toString(f.term)) + ")\n";
            out += "     evidence: " + f.evidence + "\n";
            out += "     expected: " + f.gain.summary + sameGainNote(f) + "\n";
            out += "       basis: " + f.gain.basis + "\n";
            const Recommendation* alternativeTo = f.sameGainAs.empty() ? nullptr : r.fixes.find(f.sameGainAs);
            if (!f.gain.uncertainty.empty() &&
                (alternativeTo == nullptr || alternativeTo->gain.uncertainty != f.gain.uncertainty)) {
                out += "       uncertainty: " + f.gain.uncertainty + "\n";
            }
            out += "     costs: " + f.costs + "\n";
            out += "     risks: " + f.risks + "\n";
            for (const std::string& c : f.companions) {
                out += "     needs: " + c + "\n";
            }
            if (options.showSnippets && !f.pytorchChange.empty()) {
                out += "     PyTorch:\n" + indent(f.pytorchChange, "       ");
            }
        }
        out += "  " + r.fixes.nextStep + "\n";
        if (options.explainRules) {
            out += "\nRULES\n" + indent(explain(r.fixes), "  ");
        }
    }
    if (!r.warnings.empty()) {
        out += "\nWARNINGS\n";
        for (const ReportWarning& w : r.warnings) {
            out += "  [" + std::string(core::toString(w.severity)) + "] " + w.message + "\n";
        }
    }
    return out;
}

std::string writeMarkdownReport(const AnalysisReport& r) {
    std::string out = "# Chokepoint analysis\n\n";
    out += "- **Trace:** `" + (r.sourcePath.empty() ? std::string("(in-memory)") : r.sourcePath) + "` (" +
           r.sourceFormat + ")\n";
    out +=
        "- **Device:** " +
        (r.device.traceDeviceName.empty() ? std::string("none recorded") : r.device.traceDeviceName) +
        (r.device.matched ? " → `" + r.device.spec.id + "` (" + r.device.method + ")" : " (no datasheet)") +
        "\n";
    if (!r.userSettings.empty()) {
        out += "- **Analysis settings:** " + joinSettings(r.userSettings) + "\n";
    }
    out += "- **Steps:** " + std::to_string(r.metrics.steps.steps.size()) + " (" +
           std::string(toString(r.metrics.steps.source)) + "); step time " +
           describeStepTimes(r.metrics.stepTimes) + "\n\n";
    out += "## Verdict: " + verdictDisplayName(r) + "\n\n";
    out += "> " + r.headline + "\n\n";
    out += "Confidence: " + std::string(r.overall.confidenceLabel()) + " (" +
           core::formatFixed(r.overall.confidence, 2) + ")." +
           (rationaleRepeatsHeadline(r) ? std::string() : " " + r.overall.rationale + ".") + "\n\n";
    if (!r.overall.evidence.empty()) {
        out += "| evidence | value | test | holds |\n|---|---|---|---|\n";
        for (const Evidence& e : r.overall.evidence) {
            out += "| " + e.note + " | " + core::formatFixed(e.value, 3) + " | " +
                   (e.comparison.empty() ? std::string("-")
                                         : e.comparison + " " + core::formatFixed(e.threshold, 3)) +
                   " | " + (e.comparison.empty() ? "-" : (e.passed ? "yes" : "no")) + " |\n";
        }
        out += "\n";
    }
    if (!r.overall.missingSignals.empty()) {
        out += "Missing signals:";
        for (const std::string& m : r.overall.missingSignals) {
            out += " " + m + ";";
        }
        out += "\n\n";
    }
    if (r.overall.bottleneck != Bottleneck::NoGpuActivity) {
        out += "## Utilization\n\n" + utilizationLines(r, "- ") + "\n";
        out += "## Time per step\n\n" + accountingLines(r.overallSignals, "- ") + "\n";
        if (!r.steps.empty()) {
            out += "## Steps\n\n| step | duration | busy | data wait | verdict |\n|---|---|---|---|---|\n";
            for (const StepDiagnosis& s : r.steps) {
                out += "| " + s.name + " | " + dur(s.signals.stepTimeNs) + " | " +
                       pct(s.signals.busyFraction) + " | " + pct(s.signals.idleDataWaitFraction) + " | " +
                       std::string(toString(s.verdict.bottleneck)) +
                       (s.excluded ? " (left out of the overall figures: " + s.excludedReason + ")" : "") +
                       " |\n";
            }
            out += "\n";
        }
        out += "## Recommended fixes\n\n";
        int n = 0;
        for (const Recommendation& f : r.fixes.recommendations) {
            out += "### " + std::to_string(++n) + ". " + f.ruleId + " " + f.title + "\n\n";
            out += "- **Targets:** " + std::string(toString(f.target)) + " (" +
                   std::string(toString(f.term)) + ")\n";
            out += "- **Evidence:** " + f.evidence + "\n";
            out += "- **Expected:** " + f.gain.summary + sameGainNote(f) + " — " + f.gain.basis + "\n";
            if (!f.gain.uncertainty.empty()) {
                out += "- **Uncertainty:** " + f.gain.uncertainty + "\n";
            }
            out += "- **Costs:** " + f.costs + "\n- **Risks:** " + f.risks + "\n";
            for (const std::string& c : f.companions) {
                out += "- **Needs:** " + c + "\n";
            }
            out += "\n```python\n" + f.pytorchChange + "```\n\n";
        }
        out += r.fixes.nextStep + "\n\n";
        out += "<details><summary>Why other rules were not shown</summary>\n\n";
        for (const RuleDecision& d : r.fixes.decisions) {
            if (!d.shown) {
                out += "- " + d.ruleId + " " + d.title + ": " + d.reason + "\n";
            }
        }
        out += "\n</details>\n\n";
    }
    if (!r.warnings.empty()) {
        out += "## Warnings\n\n";
        for (const ReportWarning& w : r.warnings) {
            out += "- **" + std::string(core::toString(w.severity)) + "** " + w.message + "\n";
        }
    }
    return out;
}

}  // namespace chokepoint::analysis

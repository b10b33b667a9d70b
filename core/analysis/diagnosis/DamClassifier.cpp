#include "core/analysis/diagnosis/DamClassifier.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/diagnosis/ComputeFormulas.h"
#include "core/analysis/diagnosis/HostCauses.h"
#include "core/base/Format.h"

namespace chokepoint::analysis {

namespace {

constexpr double kBaseConfidence = 0.9;
constexpr double kMissingPenalty = 0.2;
constexpr double kEstimatedPenalty = 0.1;
constexpr double kWeakPenalty = 0.15;
constexpr double kMarginPenalty = 0.1;
constexpr double kSmallMargin = 0.05;
// Fewer host samples than this in the steps' span cannot say what the host did between launches.
constexpr std::int64_t kFewHostSamples = 10;

std::string pct(double fraction) {
    return core::formatPercent(fraction);
}

bool compare(double value, const std::string& op, double threshold) {
    if (op == ">") {
        return value > threshold;
    }
    if (op == ">=") {
        return value >= threshold;
    }
    if (op == "<") {
        return value < threshold;
    }
    if (op == "<=") {
        return value <= threshold;
    }
    return false;
}

Evidence makeEvidence(std::string signal, double value, std::string op, double threshold, std::string note,
                      bool estimated = false) {
    Evidence e;
    e.signal = std::move(signal);
    e.value = value;
    e.comparison = std::move(op);
    e.threshold = threshold;
    e.passed = e.comparison.empty() ? false : compare(value, e.comparison, threshold);
    e.estimated = estimated;
    e.note = std::move(note);
    return e;
}

enum class HbmLevel { Unknown, Low, Medium, High };

struct HbmReading {
    HbmLevel level = HbmLevel::Unknown;
    bool estimated = true;
    double value = 0;
    Evidence evidence;
};

HbmReading readHbm(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    HbmReading r;
    if (s.hbmBandwidthFraction) {
        r.value = *s.hbmBandwidthFraction;
        r.estimated = !s.hbmMeasured;
        r.level = r.value >= c.hbmHighFraction  ? HbmLevel::High
                  : r.value <= c.hbmLowFraction ? HbmLevel::Low
                                                : HbmLevel::Medium;
        r.evidence = makeEvidence("hbmBandwidthFraction", r.value, ">=", c.hbmHighFraction,
                                  std::string("HBM bandwidth ") + pct(r.value) + " of peak" +
                                      (r.estimated ? " (estimated from shapes)" : " (measured)"),
                                  r.estimated);
        return r;
    }
    if (s.memoryBoundBusyShare) {
        r.value = *s.memoryBoundBusyShare;
        r.estimated = true;
        r.level = r.value >= c.memoryBoundKernelShareHigh ? HbmLevel::High : HbmLevel::Low;
        r.evidence = makeEvidence("memoryBoundBusyShare", r.value, ">=", c.memoryBoundKernelShareHigh,
                                  pct(r.value) +
                                      " of kernel time in memory-bound kernels and device-to-device "
                                      "copies (estimate of HBM pressure; no bandwidth counter)",
                                  true);
        return r;
    }
    return r;
}

struct GapCandidate {
    Bottleneck bottleneck = Bottleneck::Undetermined;
    double share = 0;
    bool passes = false;
    double confidence = kBaseConfidence;
    std::vector<Evidence> evidence;
    std::vector<std::string> missing;
    std::string rationale;
};

GapCandidate dataCandidate(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    GapCandidate g;
    g.bottleneck = Bottleneck::Data;
    g.share = s.idleDataWaitFraction;
    g.evidence.push_back(
        makeEvidence("idleDataWaitFraction", g.share, ">=", c.dataWaitMinFraction,
                     "GPU idle waiting for the input pipeline " + pct(g.share) + " of the window"));
    g.passes = s.idleCausesKnown && g.share >= c.dataWaitMinFraction;
    if (s.stepsWithDataWaitFraction) {
        const double periodic = *s.stepsWithDataWaitFraction;
        Evidence e = makeEvidence("stepsWithDataWaitFraction", periodic, ">=", c.periodicMinStepFraction,
                                  "data gaps recur in " + pct(periodic) + " of the steps (" +
                                      std::to_string(s.stepsWithDataWaitCount) + ")");
        // Periodic: in at least half of the steps, or in several of them (a DataLoader with N workers
        // that falls behind stalls once every N steps). A single gap is a one-off (first batch,
        // warm-up) and does not make the job data-bound.
        const bool recurs = static_cast<double>(s.stepsWithDataWaitCount) >= c.periodicMinSteps;
        if (!e.passed && recurs) {
            e.passed = true;
            e.note += ": periodic, at least " + core::formatFixed(c.periodicMinSteps, 0) + " steps";
        }
        if (!e.passed) {
            g.passes = false;
        }
        g.evidence.push_back(std::move(e));
    }
    if (s.cpuBusyDuringIdleFraction) {
        Evidence e = makeEvidence(
            "cpuBusyDuringIdleFraction", *s.cpuBusyDuringIdleFraction, ">=", c.cpuFullyBusyFraction,
            "host busy during " + pct(*s.cpuBusyDuringIdleFraction) + " of the GPU gaps");
        if (!e.passed) {
            g.confidence -= kWeakPenalty;
        }
        g.evidence.push_back(std::move(e));
    } else {
        g.missing.push_back("CPU activity during the GPU gaps");
        g.confidence -= kEstimatedPenalty;
    }
    if (const std::string frames = dataFramesText(s); !frames.empty()) {
        g.evidence.push_back(makeEvidence("dataWaitFrames", s.dataWaitFrames.front().shareOfWindow, "", 0,
                                          "the input pipeline's " + frames));
    }
    if (const std::string stacks = sampledStacksText(s, isDataRole); !stacks.empty()) {
        g.evidence.push_back(makeEvidence("sampledStacks", topSampledShare(s, isDataRole), "", 0, stacks));
    }
    if (std::abs(g.share - c.dataWaitMinFraction) < kSmallMargin) {
        g.confidence -= kMarginPenalty;
    }
    g.rationale = "the GPU waits " + pct(g.share) + " of each step for the input pipeline";
    return g;
}

// HTA's split of the busiest stream's idle, beside our "next kernel already launched" measure. HTA
// judges that one stream: its next kernel may be launched late (host_wait) while work queued on
// other streams, the collectives', holds the GPU. When it reads mostly host_wait, say that the two
// disagree rather than quote it as support.
std::string htaHostWaitNote(const DiagnosisSignals& s) {
    if (!s.hostWaitShareOfStreamIdle) {
        return {};
    }
    const double hostWait = *s.hostWaitShareOfStreamIdle;
    constexpr double kMostly = 0.5;
    if (hostWait < kMostly) {
        return " (HTA's busiest-stream split agrees: host_wait " + pct(hostWait) + " of host_wait + other)";
    }
    return " (HTA's busiest-stream split differs: host_wait " + pct(hostWait) +
           " of host_wait + other, as it judges that stream alone, whose next kernel may be launched late "
           "while the collectives' stream holds the GPU)";
}

GapCandidate communicationCandidate(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    GapCandidate g;
    g.bottleneck = Bottleneck::Communication;
    g.share = s.exposedCommunicationShare();
    g.evidence.push_back(makeEvidence("exposedCommunicationFraction+idleCollectiveFraction", g.share,
                                      ">=", c.communicationMinFraction,
                                      "exposed communication " + pct(s.exposedCommunicationFraction) +
                                          " + idle waiting on collectives " + pct(s.idleCollectiveFraction)));
    g.passes = g.share >= c.communicationMinFraction;
    if (s.queuedCollectiveWaitFraction > 0) {
        g.evidence.push_back(makeEvidence(
            "queuedCollectiveWaitFraction", s.queuedCollectiveWaitFraction, ">", 0.0,
            "in " + pct(s.queuedCollectiveWaitFraction) +
                " of the window the GPU idled with its next kernel already launched, inside the span of "
                "the step's collective kernels: waiting on communication, not on the host" +
                htaHostWaitNote(s)));
    }
    // The network wall (L1793): communication takes longer than compute.
    const bool wall =
        formulas::networkWall(s.communicationFraction, s.computeFraction) && s.communicationFraction > 0;
    if (wall) {
        g.evidence.push_back(
            makeEvidence("communicationFraction", s.communicationFraction, ">", s.computeFraction,
                         "communication " + pct(s.communicationFraction) + " > compute " +
                             pct(s.computeFraction) + " (the network wall: communication outlasts compute)"));
        if (g.share >= c.secondaryMinFraction) {
            g.passes = true;
        }
    }
    if (!s.collectivesSeen && s.worldSize <= 1) {
        g.passes = false;
    }
    if (std::abs(g.share - c.communicationMinFraction) < kSmallMargin && !wall) {
        g.confidence -= kMarginPenalty;
    }
    g.rationale = "communication that compute does not hide takes " + pct(g.share) + " of each step";
    return g;
}

GapCandidate overheadCandidate(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    GapCandidate g;
    g.bottleneck = Bottleneck::LaunchOverhead;
    g.share = s.idleLaunchOverheadFraction + s.idleSyncFraction;
    g.evidence.push_back(makeEvidence(
        "idleLaunchOverheadFraction+idleSyncFraction", g.share, ">=", c.launchOverheadMinFraction,
        "GPU idle while the host dispatches " + pct(s.idleLaunchOverheadFraction) + " and synchronizes " +
            pct(s.idleSyncFraction)));
    g.passes = s.idleCausesKnown && g.share >= c.launchOverheadMinFraction;
    if (s.kernelCount > 0) {
        const double shortShare =
            static_cast<double>(s.shortKernelCount) / static_cast<double>(s.kernelCount);
        Evidence e = makeEvidence("shortKernelFraction", shortShare, ">=", c.shortKernelMinFraction,
                                  pct(shortShare) + " of kernels shorter than " +
                                      core::formatDuration(static_cast<core::DurationNs>(c.shortKernelNs)));
        if (!e.passed) {
            g.confidence -= kWeakPenalty;
        }
        g.evidence.push_back(std::move(e));
    }
    if (std::abs(g.share - c.launchOverheadMinFraction) < kSmallMargin) {
        g.confidence -= kMarginPenalty;
    }
    // The figure of the activity the words name, as the headline gives it (a sync part under a tenth
    // is not named, so not counted: bert-small read 71.5 % in the headline and 72.1 % here).
    g.rationale = "the GPU idles " + pct(overheadIdleNamed(s)) + " of each step while the host " +
                  overheadActivityText(s);
    return g;
}

// Host work that launches nothing: Python/framework code, compilation, checkpointing/logging/
// evaluation, garbage collection (GpuTimeAccounting's host causes). The rationale names the
// largest of them and the frames that took the time.
GapCandidate hostCandidate(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    GapCandidate g;
    g.bottleneck = Bottleneck::HostBound;
    g.share = s.hostBoundFraction();
    g.evidence.push_back(makeEvidence(
        "idleHostWorkFraction+idleCompilationFraction+idleHousekeepingFraction+idleGcFraction", g.share,
        ">=", c.hostWorkMinFraction, "GPU idle while the host works without launching: " + hostSplitText(s)));
    g.passes = s.idleCausesKnown && g.share >= c.hostWorkMinFraction;
    const std::string frames = hostFramesText(s);
    if (!frames.empty()) {
        g.evidence.push_back(
            makeEvidence("hostWorkFrames", s.hostWorkFrames.front().shareOfWindow, "", 0, frames));
    }
    if (const std::string stacks = sampledStacksText(s, isNotDataRole); !stacks.empty()) {
        g.evidence.push_back(makeEvidence("sampledStacks", topSampledShare(s, isNotDataRole), "", 0, stacks));
    }
    if (std::abs(g.share - c.hostWorkMinFraction) < kSmallMargin) {
        g.confidence -= kMarginPenalty;
    }
    const HostCause cause = dominantHostCause(s);
    // Host code known only from a thread's CPU use (no CPU op, Python stack or NVTX range in the
    // gaps): the thread ran, but it may have been spinning in a wait the trace does not show (an MPI
    // progress loop, a polling synchronization), so the verdict is weaker and says what would name it.
    if (hostCodeUnnamed(s)) {
        constexpr double kUnnamedWorkPenalty = 0.2;  // high (0.9) to medium (0.7)
        const double unnamed = cpuUseOnlyHostWorkShare(s);
        g.evidence.push_back(makeEvidence(
            "cpuUseOnlyHostWorkShare", unnamed, "<", 0.5,
            "what the host ran in " + pct(unnamed) +
                " of that idle is not recorded: the trace shows only that the thread was on a CPU (no "
                "CPU op, Python stack or NVTX range covers most of those gaps; it may be a busy wait the "
                "trace does not show)"));
        g.confidence -= kUnnamedWorkPenalty;
        g.missing.push_back(
            "what the host threads ran while the GPU idled (Python stacks, CPU ops or NVTX ranges)");
    }
    // The cause's own share, unless it is nearly all of it (nvFuser's compilation: "60.4 % ... (60.3 %)").
    constexpr double kNearlyAll = 0.9;
    const double causeShare = hostCauseShare(s, cause);
    g.rationale = "the GPU idles " + pct(g.share) + " of each step while the host " +
                  std::string(describe(cause)) +
                  (causeShare >= kNearlyAll * g.share ? std::string() : " (" + pct(causeShare) + ")");
    if (cause == HostCause::Code && !frames.empty()) {
        g.rationale += "; " + hostFramesText(s, 1);
    }
    return g;
}

// Exposed host<->device copies: busy time, but the SMs wait for PCIe (or pageable staging).
GapCandidate copyCandidate(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    GapCandidate g;
    g.bottleneck = Bottleneck::CopyBound;
    g.share = s.exposedHostCopyFraction;
    g.evidence.push_back(
        makeEvidence("exposedHostCopyFraction", g.share, ">=", c.copyBoundMinFraction,
                     "host-device copies no kernel overlaps take " + pct(g.share) + " of the window"));
    g.passes = g.share >= c.copyBoundMinFraction;
    if (s.pageableHostCopyShare > 0) {
        g.evidence.push_back(makeEvidence("pageableHostCopyShare", s.pageableHostCopyShare, "", 0,
                                          pct(s.pageableHostCopyShare) +
                                              " of the host-device copy time uses pageable host memory "
                                              "(staged through a driver buffer, never asynchronous)"));
    }
    if (s.pcieActiveFraction) {
        g.evidence.push_back(makeEvidence(
            "pcieActiveFraction", *s.pcieActiveFraction, "", 0,
            "PCIe throughput " + pct(*s.pcieActiveFraction) + " of peak (measured, busier direction)"));
    }
    if (std::abs(g.share - c.copyBoundMinFraction) < kSmallMargin) {
        g.confidence -= kMarginPenalty;
    }
    g.rationale = "host-device copies that no kernel overlaps take " + pct(g.share) + " of each step";
    if (s.pageableHostCopyShare >= 0.5) {
        g.rationale += ", mostly from pageable host memory";
    }
    return g;
}

void finish(Verdict& v, const DiagnosisSignals& s, const DiagnosisConfig& c) {
    v.axis = axisOf(v.bottleneck);
    v.confidence = std::clamp(v.confidence, 0.1, 0.95);
    // Compute-bound is the end state only when the MFU says the peak is used; a compute-bound FP32
    // CUDA-core job at a few % MFU still has TF32/BF16 tensor cores ahead of it.
    // The typical production band (30-50 %) still has the practical ceiling (55-65 %) ahead of it;
    // above 65 % the figure itself is suspect (§9.1).
    const formulas::MfuBand band = s.mfu ? formulas::mfuBand(*s.mfu) : formulas::MfuBand::Unknown;
    v.desiredEndState =
        v.bottleneck == Bottleneck::Compute && s.mfu && *s.mfu >= c.lowMfu &&
        (band == formulas::MfuBand::BetweenTypicalAndCeiling || band == formulas::MfuBand::PracticalCeiling);
    if (v.bottleneck == Bottleneck::Compute && !s.mfu) {
        v.missingSignals.push_back("MFU (model FLOPs): without it the desired end state is not claimed");
    }
    v.shares = constraintShares(s, c);
    for (const ConstraintShare& share : v.shares) {
        if (share.bottleneck != v.bottleneck && share.bottleneck != Bottleneck::Undetermined &&
            share.shareOfWindow >= c.secondaryMinFraction) {
            v.secondary.push_back(share.bottleneck);
        }
    }
}

void classifyBusy(Verdict& v, const DiagnosisSignals& s, const DiagnosisConfig& c, const HbmReading& hbm) {
    const double busy = s.busyFraction;
    const std::string busyText = "the GPU is busy " + pct(busy) + " of each step";
    const bool underUsed = busy <= c.upperBandMinBusy;
    if (s.dramActiveFraction) {
        // Measured: DRAM throughput against the same "high" line as HBM bandwidth.
        const double dram = *s.dramActiveFraction;
        v.evidence.push_back(makeEvidence("dramActiveFraction", dram, ">=", c.hbmHighFraction,
                                          "DRAM throughput " + pct(dram) + " of peak (measured)"));
        if (s.smActiveFraction) {
            v.evidence.push_back(makeEvidence("smActiveFraction", *s.smActiveFraction, "", 0,
                                              "SMs active " + pct(*s.smActiveFraction) + " (measured)"));
        }
        if (s.tensorActiveFraction) {
            v.evidence.push_back(
                makeEvidence("tensorActiveFraction", *s.tensorActiveFraction, "", 0,
                             "tensor pipes active " + pct(*s.tensorActiveFraction) + " (measured)"));
        }
        if (dram >= c.hbmHighFraction) {
            v.bottleneck = Bottleneck::MemoryBandwidth;
            v.rationale = busyText + " and the measured DRAM throughput is " + pct(dram) + " of peak";
        } else {
            v.bottleneck = Bottleneck::Compute;
            v.rationale = busyText + " with measured DRAM throughput at only " + pct(dram) + " of peak";
            if (s.smActiveFraction && *s.smActiveFraction < c.memoryBoundMinBusy) {
                v.rationale += "; but only " + pct(*s.smActiveFraction) +
                               " of the SMs are active (too few blocks or latency-bound kernels)";
                v.confidence -= kWeakPenalty;
            }
        }
        if (s.compositionKnown && s.unclassifiedKernelShare < c.unclassifiedKernelMaxShare) {
            // Say so when the kernel classes point the other way: the counters decide.
            const double memory = s.memoryBoundBusyShare.value_or(s.memoryBoundKernelShare);
            const bool classesSayMemory = memory > s.computeBoundKernelShare;
            if (classesSayMemory != (v.bottleneck == Bottleneck::MemoryBandwidth)) {
                v.evidence.push_back(
                    makeEvidence("memoryBoundBusyShare", memory, "", 0,
                                 "the kernel classes alone point to " +
                                     std::string(classesSayMemory ? "memory-bound" : "compute-bound") + " (" +
                                     pct(memory) + " below the ridge, " + pct(s.computeBoundKernelShare) +
                                     " above); the measured counters decide",
                                 true));
                v.confidence -= kWeakPenalty;
            }
        }
        if (underUsed) {
            v.confidence -= kWeakPenalty;
        }
        return;
    }
    // Estimated from the kernels: the share of kernel time above / below the ridge.
    const double compute = s.computeBoundKernelShare;
    const double memory = s.memoryBoundBusyShare.value_or(s.memoryBoundKernelShare);
    const double unknown = s.unclassifiedKernelShare;
    v.evidence.push_back(makeEvidence("computeBoundKernelShare", compute, "", 0,
                                      pct(compute) + " of kernel time in compute-bound kernels "
                                                     "(GEMM, convolution, attention; above the ridge)",
                                      true));
    v.evidence.push_back(makeEvidence("memoryBoundBusyShare", memory, "", 0,
                                      pct(memory) + " of kernel time in memory-bound work (elementwise, "
                                                    "normalization, reduction, copy kernels, DtoD copies; "
                                                    "below the ridge)",
                                      true));
    if (unknown > 0) {
        v.evidence.push_back(
            makeEvidence("unclassifiedKernelShare", unknown, "<", c.unclassifiedKernelMaxShare,
                         pct(unknown) + " of kernel time in kernels that cannot be placed against the ridge" +
                             (s.topUnclassifiedKernel.empty()
                                  ? std::string()
                                  : " (largest: " + evidenceName(s.topUnclassifiedKernel) + ")")));
    }
    if (hbm.level != HbmLevel::Unknown && !hbm.estimated) {
        v.evidence.push_back(hbm.evidence);
    }
    if (unknown >= c.unclassifiedKernelMaxShare) {
        v.bottleneck = Bottleneck::Undetermined;
        v.confidence = 0.3;
        v.rationale = busyText + ", but " + pct(unknown) +
                      " of kernel time is in kernels whose class, shapes and counters are all unknown, so "
                      "neither compute-bound nor memory-bound can be claimed";
        v.missingSignals.push_back(
            "what the busy kernels do: input shapes (torch.profiler record_shapes=True) or measured GPU "
            "metrics (nsys profile --gpu-metrics-devices=all)");
        return;
    }
    const bool measuredHigh = hbm.level == HbmLevel::High && !hbm.estimated && memory > 0;
    if (!measuredHigh && std::abs(memory - compute) < c.mixedBoundMargin) {
        // On the boundary: the kernel classes are an estimate, so neither side is claimed.
        v.bottleneck = Bottleneck::ComputeMemoryMixed;
        v.rationale = busyText + ", and its work sits on both sides of the ridge: " + pct(compute) +
                      " of kernel time in compute-bound kernels (GEMM, convolution, attention), " +
                      pct(memory) +
                      " of kernel time in memory-bound work (elementwise, normalization, reduction, copies); "
                      "closer than " +
                      pct(c.mixedBoundMargin) + ", so neither is claimed";
        v.evidence.push_back(makeEvidence("memoryBoundBusyShare-computeBoundKernelShare",
                                          std::abs(memory - compute), "<", c.mixedBoundMargin,
                                          "compute-bound " + pct(compute) + " vs memory-bound " +
                                              pct(memory) + ": within " + pct(c.mixedBoundMargin),
                                          true));
        v.confidence -= kEstimatedPenalty;
        if (unknown >= c.secondaryMinFraction) {
            v.confidence -= kWeakPenalty;
        }
        if (underUsed) {
            v.confidence -= kWeakPenalty;
        }
        return;
    }
    if (memory > compute || measuredHigh) {
        v.bottleneck = Bottleneck::MemoryBandwidth;
        v.rationale = busyText + " and " + pct(memory) +
                      " of it is memory-bound work (below the ridge), more than the " + pct(compute) +
                      " in compute-bound kernels";
    } else {
        v.bottleneck = Bottleneck::Compute;
        v.rationale = busyText + " and " + pct(compute) +
                      " of kernel time is in compute-bound kernels (GEMM, convolution, attention)";
        if (underUsed) {
            // Compute-bound kernels lead the busy time, but the GPU also idles: that idle is the
            // secondary constraints' share, not a property of the kernels.
            v.rationale += "; busy below 80 %: the GPU also idles " + pct(1.0 - busy) +
                           " of the step (its causes are in the shares by constraint)";
        }
    }
    v.confidence -= kEstimatedPenalty;  // classes, not counters
    if (unknown >= c.secondaryMinFraction) {
        v.confidence -= kWeakPenalty;
    }
    if (underUsed) {
        v.confidence -= kWeakPenalty;
    }
    if (std::abs(memory - compute) < c.mixedBoundMargin + kSmallMargin) {
        v.confidence -= kMarginPenalty;
    }
}

}  // namespace

std::vector<ConstraintShare> constraintShares(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    std::vector<ConstraintShare> shares;
    const auto add = [&](Bottleneck b, double share, double threshold) {
        if (share > 0) {
            shares.push_back({b, share, share >= threshold});
        }
    };
    add(Bottleneck::Data, s.idleDataWaitFraction, c.dataWaitMinFraction);
    add(Bottleneck::Communication, s.exposedCommunicationShare(), c.communicationMinFraction);
    add(Bottleneck::LaunchOverhead, s.idleLaunchOverheadFraction + s.idleSyncFraction,
        c.launchOverheadMinFraction);
    add(Bottleneck::HostBound, s.hostBoundFraction(), c.hostWorkMinFraction);
    add(Bottleneck::CopyBound, s.exposedHostCopyFraction, c.copyBoundMinFraction);
    // Kernel classes split the time of the non-communication kernels (computeFraction): above the
    // ridge, below it, or unplaceable. The kernel-time shares are of all kernel time, communication
    // kernels included, so they are rescaled to the placed kernels. Scaling them by the whole busy
    // time instead counted host copies twice (once as copy-bound, once as memory-bound).
    const double placed = s.computeBoundKernelShare + s.memoryBoundKernelShare + s.unclassifiedKernelShare;
    const auto ofKernels = [&](double kernelShare) {
        return placed > 0 ? s.computeFraction * std::clamp(kernelShare / placed, 0.0, 1.0) : 0.0;
    };
    double memoryBound = 0;
    double unplaceable = 0;
    if (s.memoryBoundBusyShare) {
        // Device-to-device copies count as memory-bound work too (memoryBoundBusyShare holds them).
        const double deviceCopies =
            s.busyFraction * std::max(0.0, *s.memoryBoundBusyShare - s.memoryBoundKernelShare);
        memoryBound = s.compositionKnown ? ofKernels(s.memoryBoundKernelShare) + deviceCopies
                                         : s.busyFraction * std::clamp(*s.memoryBoundBusyShare, 0.0, 1.0);
        add(Bottleneck::MemoryBandwidth, memoryBound, c.secondaryMinFraction);
    }
    double compute = std::max(0.0, s.computeFraction - memoryBound);
    if (s.compositionKnown && !s.dramActiveFraction) {
        // Measured composition: only kernels above the ridge count as compute (unplaceable and
        // communication kernel time do not).
        compute = std::min(compute, ofKernels(s.computeBoundKernelShare));
        unplaceable = ofKernels(s.unclassifiedKernelShare);
    }
    add(Bottleneck::Compute, compute, c.computeBoundMinBusy);
    // What no constraint can claim: idle nothing explains, and kernels that cannot be placed on
    // either side of the ridge (no class, shapes or counters).
    add(Bottleneck::Undetermined, s.idleUnexplainedFraction + unplaceable, c.secondaryMinFraction);
    std::stable_sort(shares.begin(), shares.end(), [](const ConstraintShare& a, const ConstraintShare& b) {
        return a.shareOfWindow > b.shareOfWindow;
    });
    return shares;
}

Verdict classifyWindow(const DiagnosisSignals& s, const DiagnosisConfig& c) {
    Verdict v;
    v.scope = s.scope;
    v.confidence = kBaseConfidence;

    // 0. Nothing ran on a GPU.
    if (!s.hasGpuActivity || s.windowNs <= 0) {
        v.bottleneck = Bottleneck::NoGpuActivity;
        v.rationale = "the trace has no GPU kernels, copies or memsets in this window";
        v.evidence.push_back(makeEvidence("busyFraction", 0, "", 0, "no GPU activity recorded"));
        finish(v, s, c);
        v.desiredEndState = false;
        return v;
    }

    v.evidence.push_back(makeEvidence("busyFraction", s.busyFraction, ">", c.computeBoundMinBusy,
                                      "GPU busy " + pct(s.busyFraction) + " of the window"));

    // 1. Does the job fit? (precondition of the flowchart)
    if (s.outOfMemoryObserved ||
        (s.peakMemoryBytes && s.capacityBytes && *s.capacityBytes > 0 &&
         !formulas::fitsInMemory(*s.peakMemoryBytes, *s.capacityBytes, c.capacityHeadroomFraction))) {
        v.bottleneck = Bottleneck::MemoryCapacity;
        if (s.peakMemoryBytes && s.capacityBytes) {
            const double ratio = *s.peakMemoryBytes / *s.capacityBytes;
            v.evidence.push_back(
                makeEvidence("peakMemoryOverCapacity", ratio, ">", 1.0 - c.capacityHeadroomFraction,
                             "memory needed " + core::formatBytes(*s.peakMemoryBytes) + " vs " +
                                 core::formatBytes(*s.capacityBytes) + " on the device"));
        }
        if (s.outOfMemoryObserved) {
            v.evidence.push_back(
                makeEvidence("outOfMemoryObserved", 1, "", 0, "an out-of-memory error was seen"));
        }
        v.rationale = "the job does not fit in device memory with the required headroom";
        finish(v, s, c);
        return v;
    }
    if (!s.peakMemoryBytes) {
        v.missingSignals.push_back(
            s.memoryRiseBytes
                ? "peak device memory (capacity check; the trace's memory events give changes only: +" +
                      core::formatBytes(*s.memoryRiseBytes) + " within the trace, from an unknown start)"
                : std::string("peak device memory (capacity check)"));
    }

    // 2. Gap classes, before the busy bands.
    std::vector<GapCandidate> gaps = {dataCandidate(s, c), communicationCandidate(s, c),
                                      overheadCandidate(s, c), hostCandidate(s, c), copyCandidate(s, c)};
    if (!s.idleCausesKnown) {
        v.missingSignals.push_back("host activity during GPU idle (idle causes)");
    }
    const GapCandidate* best = nullptr;
    for (const GapCandidate& g : gaps) {
        if (g.passes && (best == nullptr || g.share > best->share)) {
            best = &g;
        }
    }
    if (best != nullptr) {
        v.bottleneck = best->bottleneck;
        v.confidence = best->confidence;
        v.rationale = best->rationale;
        v.evidence.insert(v.evidence.end(), best->evidence.begin(), best->evidence.end());
        v.missingSignals.insert(v.missingSignals.end(), best->missing.begin(), best->missing.end());
        finish(v, s, c);
        return v;
    }

    // 3–5. Busy bands with the bandwidth tie-breaker.
    const HbmReading hbm = readHbm(s, c);
    if (s.busyFraction >= c.memoryBoundMinBusy && (s.dramActiveFraction || s.compositionKnown)) {
        // What fills the busy time decides (docs/ANALYSIS.md "Busy is not compute-bound"): measured
        // GPU metrics first, then the kernels' place against the ridge. Aggregate input (busy and
        // HBM only, the spec's T41-T44) keeps Table 7's bands below.
        classifyBusy(v, s, c, hbm);
        finish(v, s, c);
        return v;
    }
    if (hbm.level != HbmLevel::Unknown) {
        v.evidence.push_back(hbm.evidence);
    } else {
        v.missingSignals.push_back("HBM bandwidth (no counter and no memory-bound kernel estimate)");
    }
    const double busy = s.busyFraction;
    if (busy > c.computeBoundMinBusy) {
        v.bottleneck = Bottleneck::Compute;
        v.rationale =
            "the GPU is busy " + pct(busy) + " of the window (> " + pct(c.computeBoundMinBusy) + ")";
        if (hbm.level == HbmLevel::High) {
            v.rationale +=
                "; high HBM bandwidth does not override utilization above 90 % (docs/ANALYSIS.md, busy above "
                "90 %)";
        }
        if (busy - c.computeBoundMinBusy < kSmallMargin) {
            v.confidence -= kMarginPenalty;
        }
        finish(v, s, c);
        return v;
    }
    if (busy >= c.memoryBoundMinBusy) {
        if (hbm.level == HbmLevel::High) {
            v.bottleneck = Bottleneck::MemoryBandwidth;
            v.rationale = "GPU busy " + pct(busy) + " with high memory-bandwidth pressure";
            if (hbm.estimated) {
                v.confidence -= kEstimatedPenalty;
            }
            if (busy > c.upperBandMinBusy) {
                v.confidence -= kMarginPenalty;  // Table 7's band ends at 80 %
            }
        } else {
            v.bottleneck = Bottleneck::Compute;
            v.rationale = "GPU busy " + pct(busy) + " without high memory-bandwidth pressure";
            if (busy > c.upperBandMinBusy) {
                v.rationale +=
                    " (80-90 % band: compute-bound unless HBM bandwidth is high, docs/ANALYSIS.md)";
                v.confidence -= kMarginPenalty;
            } else {
                v.rationale += "; below the 90 % compute-bound threshold: the GPU also idles " +
                               pct(1.0 - busy) + " of the step";
                v.confidence -= 2 * kWeakPenalty;
            }
            if (hbm.level == HbmLevel::Unknown) {
                v.confidence -= kMissingPenalty;
            } else if (hbm.estimated) {
                v.confidence -= kEstimatedPenalty;
            }
        }
        finish(v, s, c);
        return v;
    }

    // 6. Busy below 50 % and no gap class reached its threshold.
    const GapCandidate* largest = nullptr;
    for (const GapCandidate& g : gaps) {
        if (g.bottleneck == Bottleneck::CopyBound) {
            continue;  // copies are busy time, not an idle cause
        }
        if (largest == nullptr || g.share > largest->share) {
            largest = &g;
        }
    }
    if (largest != nullptr && s.idleCausesKnown && largest->share > s.idleUnexplainedFraction &&
        largest->share > 0) {
        v.bottleneck = largest->bottleneck;
        v.confidence = largest->confidence - kWeakPenalty;
        v.rationale = largest->rationale + " (largest idle cause; below its threshold)";
        v.evidence.insert(v.evidence.end(), largest->evidence.begin(), largest->evidence.end());
    } else {
        v.bottleneck = Bottleneck::Undetermined;
        v.confidence = 0.3;
        v.rationale = "the GPU is idle " + pct(s.idleFraction) +
                      " of the window and the trace does not show what the host was doing";
        v.evidence.push_back(makeEvidence("idleUnexplainedFraction", s.idleUnexplainedFraction, "", 0,
                                          "unexplained idle " + pct(s.idleUnexplainedFraction)));
        v.missingSignals.push_back(
            "host activity during GPU idle (record CPU ops / Python / DataLoader ranges)");
        if (s.hostSamplesInSteps >= 0 && s.hostSamplesInSteps < kFewHostSamples) {
            // The samplers ran, but the window is a few of their periods long: more steps fix it.
            v.missingSignals.push_back(
                "host samples inside the steps: they span " +
                core::formatDuration(static_cast<core::DurationNs>(s.stepsSpanNs)) + " and hold " +
                std::to_string(s.hostSamplesInSteps) +
                " of any host thread (CPU %, Python stacks); record a longer window (more --steps, or "
                "--duration 2) so the host's work between launches shows");
        }
    }
    finish(v, s, c);
    return v;
}

}  // namespace chokepoint::analysis

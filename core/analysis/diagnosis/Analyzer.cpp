#include "core/analysis/diagnosis/Analyzer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <unordered_map>
#include "core/analysis/diagnosis/AnalysisSettingsOptions.h"

#include "core/analysis/diagnosis/DamClassifier.h"
#include "core/analysis/diagnosis/HelperFacts.h"
#include "core/analysis/diagnosis/HostCauses.h"
#include "core/analysis/diagnosis/PrecisionInference.h"
#include "core/analysis/diagnosis/SampledFunctions.h"
#include "core/analysis/diagnosis/SignalsAdapter.h"
#include "core/analysis/diagnosis/SteadyState.h"
#include "core/base/Format.h"
#include "core/model/DeviceSlice.h"

namespace chokepoint::analysis {

std::string_view toString(ModelFlopsSource source) {
    switch (source) {
        case ModelFlopsSource::None:
            return "none";
        case ModelFlopsSource::UserFlopsPerStep:
            return "user-flops-per-step";
        case ModelFlopsSource::UserParamsTokens:
            return "user-6NT";
        case ModelFlopsSource::ShapeEstimate:
            return "shape-estimate";
        case ModelFlopsSource::RecordedInTrace:
            return "recorded-in-trace";
        case ModelFlopsSource::RecordedFlopCounter:
            return "recorded-flop-counter";
    }
    return "none";
}

std::string_view toString(MfuWithheld withheld) {
    switch (withheld) {
        case MfuWithheld::No:
            return "";
        case MfuWithheld::AtOrAbovePeak:
            return "at-or-above-peak";
        case MfuWithheld::SixNtOnAConvolutionNet:
            return "6NT-on-a-convnet";
        case MfuWithheld::ShapesCoverTooLittle:
            return "shapes-cover-too-little";
    }
    return "";
}

std::string_view shortLabel(MfuWithheld withheld) {
    switch (withheld) {
        case MfuWithheld::No:
            return "";
        case MfuWithheld::AtOrAbovePeak:
            return "not shown (≥ 100 % of peak)";
        case MfuWithheld::SixNtOnAConvolutionNet:
            return "not shown (6·N·T on a CNN)";
        case MfuWithheld::ShapesCoverTooLittle:
            return "not shown (shapes cover too little)";
    }
    return "";
}

bool rationaleRepeatsHeadline(const AnalysisReport& report) {
    const std::string& why = report.overall.rationale;
    const std::string& headline = report.headline;
    if (why.empty()) {
        return true;
    }
    // The headline is often "<verdict>: <rationale>" or the rationale as a sentence: the rationale
    // is a clause and may differ in its first letter only.
    auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
    const std::string_view rest = std::string_view(why).substr(1);
    for (std::size_t at = headline.find(rest); at != std::string::npos; at = headline.find(rest, at + 1)) {
        if (at >= 1 && lower(headline[at - 1]) == lower(why[0])) {
            return true;
        }
    }
    return false;
}

namespace {

std::string pct(double f) {
    return core::formatPercent(f);
}

void warn(AnalysisReport& r, core::Severity severity, std::string code, std::string message) {
    r.warnings.push_back({severity, std::move(code), std::move(message)});
}

// The counters the recorder adds while it captures (collectors/agent "agent.*", collectors/nvtx
// "nvtx.*"): what happened during the capture (GPU metrics refused, work still running at stop),
// not a repair made when the file was read.
bool isCaptureStat(std::string_view name) {
    return name.starts_with("agent.") || name.starts_with("nvtx.");
}

// "agent.gpu_metrics_unavailable" -> "gpu metrics unavailable".
std::string captureStatLabel(std::string_view name) {
    std::string label(name.substr(name.find('.') + 1));
    std::replace(label.begin(), label.end(), '_', ' ');
    return label;
}

// Counted FLOPs per step on the device (from recorded shapes), and the dominant precision by FLOPs.
struct CountedFlops {
    double perStep = 0;
    double kernelTimeShare = 0;             // share of the device's in-step kernel time with a FLOP count
    std::optional<double> matmulTimeShare;  // the same share of the GEMM/conv/attention kernel time
    std::optional<Precision> dominant;
};

CountedFlops countedFlops(const core::TraceModel& model, const TraceMetrics& m, std::int16_t device) {
    CountedFlops out;
    const std::size_t steps = m.steps.steps.size();
    if (steps == 0 || m.opCosts.kernelFlops.empty()) {
        return out;
    }
    double total = 0, kernelNs = 0, costedNs = 0, matmulNs = 0, costedMatmulNs = 0;
    std::array<double, 7> byPrecision{};
    for (std::size_t k = 0; k < model.kernels.size() && k < m.opCosts.kernelFlops.size(); ++k) {
        if (model.kernels.deviceIndex[k] != device || k >= m.steps.kernelStep.size() ||
            m.steps.kernelStep[k] < 0 ||
            !m.stepTimes.isSteady(static_cast<std::size_t>(m.steps.kernelStep[k]))) {
            continue;  // outside the steps, or in a warm-up/outlier step (StepTimes.h)
        }
        const double flops = m.opCosts.kernelFlops[k];
        const double ns = static_cast<double>(std::max<core::DurationNs>(0, model.kernels.durationNs(k)));
        kernelNs += ns;
        const KernelClass kernelClass =
            k < m.kernels.kernelClass.size() ? m.kernels.kernelClass[k] : KernelClass::Other;
        const bool matmul = kernelClass == KernelClass::Gemm || kernelClass == KernelClass::Convolution ||
                            kernelClass == KernelClass::Attention;
        matmulNs += matmul ? ns : 0;
        if (m.opCosts.kernelCosted(k)) {
            costedNs += ns;  // the op's formula covers it, FLOPs of its own or not
            costedMatmulNs += matmul ? ns : 0;
        }
        total += flops;
        const std::int8_t p = m.opCosts.kernelPrecision[k];
        if (p >= 0 && static_cast<std::size_t>(p) < byPrecision.size()) {
            byPrecision[static_cast<std::size_t>(p)] += flops;
        }
    }
    out.perStep = m.stepTimes.count > 0 ? total / static_cast<double>(m.stepTimes.count) : 0;
    out.kernelTimeShare = kernelNs > 0 ? costedNs / kernelNs : 0;
    if (matmulNs > 0) {
        out.matmulTimeShare = costedMatmulNs / matmulNs;
    }
    const auto best = std::max_element(byPrecision.begin(), byPrecision.end());
    if (*best > 0) {
        out.dominant = static_cast<Precision>(best - byPrecision.begin());
    }
    return out;
}

// Why an MFU of 100 % or more cannot be, and what to give instead: a peak of the wrong precision
// (the achieved rate fits under a faster peak of the device) or FLOPs per step that count more
// than the step ran.
std::string impossibleMfuReason(const MfuReport& mfu, const DeviceSpec* spec, double stepSeconds) {
    const double achieved = mfu.modelFlopsPerStep / stepSeconds;
    std::string text = "MFU not shown: " + core::formatFixed(mfu.modelFlopsPerStep / 1e12, 2) +
                       " TFLOP per step in " +
                       core::formatDuration(static_cast<core::DurationNs>(stepSeconds * 1e9)) + " is " +
                       core::formatFlopsPerSecond(achieved) + ", " +
                       core::formatFixed(achieved / mfu.peakFlopsPerSecond, 1) + "x the " +
                       std::string(toString(mfu.precision)) + " peak of " +
                       core::formatFlopsPerSecond(mfu.peakFlopsPerSecond) +
                       ", and no job runs faster than its device's peak. ";
    const bool precisionGuessed = mfu.precisionSource == "default" ||
                                  mfu.precisionSource == "tensor-core-share" ||
                                  mfu.precisionSource == "helper-default";
    std::optional<Precision> fits;
    if (spec != nullptr) {
        for (Precision p : {Precision::TF32, Precision::BF16, Precision::FP16, Precision::FP8}) {
            const double peak = spec->peakFlopsPerSecond(p);
            if (peak > mfu.peakFlopsPerSecond && achieved < peak && !fits) {
                fits = p;
            }
        }
    }
    if (precisionGuessed && fits) {
        text += "The peak's precision was assumed (" + mfu.precisionReason + "); the rate fits under the " +
                std::string(toString(*fits)) + " peak (" +
                core::formatFlopsPerSecond(spec->peakFlopsPerSecond(*fits)) +
                "). Give the precision the matmuls ran in (--precision bf16|fp16|tf32|fp8, or the helper's "
                "autocast fact).";
    } else {
        text += "The FLOPs per step (" +
                (mfu.sourceNote.empty() ? std::string(toString(mfu.source)) : mfu.sourceNote) +
                ") count more than one step ran, or the peak's precision (" + mfu.precisionReason +
                ") is wrong. Give the FLOPs of one step (--model-flops; the helper counts them with "
                "FlopCounterMode) or the precision (--precision).";
    }
    return text;
}

// Coverage is MfuReport::shapeCoverage(): the share of the GEMM, convolution and attention kernel
// time whose ops the shapes cost, where the steps ran such kernels. Every trace we hold with shapes
// covers 100 % of it, while their kernel-time share runs from 33.6 % (hta-trace-diff-control) to 95 %:
// the rest is softmax backward, cat, optimizer and norm-backward kernels with few FLOPs
// (gpt-kineto: 77.5 % of the kernel time, all of its matmul time).
// Shapes that account for this share count (nearly) all of a step's work.
constexpr double kShapesCoverTheWork = 0.9;
// Below this share, FLOPs from shapes miss nearly all the work: an MFU or HFU from them is not a
// result (hta-trace-diff-test: 10.6 % of its in-step matmul time covered, "MFU 1.4 %" on a GPU busy
// 96 %; hta-negative-queue 1.5 %).
constexpr double kShapesCoverTooLittle = 0.2;

// "88.5 % of the GEMM, convolution and attention kernel time", or of all kernel time without them.
std::string coveredText(const MfuReport& mfu) {
    return pct(mfu.shapeCoverage()) + (mfu.countedMatmulTimeShare
                                           ? " of the GEMM, convolution and attention kernel time"
                                           : " of the kernel time");
}

// Why O_model exceeds the FLOPs counted from shapes. 6·N·T counts every parameter, the embedding
// table's too, which is looked up, not multiplied (Kaplan et al. 2020 count N without it): on the
// H100 GPT job 34.6M of its 219M parameters (token and position tables), 3.40 TFLOP of 6·N·T's
// 21.6 per step, where the shapes count 19.4 with attention. When leaving them out brings 6·N·T within the
// counted FLOPs, that is the reason; otherwise the input is to check.
std::string modelOverCountedReason(const MfuReport& mfu, const core::TraceModel& model,
                                   const AnalysisOptions& o, const HelperFacts& facts) {
    const std::string check = "the model FLOPs given exceed the FLOPs counted from shapes (check the input)";
    std::optional<double> parameters;
    if (mfu.source == ModelFlopsSource::UserParamsTokens) {
        parameters = o.parameterCount;
    } else if (mfu.source == ModelFlopsSource::RecordedInTrace) {
        parameters = facts.parameterCount;
    }
    const double embedding = embeddingTableParameters(model);
    if (!parameters || *parameters <= embedding || embedding <= 0) {
        return check;
    }
    const double withoutEmbedding = mfu.modelFlopsPerStep * (*parameters - embedding) / *parameters;
    if (withoutEmbedding > mfu.hardwareFlopsPerStep * 1.0001) {
        return check;
    }
    return "6 · N · T counts the " + core::formatCount(static_cast<std::int64_t>(embedding)) +
           " parameters of the embedding tables (aten::embedding), which are looked up, not multiplied: " +
           core::formatFlops(mfu.modelFlopsPerStep - withoutEmbedding) + " of its " +
           core::formatFlops(mfu.modelFlopsPerStep) + " per step. Without them it is " +
           core::formatFlops(withoutEmbedding) + ", within the " +
           core::formatFlops(mfu.hardwareFlopsPerStep) +
           " counted from the recorded shapes (which include attention)";
}

void computeMfu(AnalysisReport& r, const core::TraceModel& model, const AnalysisOptions& o,
                std::int16_t device, const DeviceSpec* spec) {
    MfuReport& mfu = r.mfu;
    const TraceMetrics& m = r.metrics;
    // T_step: the mean step window (StepTimes.h; SignalsAdapter uses the same).
    mfu.stepTimeNs = r.overallSignals.stepTimeNs;
    mfu.busyFraction = r.overallSignals.busyFraction;
    mfu.backwardPassSeen = m.phases.seen[static_cast<std::size_t>(PhaseKind::Backward)];

    const CountedFlops counted = countedFlops(model, m, device);
    const HelperFacts facts = readHelperFacts(model.metadata);
    mfu.hardwareFlopsPerStep = counted.perStep;
    mfu.countedKernelTimeShare = counted.kernelTimeShare;
    mfu.countedMatmulTimeShare = counted.matmulTimeShare;
    if (o.modelFlopsPerStep && *o.modelFlopsPerStep > 0) {
        mfu.source = ModelFlopsSource::UserFlopsPerStep;
        mfu.modelFlopsPerStep = *o.modelFlopsPerStep;
    } else if (o.parameterCount && o.tokensPerStep && *o.parameterCount > 0 && *o.tokensPerStep > 0) {
        mfu.source = ModelFlopsSource::UserParamsTokens;
        // 6·N·T counts forward and backward (§1.3); a trace without a backward pass ran the forward
        // only: 2·N·T.
        // Without framework ops in the trace a backward pass cannot be seen: training is assumed.
        const bool opsRecorded = model.cpuOps.size() > 0;
        const bool training = mfu.backwardPassSeen || !opsRecorded;
        mfu.modelFlopsPerStep = training
                                    ? formulas::trainingFlops(*o.parameterCount, *o.tokensPerStep)
                                    : formulas::forwardFlopsPerToken(*o.parameterCount) * *o.tokensPerStep;
        mfu.sourceNote =
            mfu.backwardPassSeen ? "6 · N · T from the given parameter and token counts (forward + backward)"
            : training ? "6 · N · T from the given parameter and token counts (training assumed: the trace "
                         "records no framework ops to show a backward pass)"
                       : "2 · N · T from the given parameter and token counts (forward only: the trace "
                         "has no backward pass, so no training factor)";
    } else if (facts.flopsPerStep) {
        mfu.source = ModelFlopsSource::RecordedFlopCounter;
        mfu.modelFlopsPerStep = *facts.flopsPerStep;
        mfu.sourceNote =
            "the FLOPs of one training step counted by the helper with PyTorch's " +
            std::string(facts.flopsSource.empty() || facts.flopsSource == "flop_counter"
                            ? "FlopCounterMode"
                            : facts.flopsSource) +
            " (model.flops_per_step)" +
            (facts.parameterCount && facts.tokensPerStep
                 ? "; 6 · N · T from the helper's counts would be " +
                       core::formatFixed(
                           formulas::trainingFlops(*facts.parameterCount, *facts.tokensPerStep) / 1e12, 3) +
                       " TFLOP"
                 : std::string());
    } else if (facts.parameterCount && facts.tokensPerStep) {
        mfu.source = ModelFlopsSource::RecordedInTrace;
        mfu.modelFlopsPerStep = formulas::trainingFlops(*facts.parameterCount, *facts.tokensPerStep);
        mfu.sourceNote = "6 · N · T from the helper's parameter count (" +
                         core::formatCount(static_cast<std::int64_t>(*facts.parameterCount)) +
                         ") and tokens per step (" +
                         core::formatCount(static_cast<std::int64_t>(*facts.tokensPerStep)) +
                         "); the helper's counted FLOPs (model.flops_per_step) would be preferred";
    } else if (counted.perStep > 0) {
        mfu.source = ModelFlopsSource::ShapeEstimate;
        mfu.estimate = true;
        mfu.modelFlopsPerStep = counted.perStep;
        mfu.sourceNote =
            mfu.backwardPassSeen
                ? "counted from the recorded shapes of the ops that ran (forward and backward "
                  "ops as recorded; no extra training factor)"
                : "counted from the recorded shapes of the ops that ran (forward only: the trace "
                  "has no backward pass, so no training factor)";
        const std::string giveFlops =
            " Give the FLOPs per step, or the parameters and tokens per step for the definition's 6·N·T "
            "(Analysis Settings; in the CLI --model-flops, or --params and --tokens-per-step).";
        // Shapes that cover little of the kernel time miss most of the work: the estimate is then
        // no upper bound (hta-trace-diff-test: 8 % of the kernel time counted, "MFU 1.4 %").
        if (mfu.shapeCoverage() < kShapesCoverTooLittle) {
            // The MFU is withheld below (ShapesCoverTooLittle), with its reason: no warning about it.
        } else if (mfu.shapeCoverage() < kShapesCoverTheWork) {
            mfu.warnings.push_back(
                "Model FLOPs estimated from recorded shapes count the ops behind only " + coveredText(mfu) +
                " (ops without recorded shapes or FLOP formulas are missing), so this MFU can be well below "
                "the true one; recompute and padding, counted in, push it the other way." +
                giveFlops);
        } else {
            // The kernels without a count run no GEMM, convolution or attention: say so
            // rather than leave "77.5 % of the kernel time" to suggest missing work.
            const std::string restNote =
                mfu.countedKernelTimeShare < kShapesCoverTheWork
                    ? " They count the ops behind " + coveredText(mfu) + "; the " +
                          pct(1.0 - mfu.countedKernelTimeShare) +
                          " of all kernel time they leave out is in other kernels (elementwise, reductions, "
                          "copies, optimizer), whose FLOPs hardly count."
                    : std::string();
            mfu.warnings.push_back(
                "Model FLOPs estimated from recorded shapes (FLOPs of the costed ops run in each step); "
                "recompute and padding cannot be separated, so this MFU is an upper estimate." +
                restNote + giveFlops);
        }
    }
    if (mfu.source == ModelFlopsSource::UserFlopsPerStep) {
        mfu.sourceNote = "model FLOPs per step given by the user";
    }
    // 6·N·T counts each weight once per token; a convolution reuses each weight at every position of
    // its input, so per image it undercounts a CNN many times over (ResNet-50: 2·N ≈ 51 MFLOP per
    // image forward against ≈ 4.1 GFLOP).
    const double convNs =
        static_cast<double>(m.kernels.timeByClassNs[static_cast<std::size_t>(KernelClass::Convolution)]);
    const double gemmNs =
        static_cast<double>(m.kernels.timeByClassNs[static_cast<std::size_t>(KernelClass::Gemm)]);
    const bool sixNtOnACnn = (mfu.source == ModelFlopsSource::UserParamsTokens ||
                              mfu.source == ModelFlopsSource::RecordedInTrace) &&
                             convNs > 0 && convNs >= gemmNs;
    // The helper's own 6·N·T on a CNN is withheld below, with its reason; a user's is shown, with this.
    if (sixNtOnACnn && mfu.source == ModelFlopsSource::UserParamsTokens) {
        mfu.warnings.push_back(
            "6 · N · T undercounts a convolutional network: each weight is applied at every position of its "
            "input, not once per token or image, so this MFU is far too low; give the counted FLOPs of one "
            "step "
            "(Analysis Settings or --model-flops, or the helper's FlopCounterMode count)");
    }
    if (o.parameterCount.has_value() != o.tokensPerStep.has_value() && !o.modelFlopsPerStep) {
        mfu.warnings.push_back(
            "MFU from 6·N·T needs both the parameters and the tokens per step (--params and "
            "--tokens-per-step)");
    }

    // Precision of the peak (PrecisionInference.h).
    PrecisionInputs precisionInputs;
    precisionInputs.requested = o.precision;
    precisionInputs.recordedDtypes = counted.dominant;
    precisionInputs.facts = facts;
    precisionInputs.kernelNames = kernelNamePrecision(model, m, device);
    precisionInputs.tensorCoreShare = r.overallSignals.tensorCoreShare;
    const PrecisionChoice precision = choosePeakPrecision(precisionInputs);
    mfu.precision = precision.precision;
    mfu.precisionReason = precision.reason;
    mfu.precisionSource = precision.source;
    if (spec != nullptr) {
        mfu.peakFlopsPerSecond = spec->peakFlopsPerSecond(mfu.precision);
        if (mfu.peakFlopsPerSecond <= 0 && mfu.precision == Precision::FP16) {
            mfu.peakFlopsPerSecond = spec->peakFlopsPerSecond(Precision::BF16);
        } else if (mfu.peakFlopsPerSecond <= 0 && mfu.precision == Precision::BF16) {
            mfu.peakFlopsPerSecond = spec->peakFlopsPerSecond(Precision::FP16);
        }
    }
    const double stepSeconds = mfu.stepTimeNs * 1e-9;
    if (mfu.peakFlopsPerSecond > 0 && stepSeconds > 0) {
        if (mfu.modelFlopsPerStep > 0) {
            mfu.mfu =
                formulas::modelFlopsUtilization(mfu.modelFlopsPerStep, mfu.peakFlopsPerSecond, stepSeconds);
        }
        if (mfu.hardwareFlopsPerStep > 0) {
            mfu.hfu = formulas::hardwareFlopsUtilization(mfu.hardwareFlopsPerStep, mfu.peakFlopsPerSecond,
                                                         stepSeconds);
        }
    } else if (mfu.modelFlopsPerStep > 0) {
        mfu.warnings.push_back(spec == nullptr
                                   ? "MFU not computed: the device is unknown (pass --device NAME)"
                                   : "MFU not computed: the device's peak for " +
                                         std::string(toString(mfu.precision)) + " is unknown");
    }
    if (mfu.mfu && *mfu.mfu >= 1.0) {
        // Never a result: say why the figure cannot be and what to give instead.
        mfu.impossibleMfu = mfu.mfu;
        mfu.withheld = MfuWithheld::AtOrAbovePeak;
        mfu.impossibleReason = impossibleMfuReason(mfu, spec, stepSeconds);
        mfu.mfu.reset();
        mfu.band = formulas::MfuBand::Impossible;
        mfu.bandLabel = formulas::toString(mfu.band);
    }
    if (mfu.mfu && sixNtOnACnn && mfu.source == ModelFlopsSource::RecordedInTrace) {
        // The helper's 6·N·T with images as tokens (rn50-nw0 on the H100: 0.5 % for a job near
        // 20 %): a figure known to be wrong many times over is not a result. A user's own
        // --params/--tokens-per-step stay, with the warning above.
        // Two significant digits: the figure is far below 0.1 % (0.0072 % for rn50-nw0).
        char wouldRead[32];
        std::snprintf(wouldRead, sizeof wouldRead, "%.2g %%", *mfu.mfu * 100.0);
        mfu.impossibleMfu = mfu.mfu;
        mfu.withheld = MfuWithheld::SixNtOnAConvolutionNet;
        mfu.impossibleReason =
            "MFU not shown: the only model FLOPs are 6 · N · T from the helper's parameter count and tokens "
            "per "
            "step, which undercount a convolutional network many times over (it would read " +
            std::string(wouldRead) +
            "). Count one step's FLOPs with the helper (cp.step(n, count_flops=True)) or give them (Analysis "
            "Settings, or --model-flops)";
        mfu.mfu.reset();
    }
    if (mfu.source == ModelFlopsSource::ShapeEstimate && mfu.shapeCoverage() < kShapesCoverTooLittle &&
        mfu.mfu) {
        char wouldRead[32];
        std::snprintf(wouldRead, sizeof wouldRead, "%.2g %%", *mfu.mfu * 100.0);
        mfu.impossibleMfu = mfu.mfu;
        mfu.withheld = MfuWithheld::ShapesCoverTooLittle;
        mfu.impossibleReason =
            "MFU not shown: the recorded shapes account for only " + coveredText(mfu) +
            ", so FLOPs counted from them miss most of the work (it would read " + std::string(wouldRead) +
            "). Give the FLOPs per step (Analysis Settings or --model-flops), or the parameters and tokens "
            "per "
            "step (--params and --tokens-per-step)";
        mfu.mfu.reset();
    }
    if (mfu.hfu && mfu.shapeCoverage() < kShapesCoverTooLittle) {
        mfu.warnings.push_back("HFU not shown: the recorded shapes account for only " + coveredText(mfu));
        mfu.hfu.reset();
    }
    if (mfu.hfu && *mfu.hfu >= 1.0) {
        mfu.warnings.push_back("HFU not shown: the FLOPs counted from shapes over the step time exceed the " +
                               std::string(toString(mfu.precision)) +
                               " peak (the shape-based count or the peak's precision is off)");
        mfu.hfu.reset();
    }
    if (mfu.mfu) {
        mfu.band = formulas::mfuBand(*mfu.mfu);
        mfu.bandLabel = formulas::toString(mfu.band);
        // MFU <= HFU <= busy (§9.2, T67).
        // Only meaningful when the shapes account for (nearly) all kernel time.
        if (mfu.hfu && *mfu.mfu > *mfu.hfu * 1.0001 && mfu.source != ModelFlopsSource::ShapeEstimate &&
            mfu.shapeCoverage() >= kShapesCoverTheWork) {
            mfu.warnings.push_back("MFU " + pct(*mfu.mfu) + " exceeds HFU " + pct(*mfu.hfu) + ": " +
                                   modelOverCountedReason(mfu, model, o, facts));
        }
        if (*mfu.mfu > mfu.busyFraction && mfu.busyFraction > 0) {
            mfu.warnings.push_back("MFU " + pct(*mfu.mfu) + " exceeds GPU busy " + pct(mfu.busyFraction) +
                                   ": MFU <= HFU <= busy is violated; check the FLOPs per step and the peak");
        }
        // An MFU from shapes that miss part of the work is low by construction: not evidence.
        const bool partialShapes =
            mfu.source == ModelFlopsSource::ShapeEstimate && mfu.shapeCoverage() < kShapesCoverTheWork;
        if (mfu.busyFraction >= r.config.healthyBusyFraction && *mfu.mfu < r.config.lowMfu &&
            !partialShapes) {
            mfu.warnings.push_back(
                "the GPU looks busy (" + pct(mfu.busyFraction) + ") but MFU is only " + pct(*mfu.mfu) +
                ": busy time is not useful FLOPs (memory stalls, small kernels, FP32 math)");
        }
    }
    if (mfu.hfu && mfu.shapeCoverage() < kShapesCoverTheWork) {
        mfu.warnings.push_back("HFU counts the FLOPs of only " + coveredText(mfu) +
                               " (ops without recorded shapes or formulas are missing)");
    }
    if (mfu.hfu && *mfu.hfu > mfu.busyFraction && mfu.busyFraction > 0) {
        mfu.warnings.push_back("HFU " + pct(*mfu.hfu) + " exceeds GPU busy " + pct(mfu.busyFraction) +
                               ": the shape-based FLOP count or the peak is off");
    }
}

IronLawReport ironLawOf(const DiagnosisSignals& s) {
    IronLawReport law;
    law.stepTimeNs = s.stepTimeNs;
    if (!s.hasGpuActivity || s.windowNs <= 0) {
        law.note = "no GPU activity";
        return law;
    }
    const double exposedComm = std::min(s.exposedCommunicationFraction, s.busyFraction);
    const double exposedCopy = std::min(s.exposedCopyFraction, s.busyFraction - exposedComm);
    law.dataShare = s.idleDataWaitFraction + exposedCopy;
    law.computeShare = std::max(0.0, s.busyFraction - exposedCopy - exposedComm);
    law.latencyShare = std::max(0.0, s.idleFraction - s.idleDataWaitFraction) + exposedComm;
    // The simplified form T = O / (R_peak · η_hw) holds only when every other term is small (spec
    // §1.1: data movement overlapped, communication absorbed, no small-batch launch overhead). One
    // bound for "small", not the verdict thresholds: 18 % of a step in launch overhead is not small
    // even where it is not the dominant constraint.
    constexpr double kSmallShare = 0.05;
    const std::array<std::pair<double, const char*>, 5> terms = {{
        {law.dataShare, "data movement (%s) is exposed"},
        {s.exposedCommunicationShare(), "communication (%s) is exposed"},
        {s.idleLaunchOverheadFraction + s.idleSyncFraction,
         "launch/sync overhead takes %s, as in small-batch runs"},
        {s.hostBoundFraction(), "host work that launches nothing takes %s"},
        {s.idleUnexplainedFraction, "GPU idle the trace does not explain takes %s"},
    }};
    std::vector<std::string> reasons;
    for (const auto& [share, phrase] : terms) {
        if (share >= kSmallShare) {
            std::string reason(phrase);
            reason.replace(reason.find("%s"), 2, pct(share));
            reasons.push_back(std::move(reason));
        }
    }
    law.simplifiedLawValid = reasons.empty();
    if (law.simplifiedLawValid) {
        law.note =
            "data movement, communication, launch overhead and other idle are each under 5 %: the step time "
            "is the model's work over the peak FLOP/s times the share of peak the kernels reach";
    } else {
        law.note = "the simplified iron law does not apply: ";
        for (std::size_t i = 0; i < reasons.size(); ++i) {
            law.note += (i ? "; " : "") + reasons[i];
        }
    }
    return law;
}

// What an MFU short of the end state says, by its band (§9.1): below lowMfu an addressable
// bottleneck (and FP32 matmuls off the tensor cores when there are), 30-50 % typical production with
// headroom to the practical ceiling, above 65 % suspicious.
std::string mfuJudgement(const AnalysisReport& r) {
    const DiagnosisSignals& s = r.overallSignals;
    const double mfu = r.mfu.mfu.value_or(0);
    if (mfu < r.config.lowMfu) {
        std::string h = "MFU below " + pct(r.config.lowMfu) + ": not the end state";
        if (s.fp32MatmulShare >= r.config.fp32MatmulMinShare) {
            h += "; " + pct(s.fp32MatmulShare) + " of kernel time is FP32 GEMM/conv off the tensor cores";
        }
        return h;
    }
    switch (formulas::mfuBand(mfu)) {
        case formulas::MfuBand::TypicalProduction:
            return "the typical production band 30-50 %, not the end state: the practical ceiling is 55-65 %";
        case formulas::MfuBand::Suspicious:
            return "above 65 % is suspicious: check the FLOPs per step and the peak's precision";
        default:
            return r.mfu.bandLabel;
    }
}

std::string headlineOf(const AnalysisReport& r) {
    const Verdict& v = r.overall;
    const DiagnosisSignals& s = r.overallSignals;
    const std::string name(displayName(v.bottleneck));
    switch (v.bottleneck) {
        case Bottleneck::NoGpuActivity:
            if (const std::int64_t counterRecords = r.model ? r.model->stats.counterModeRecords() : 0;
                counterRecords > 0) {
                return "No GPU timeline: the profiler ran in counter mode (CUPTI range profiler), which "
                       "times kernels one at a time; " +
                       std::to_string(counterRecords) +
                       " per-kernel counter records and no kernel events to diagnose";
            }
            if (r.stackSampleCount > 0) {
                // A host-only capture (a job that never initialised CUDA): its stacks are the content.
                return "No GPU activity: the trace has no kernels, copies or memsets; its " +
                       core::formatCount(r.stackSampleCount) +
                       " sampled host stacks show where the time went (the Ops page; HOST STACKS in the CLI)";
            }
            return "No GPU activity: the trace has no kernels, copies or memsets (a CPU-only trace?)";
        case Bottleneck::Data:
            return name + ": the GPU waits " + pct(s.idleDataWaitFraction) +
                   " of each step for the input pipeline";
        case Bottleneck::Compute: {
            std::string h = name + ": the GPU is busy " + pct(s.busyFraction) + " of each step";
            if (s.compositionKnown) {
                h += ", " + pct(s.computeBoundKernelShare) + " of kernel time in compute-bound kernels";
            }
            if (r.mfu.mfu) {
                h += ", MFU " + core::formatSmallPercent(*r.mfu.mfu) + (r.mfu.estimate ? " (estimate)" : "");
            }
            if (v.desiredEndState) {
                return h + " (the desired end state)";
            }
            if (!r.mfu.mfu) {
                switch (r.mfu.withheld) {
                    case MfuWithheld::AtOrAbovePeak:
                        return h +
                               " (MFU not shown: the figure computed is 100 % or more, which is "
                               "impossible; see the MFU notes)";
                    case MfuWithheld::SixNtOnAConvolutionNet:
                        return h +
                               " (MFU not shown: 6 · N · T undercounts a convolutional network; see "
                               "the MFU notes)";
                    case MfuWithheld::ShapesCoverTooLittle:
                        return h +
                               " (MFU not shown: the recorded shapes cover too little of the work; see the "
                               "MFU notes)";
                    case MfuWithheld::No:
                        break;
                }
                return h +
                       " (MFU unknown: give the model's FLOPs per step to judge how much of the peak "
                       "is left)";
            }
            return h + " (" + mfuJudgement(r) + ")";
        }
        case Bottleneck::ComputeMemoryMixed: {
            // One line a room reads at a glance: which kernels sit on which side, and the MFU band,
            // are in the rationale and the MFU line (the headline ran to 300 characters).
            std::string h = name + ": the GPU is busy " + pct(s.busyFraction) +
                            " of each step, its kernel time " + pct(s.computeBoundKernelShare) +
                            " above the ridge and " +
                            pct(s.memoryBoundBusyShare.value_or(s.memoryBoundKernelShare)) + " below it";
            if (r.mfu.mfu) {
                h += "; MFU " + pct(*r.mfu.mfu) + (r.mfu.estimate ? " (estimate)" : "");
            }
            return h;
        }
        case Bottleneck::CopyBound:
            return name + ": host-device copies no kernel overlaps take " + pct(s.exposedHostCopyFraction) +
                   " of each step" +
                   (s.pageableHostCopyShare > 0
                        ? " (" + pct(s.pageableHostCopyShare) + " of the copy time from pageable memory)"
                        : std::string());
        case Bottleneck::MemoryBandwidth:
            return name + ": the GPU is busy " + pct(s.busyFraction) + " of each step, " +
                   pct(s.memoryBoundBusyShare.value_or(0)) + " of its kernel time in memory-bound kernels";
        case Bottleneck::MemoryCapacity:
            return name + ": the job does not fit in device memory";
        case Bottleneck::Communication:
            return name + ": communication that compute does not hide takes " +
                   pct(s.exposedCommunicationShare()) + " of each step";
        case Bottleneck::LaunchOverhead:
            return name + ": the GPU idles " + pct(overheadIdleNamed(s)) + " of each step while the host " +
                   overheadActivityText(s) + " (" + std::to_string(s.shortKernelCount) + " of " +
                   std::to_string(s.kernelCount) + " kernels are short)";
        case Bottleneck::HostBound: {
            const HostCause cause = dominantHostCause(s);
            std::string h = name + ": the GPU idles " + pct(s.hostBoundFraction()) +
                            " of each step while the host " + std::string(describe(cause));
            if (cause == HostCause::Code && !s.hostWorkFrames.empty()) {
                h += " (" + hostFramesText(s, 2) + ")";
            }
            return h;
        }
        case Bottleneck::Undetermined:
            if (s.busyFraction >= r.config.memoryBoundMinBusy && s.compositionKnown) {
                return name + ": the GPU is busy " + pct(s.busyFraction) + " of each step, but " +
                       pct(s.unclassifiedKernelShare) +
                       " of kernel time is in kernels whose class, shapes and counters are unknown "
                       "(record shapes or GPU metrics to tell compute- from memory-bound)";
            }
            if (s.busyFraction > 0 && s.exposedHostCopyFraction >= 0.5 * s.busyFraction) {
                return name + ": the GPU is idle " + pct(s.idleFraction) +
                       " of each step and the trace does not show what the host was doing; host-device "
                       "copies fill " +
                       pct(s.exposedHostCopyFraction / s.busyFraction) + " of its busy time";
            }
            return name + ": the GPU is idle " + pct(s.idleFraction) +
                   " of each step and the trace does not show what the host was doing";
    }
    return name;
}

core::Result<std::shared_ptr<AnalysisReport>> analyze(const core::TraceModel& model, const AnalysisOptions& o,
                                                      std::shared_ptr<const core::TraceModel> owner) {
    auto report = std::make_shared<AnalysisReport>();
    AnalysisReport& r = *report;
    r.model = std::move(owner);
    r.sourcePath = o.sourcePath.empty() ? model.metadata.sourcePath : o.sourcePath;
    r.sourceFormat = model.metadata.sourceFormat;
    r.synthetic = model.metadata.synthetic;
    r.distributed = model.distributed;
    r.config = o.config;

    // The device the verdicts are about, and its datasheet.
    const DeviceSpec* spec = o.device ? &*o.device : nullptr;
    std::string method = o.deviceMethod.empty() ? "override" : o.deviceMethod;
    std::string matchReason;
    if (spec == nullptr && o.devices != nullptr && !o.deviceName.empty()) {
        spec = o.devices->find(o.deviceName);
        if (spec == nullptr) {
            return core::makeError("unknown device '" + o.deviceName +
                                   "' (see resources/devices/devices.json)");
        }
        method = "override";
        matchReason = "requested by name";
    }
    std::int16_t device = -1;
    {
        // The device with the most kernel time, known before the full metrics (one pass); the
        // accounting's busiest device replaces it below when they differ.
        std::vector<std::pair<std::int16_t, core::DurationNs>> kernelTime;
        for (std::size_t i = 0; i < model.kernels.size(); ++i) {
            const std::int16_t d = model.kernels.deviceIndex[i];
            auto it = std::find_if(kernelTime.begin(), kernelTime.end(),
                                   [d](const auto& e) { return e.first == d; });
            if (it == kernelTime.end()) {
                kernelTime.emplace_back(d, 0);
                it = kernelTime.end() - 1;
            }
            it->second += std::max<core::DurationNs>(0, model.kernels.durationNs(i));
        }
        core::DurationNs best = -1;
        for (const auto& [d, ns] : kernelTime) {
            if (ns > best) {
                best = ns;
                device = d;
            }
        }
        if (device < 0 && !model.devices.empty()) {
            device = static_cast<std::int16_t>(model.devices.front().deviceIndex);
        }
    }
    if (spec == nullptr && o.devices != nullptr && device >= 0) {
        if (const core::DeviceInfo* info = model.device(device)) {
            const DeviceMatch match = o.devices->matchDevice(*info);
            spec = match.spec;
            matchReason = match.reason;
            method = std::string(toString(match.kind));
        }
    }
    const core::ProgressFn inner = [&o](double f) { return core::reportProgress(o.progress, 0.9 * f); };
    core::Result<TraceMetrics> metrics = computeTraceMetrics(model, o.metrics, spec, inner);
    if (!metrics) {
        return metrics.error();
    }
    r.metrics = std::move(metrics.value());
    const TraceMetrics& m = r.metrics;

    if (const std::int16_t busiest = busiestDevice(m); busiest >= 0) {
        device = busiest;
    }
    r.device.deviceIndex = device;
    if (const core::DeviceInfo* info = device >= 0 ? model.device(device) : nullptr) {
        r.device.traceDeviceName = info->name;
        // Roofs measured on this machine, drawn beside the datasheet's.
        // (Not when the user marked the datasheet entry itself as measured: it is already drawn.)
        const DeviceSpec* measured = o.devices != nullptr ? o.devices->findMeasured(*info) : nullptr;
        if (measured != nullptr && (spec == nullptr || measured->id != spec->id)) {
            r.metrics.roofline.measured = measuredRoofs(*measured);
        }
    }
    r.userSettings = describeUserSettings(o, spec);
    if (spec != nullptr) {
        r.device.matched = true;
        r.device.spec = *spec;
        r.device.method = method;
        r.device.note = "using '" + spec->id + "' (" + spec->name + ")" +
                        (matchReason.empty() ? std::string(" by ") + method : ": " + matchReason);
    } else {
        r.device.method = "none";
        r.device.note = r.device.traceDeviceName.empty()
                            ? "no device recorded in the trace and none given"
                            : "no datasheet for '" + r.device.traceDeviceName + "'" +
                                  (matchReason.empty() ? std::string() : " (" + matchReason + ")") +
                                  "; pass --device NAME";
        if (m.hasGpuWork) {
            warn(r, core::Severity::Warning, "device.unknown",
                 "device datasheet unknown: MFU and roofline ceilings are not computed (" + r.device.note +
                     ")");
        }
    }

    // Every kernel and every launching op, names resolved; each kernel's calls and time in the
    // steady steps beside its whole-trace figures.
    std::unordered_map<std::uint32_t, std::pair<std::int64_t, double>> steadyByName;
    for (std::size_t k = 0; k < model.kernels.size() && k < m.steps.kernelStep.size(); ++k) {
        const std::int32_t step = m.steps.kernelStep[k];
        if (step < 0 || !m.stepTimes.isSteady(static_cast<std::size_t>(step))) {
            continue;
        }
        auto& [calls, ns] = steadyByName[model.kernels.name[k].index];
        ++calls;
        ns += static_cast<double>(std::max<core::DurationNs>(0, model.kernels.durationNs(k)));
    }
    r.kernelsByName.reserve(m.kernels.kernels.size());
    for (const KernelStatsRow& k : m.kernels.kernels) {
        const auto steady = steadyByName.find(k.name.index);
        r.kernelsByName.push_back({std::string(model.text(k.name)), k.kernelClass, k.tensorCore, k.count,
                                   static_cast<double>(k.totalNs), static_cast<double>(k.meanNs),
                                   k.shareOfKernelTime,
                                   steady == steadyByName.end() ? 0 : steady->second.first,
                                   steady == steadyByName.end() ? 0.0 : steady->second.second});
    }
    r.opsByGpuTime.reserve(m.kernels.ops.size());
    for (const OpStatsRow& op : m.kernels.ops) {
        r.opsByGpuTime.push_back({std::string(model.text(op.name)), op.kernelClass, op.count, op.kernelCount,
                                  op.gpuTimeNs, op.meanGpuTimeNs, op.maxGpuTimeNs, op.shareOfKernelTime});
    }

    fillSampledFunctions(model, r);

    // Signals and verdicts. MFU needs the overall busy share first, then feeds the per-window MFU.
    SignalsContext context;
    context.model = &model;
    context.metrics = &m;
    context.device = spec;
    context.deviceIndex = device < 0 ? 0 : device;
    context.config = o.config;
    context.parameterCount = o.parameterCount;
    // The job's peak device memory: the user's, else the helper's allocator peak; the trace's memory
    // counters come after both (SignalsAdapter).
    context.peakMemoryBytes =
        o.peakMemoryBytes ? o.peakMemoryBytes : readHelperFacts(model.metadata).memoryReservedPeakBytes;
    context.outOfMemoryObserved = o.outOfMemoryObserved;
    TraceSignals signals = computeSignals(context);
    r.overallSignals = signals.overall;
    computeMfu(r, model, o, context.deviceIndex, spec);
    if (r.mfu.mfu) {
        context.modelFlopsPerStep = r.mfu.modelFlopsPerStep;
        context.peakFlopsPerSecond = r.mfu.peakFlopsPerSecond;
        signals = computeSignals(context);
        r.overallSignals = signals.overall;
    }
    if (!m.hasGpuWork) {
        r.overallSignals.hasGpuActivity = false;
    }
    r.overallSignals.forwardOnly = model.cpuOps.size() > 0 && !r.mfu.backwardPassSeen;
    if (!core::reportProgress(o.progress, 0.95)) {
        return core::makeError(core::kCancelledMessage);
    }

    r.overall = classifyWindow(r.overallSignals, o.config);
    for (std::size_t i = 0; i < signals.steps.size(); ++i) {
        const Step& step = m.steps.steps[i];
        StepDiagnosis d;
        d.stepIndex = static_cast<std::int32_t>(i);
        d.name = step.name;
        d.range = step.range;
        d.signals = signals.steps[i];
        d.verdict = classifyWindow(d.signals, o.config);
        for (const ExcludedStep& e : m.stepTimes.excluded) {
            if (e.stepIndex == d.stepIndex) {
                d.excluded = true;
                d.excludedReason = e.reason;
            }
        }
        r.steps.push_back(std::move(d));
    }
    for (PhaseSignals& p : signals.phases) {
        PhaseDiagnosis d;
        d.kind = p.kind;
        d.occurrences = p.occurrences;
        d.cpuTimeNs = p.cpuTimeNs;
        d.gpuTimeNs = p.gpuTimeNs;
        // Of the steps the phase figures cover: the steady ones (SignalsAdapter), else all.
        double stepsNs = 0;
        for (std::size_t i = 0; i < m.steps.steps.size(); ++i) {
            if (m.stepTimes.count == 0 || m.stepTimes.isSteady(i)) {
                stepsNs += static_cast<double>(m.steps.steps[i].durationNs());
            }
        }
        d.shareOfStepTime = stepsNs > 0 ? p.cpuTimeNs / stepsNs : 0;
        d.signals = std::move(p.signals);
        d.verdict = classifyWindow(d.signals, o.config);
        r.phases.push_back(std::move(d));
    }
    r.fixes = recommendFixes(r.overall, r.overallSignals, o.config);
    r.headline = headlineOf(r);
    if (const SteadyStateCheck steady = checkSteadyState(model, m); steady.startUpOnly) {
        // Start-up is no steady state: say what the window holds instead of a verdict on it.
        r.startUpOnly = true;
        r.startUpReason = steady.reason;
        Verdict& v = r.overall;
        v.bottleneck = Bottleneck::Undetermined;
        v.axis = DamAxis::None;
        v.confidence = 0.3;
        v.desiredEndState = false;
        v.rationale = "no steady-state verdict: " + steady.reason;
        v.missingSignals.push_back("steady-state training steps (a window after warm-up)");
        r.fixes = FixPlan{};
        r.fixes.nextStep =
            "Capture a window of steady training steps after warm-up (chokepoint-cli run --at-step N --steps "
            "M, "
            "or attach --at-step once the job is past its first steps) and analyse that.";
        r.headline = "No steady-state verdict: " + steady.reason;
    }
    r.ironLaw = ironLawOf(r.overallSignals);

    // Warnings.
    // Without GPU work, the metrics' own note says so ("no GPU activity in the trace …"): once.
    if (r.startUpOnly) {
        warn(r, core::Severity::Warning, "window.start_up_only",
             "no steady-state verdict: " + r.startUpReason);
    }
    if (m.steps.source == StepSource::WholeTrace && m.hasGpuWork) {
        warn(r, core::Severity::Warning, "steps.whole_trace", "no training steps found: " + m.steps.note);
    } else if (!m.steps.note.empty()) {
        warn(r, core::Severity::Info, "steps.source", m.steps.note);
    }
    if (!m.stepTimes.excluded.empty()) {
        std::string list;
        for (const ExcludedStep& e : m.stepTimes.excluded) {
            list += (list.empty() ? "" : "; ") + e.name + " " + formatStepDuration(e.durationNs) + ", " +
                    e.reason;
        }
        warn(r, core::Severity::Info, "steps.excluded",
             std::to_string(m.stepTimes.excluded.size()) + " of " + std::to_string(m.stepTimes.allCount) +
                 (m.stepTimes.excluded.size() == 1 ? " steps is" : " steps are") +
                 " left out of the step time, the MFU and the overall verdict (their own verdicts "
                 "are still listed): " +
                 list);
    }
    if (m.steps.steps.size() == 1 && m.hasGpuWork && m.steps.source != StepSource::WholeTrace) {
        warn(r, core::Severity::Info, "steps.single",
             "only one step: periodicity of gaps cannot be checked; profile several steps");
    }
    if (m.accounting.devices.size() > 1) {
        std::string others;
        for (const GpuTimeBreakdown& b : m.accounting.perDevice) {
            others += (others.empty() ? "" : ", ") + std::string("GPU ") + std::to_string(b.deviceIndex) +
                      " busy " + pct(b.busyFraction());
        }
        warn(r, core::Severity::Info, "devices.multiple",
             "several devices with GPU work; verdicts are for the busiest, GPU " + std::to_string(device) +
                 " (" + others + ")");
    }
    for (const std::string& note : m.notes) {
        // A note says "steps: …" where a warning may say the same after its own words.
        const std::size_t colon = note.find(": ");
        const std::string body = colon == std::string::npos ? note : note.substr(colon + 2);
        const bool duplicate = std::any_of(r.warnings.begin(), r.warnings.end(), [&](const ReportWarning& w) {
            return note.find(w.message) != std::string::npos || w.message.find(body) != std::string::npos;
        });
        if (!duplicate) {
            warn(r, core::Severity::Info, "metrics.note", note);
        }
    }
    for (const std::string& w : r.mfu.warnings) {
        warn(r, core::Severity::Warning, "mfu", w);
    }
    if (r.mfu.band == formulas::MfuBand::Impossible) {
        warn(r, core::Severity::Error, "mfu.impossible",
             r.mfu.impossibleReason.empty()
                 ? "MFU >= 100 % is impossible: the FLOPs per step or the device peak is wrong"
                 : r.mfu.impossibleReason);
    }
    // A file cut short opens to its last whole event; every view must say the trace is incomplete.
    if (const core::TraceStat* cut = model.stats.truncation()) {
        warn(r, core::Severity::Warning, "trace.truncated",
             "the trace file is truncated: " + cut->detail + "; figures cover only what was written");
        // What is missing may be what binds (a file cut before its first kernel reads as "no GPU
        // activity"), so no verdict on part of a trace is more than low confidence.
        constexpr double kCutTraceMaxConfidence = 0.45;
        if (r.overall.confidence > kCutTraceMaxConfidence) {
            r.overall.confidence = kCutTraceMaxConfidence;
            r.overall.rationale += "; low confidence: the trace file is cut short";
        }
        if (r.overall.bottleneck == Bottleneck::NoGpuActivity) {
            r.headline =
                "No GPU activity in the part of the trace that could be read: the file is cut "
                "short (" +
                cut->detail + ")";
        }
    }
    // Import statistics of warning severity or above: the largest ones by name and in their own
    // words (an attach capture's GPU records without their launch call are not "repaired"), the
    // rest counted together.
    std::vector<const core::TraceStat*> imported;
    for (const core::TraceStat& stat : model.stats.entries()) {
        if (stat.severity < core::Severity::Warning) {
            continue;
        }
        if (isCaptureStat(stat.name)) {
            // What went wrong while recording, in the recorder's words: not an import repair.
            warn(r, stat.severity, stat.name,
                 captureStatLabel(stat.name) + (stat.detail.empty() ? std::string() : ": " + stat.detail) +
                     (stat.count > 1 ? " (" + std::to_string(stat.count) + ")" : std::string()));
        } else {
            imported.push_back(&stat);
        }
    }
    std::stable_sort(imported.begin(), imported.end(),
                     [](const core::TraceStat* a, const core::TraceStat* b) { return a->count > b->count; });
    constexpr std::size_t kNamedImportStats = 3;
    std::int64_t others = 0;
    for (std::size_t i = 0; i < imported.size(); ++i) {
        const core::TraceStat& stat = *imported[i];
        if (i < kNamedImportStats) {
            warn(r, stat.severity, stat.name,
                 core::formatCount(stat.count) + " × " + (stat.detail.empty() ? stat.name : stat.detail) +
                     " (" + stat.name + ")");
        } else {
            others += stat.count;
        }
    }
    if (others > 0) {
        warn(r, core::Severity::Warning, "trace.repaired",
             std::to_string(others) + " more records in " +
                 std::to_string(imported.size() - kNamedImportStats) +
                 " other import statistics (chokepoint-cli info FILE lists every one)");
    }
    if (!core::reportProgress(o.progress, 1.0)) {
        return core::makeError(core::kCancelledMessage);
    }
    return report;
}

std::string deviceList(const std::vector<std::int16_t>& devices) {
    std::string out;
    for (std::int16_t d : devices) {
        out += (out.empty() ? "" : ", ") + std::to_string(d);
    }
    return out;
}

// The whole trace, or one device's slice of it (AnalysisOptions::deviceIndex); with GPU work on
// several devices and no device chosen, each device's own report is attached (deviceReports).
core::Result<std::shared_ptr<const AnalysisReport>> analyzeInScope(
    const core::TraceModel& model, const AnalysisOptions& o, std::shared_ptr<const core::TraceModel> owner) {
    const std::vector<std::int16_t> devices = core::devicesWithGpuWork(model);
    if (o.deviceIndex) {
        if (std::find(devices.begin(), devices.end(), *o.deviceIndex) == devices.end()) {
            return core::makeError("GPU " + std::to_string(*o.deviceIndex) +
                                   " has no GPU work in this trace" +
                                   (devices.empty() ? std::string(" (no device has any)")
                                                    : " (GPUs with work: " + deviceList(devices) + ")"));
        }
        AnalysisOptions inner = o;
        inner.deviceIndex.reset();
        inner.perDeviceReports = false;
        core::Result<std::shared_ptr<AnalysisReport>> scoped = [&] {
            if (devices.size() == 1) {
                return analyze(model, inner, std::move(owner));
            }
            auto slice = std::make_shared<const core::TraceModel>(
                core::sliceDevice(model, *o.deviceIndex, core::DeviceThreads(model)));
            const core::TraceModel& sliceRef = *slice;
            return analyze(sliceRef, inner, std::move(slice));
        }();
        if (!scoped) {
            return scoped.error();
        }
        scoped.value()->scopeDeviceIndex = *o.deviceIndex;
        return std::shared_ptr<const AnalysisReport>(std::move(scoped).value());
    }
    core::Result<std::shared_ptr<AnalysisReport>> whole = analyze(model, o, std::move(owner));
    if (!whole) {
        return whole.error();
    }
    std::shared_ptr<AnalysisReport> report = std::move(whole).value();
    if (devices.size() >= 2 && o.perDeviceReports) {
        const core::DeviceThreads threads(model);
        AnalysisOptions inner = o;
        inner.perDeviceReports = false;
        inner.progress = {};
        for (std::int16_t device : devices) {
            if (o.progress && !o.progress(1.0)) {
                return core::makeError(core::kCancelledMessage);
            }
            auto slice = std::make_shared<const core::TraceModel>(core::sliceDevice(model, device, threads));
            const core::TraceModel& sliceRef = *slice;
            core::Result<std::shared_ptr<AnalysisReport>> one = analyze(sliceRef, inner, std::move(slice));
            if (!one) {
                return core::makeError("GPU " + std::to_string(device) + ": " + one.error().message);
            }
            one.value()->scopeDeviceIndex = device;
            report->deviceReports.push_back(std::move(one).value());
        }
    }
    return std::shared_ptr<const AnalysisReport>(std::move(report));
}

}  // namespace

core::Result<std::shared_ptr<const AnalysisReport>> analyzeTrace(const core::TraceModel& model,
                                                                 const AnalysisOptions& options) {
    return analyzeInScope(model, options, nullptr);
}

core::Result<std::shared_ptr<const AnalysisReport>> analyzeTrace(
    std::shared_ptr<const core::TraceModel> model, const AnalysisOptions& options) {
    if (!model) {
        return core::makeError("analyzeTrace: no trace model");
    }
    const core::TraceModel& ref = *model;
    return analyzeInScope(ref, options, std::move(model));
}

std::string verdictDisplayName(const AnalysisReport& report) {
    if (report.overall.bottleneck == Bottleneck::NoGpuActivity && report.model &&
        report.model->stats.counterModeRecords() > 0) {
        return "No GPU timeline";
    }
    return std::string(displayName(report.overall.bottleneck));
}

}  // namespace chokepoint::analysis

#include "core/analysis/diagnosis/PrecisionInference.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "core/analysis/diagnosis/Verdict.h"
#include "core/analysis/metrics/OpCost.h"
#include "core/base/Format.h"
#include "core/base/KernelName.h"

namespace chokepoint::analysis {

namespace {

constexpr std::size_t kPrecisionCount = 7;  // Precision's values

bool matmulClass(KernelClass c) {
    return c == KernelClass::Gemm || c == KernelClass::Convolution || c == KernelClass::Attention;
}

}  // namespace

std::optional<Precision> toPrecision(names::KernelPrecision precision) {
    switch (precision) {
        case names::KernelPrecision::Unknown:
            return std::nullopt;
        case names::KernelPrecision::FP64:
            return Precision::FP64;
        case names::KernelPrecision::FP32:
            return Precision::FP32;
        case names::KernelPrecision::TF32:
            return Precision::TF32;
        case names::KernelPrecision::BF16:
            return Precision::BF16;
        case names::KernelPrecision::FP16:
            return Precision::FP16;
        case names::KernelPrecision::FP8:
            return Precision::FP8;
        case names::KernelPrecision::INT8:
            return Precision::INT8;
    }
    return std::nullopt;
}

KernelNamePrecision kernelNamePrecision(const core::TraceModel& model, const TraceMetrics& metrics,
                                        std::int16_t device) {
    KernelNamePrecision out;
    const core::KernelTable& kt = model.kernels;
    const bool haveSteps = !metrics.steps.steps.empty() && metrics.steps.source != StepSource::WholeTrace;
    std::unordered_map<std::uint32_t, std::optional<Precision>> byName;
    std::array<double, kPrecisionCount> timeNs{};
    std::array<std::pair<double, std::uint32_t>, kPrecisionCount> longest{};  // per precision: name time
    std::unordered_map<std::uint32_t, double> nameTimeNs;
    double matmulNs = 0;
    double namedNs = 0;
    for (std::size_t k = 0; k < kt.size(); ++k) {
        if (kt.deviceIndex[k] != device || k >= metrics.kernels.kernelClass.size() ||
            !matmulClass(metrics.kernels.kernelClass[k])) {
            continue;
        }
        if (haveSteps) {
            const std::int32_t step = k < metrics.steps.kernelStep.size() ? metrics.steps.kernelStep[k] : -1;
            if (step < 0 || !metrics.stepTimes.isSteady(static_cast<std::size_t>(step))) {
                continue;
            }
        }
        const double ns = static_cast<double>(std::max<core::DurationNs>(0, kt.durationNs(k)));
        matmulNs += ns;
        auto [it, inserted] = byName.try_emplace(kt.name[k].index);
        if (inserted) {
            it->second = toPrecision(names::kernelPrecisionFromName(model.text(kt.name[k])));
        }
        if (!it->second) {
            continue;
        }
        namedNs += ns;
        const auto p = static_cast<std::size_t>(*it->second);
        timeNs[p] += ns;
        const double nameNs = nameTimeNs[kt.name[k].index] += ns;
        if (nameNs > longest[p].first) {
            longest[p] = {nameNs, kt.name[k].index};
        }
    }
    if (matmulNs <= 0 || namedNs <= 0) {
        return out;
    }
    const auto best = std::max_element(timeNs.begin(), timeNs.end());
    const auto p = static_cast<std::size_t>(best - timeNs.begin());
    out.dominant = static_cast<Precision>(p);
    out.shareOfMatmulTime = *best / matmulNs;
    out.namedShareOfMatmulTime = namedNs / matmulNs;
    out.example = std::string(model.text(core::StringId{longest[p].second}));
    return out;
}

PrecisionChoice choosePeakPrecision(const PrecisionInputs& in) {
    PrecisionChoice c;
    const std::optional<Precision> fact = toPrecision(in.facts.precision);
    // Measured by the helper: the input dtype of the matrix ops it counted (op_dtypes), or the autocast
    // dtype the step ran under; "default" (no autocast) is the model's own dtype, a weaker fact.
    const bool opDtypes = fact && in.facts.precisionSource == "op_dtypes";
    const bool autocast = fact && (opDtypes || in.facts.precisionSource == "autocast");
    if (in.requested) {
        c.precision = *in.requested;
        c.source = "requested";
        c.reason = "requested";
        return c;
    }
    if (in.recordedDtypes) {
        // PyTorch records float32 for a matmul that ran as TF32 on tensor cores (allow_tf32, or
        // set_float32_matmul_precision("high")); only the kernel name shows it. Its peak is TF32's.
        if (*in.recordedDtypes == Precision::FP32 && in.kernelNames.dominant == Precision::TF32 &&
            in.kernelNames.shareOfMatmulTime >= 0.5) {
            c.precision = Precision::TF32;
            c.source = "recorded-dtypes+kernel-names";
            c.reason = "the costed ops' FLOPs are recorded in FP32, but " +
                       core::formatPercent(in.kernelNames.shareOfMatmulTime) +
                       " of the GEMM/conv/attention time ran in TF32 tensor-core kernels (" +
                       evidenceName(core::shortKernelName(in.kernelNames.example), 70) + ")";
            return c;
        }
        c.precision = *in.recordedDtypes;
        c.source = "recorded-dtypes";
        c.reason = "dominant precision of the costed ops' FLOPs (recorded dtypes)";
        return c;
    }
    if (autocast) {
        c.precision = *fact;
        c.source = opDtypes ? "helper-op-dtypes" : "helper-autocast";
        c.reason = opDtypes ? "the helper saw the matrix ops' inputs in " + std::string(toString(*fact)) +
                                  " (model.precision, from the op dtypes of a counted step)"
                            : "the step ran under autocast with " + std::string(toString(*fact)) +
                                  " (the helper's model.precision)";
        if (in.kernelNames.dominant && *in.kernelNames.dominant != *fact &&
            in.kernelNames.shareOfMatmulTime >= 0.5) {
            c.reason += "; the kernel names show " + std::string(toString(*in.kernelNames.dominant)) +
                        " for " + core::formatPercent(in.kernelNames.shareOfMatmulTime) +
                        " of the GEMM/conv/attention time";
        }
        return c;
    }
    if (in.kernelNames.dominant && in.kernelNames.shareOfMatmulTime >= 0.5) {
        c.precision = *in.kernelNames.dominant;
        c.source = "kernel-names";
        c.reason = "kernel names: " + core::formatPercent(in.kernelNames.shareOfMatmulTime) +
                   " of the GEMM/conv/attention time is in " + std::string(toString(c.precision)) +
                   " kernels (" + evidenceName(core::shortKernelName(in.kernelNames.example), 70) + ")";
        return c;
    }
    if (fact) {
        c.precision = *fact;
        c.source = "helper-default";
        c.reason = "the helper's model.precision " + std::string(toString(*fact)) +
                   (in.facts.precisionSource.empty() ? std::string()
                                                     : " (" + in.facts.precisionSource + ", not autocast)");
        return c;
    }
    if (in.tensorCoreShare > 0.5) {
        c.precision = Precision::BF16;
        c.source = "tensor-core-share";
        c.reason =
            "tensor-core kernels dominate and neither dtypes nor kernel names say the precision: "
            "BF16/FP16 peak assumed";
        return c;
    }
    c.precision = Precision::FP32;
    c.source = "default";
    c.reason =
        "no tensor-core kernels dominate and neither dtypes, kernel names nor the helper say the "
        "precision: FP32 peak assumed";
    return c;
}

}  // namespace chokepoint::analysis

#include "core/analysis/metrics/KernelClassifier.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>

namespace chokepoint::analysis {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

bool has(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

template <std::size_t N>
bool hasAny(const std::string& haystack, const std::string_view (&needles)[N]) {
    for (std::string_view needle : needles) {
        if (has(haystack, needle)) {
            return true;
        }
    }
    return false;
}

// Substrings of (lower-cased) kernel names that show an MMA / tensor-core implementation:
// NVIDIA's cuBLAS/cuDNN/CUTLASS naming (xmma, hmma, wgmma/gmma on Hopper, imma, "tensorop",
// instruction shapes s1688/s16816/h884/h1688/i8816), half/bf16 GEMM families (ampere_h*, turing_h*,
// volta_h*), cuBLAS "nvjet" Hopper kernels; AMD hipBLASLt/Tensile "Cijk_" kernels use matrix cores.
constexpr std::string_view kTensorCoreMarks[] = {
    "xmma",      "hmma",  "wgmma", "gmma_",   "imma",       "tensorop",    "s1688",    "s16816",  "h1688",
    "h16816",    "h884",  "i8816", "bf16816", "ampere_h",   "ampere_bf16", "turing_h", "volta_h", "sm80_xmma",
    "sm90_xmma", "nvjet", "cijk_", "_tc_",    "tensorcore", "mfma",        "flash",    "fmha",
};

constexpr std::string_view kAttentionMarks[] = {"flash", "fmha", "attention", "sdpa", "attn", "mha_"};
constexpr std::string_view kNormMarks[] = {
    "layer_norm", "layernorm", "rms_norm",      "rmsnorm",  "batch_norm", "batchnorm", "bn_fw", "bn_bw",
    "group_norm", "groupnorm", "instance_norm", "norm_fwd", "norm_bwd",   "ln_fwd",    "ln_bwd"};
constexpr std::string_view kConvMarks[] = {"conv",  "scudnn",   "hcudnn",        "fprop",  "dgrad",
                                           "wgrad", "winograd", "implicit_gemm", "im2col", "cudnn::"};
constexpr std::string_view kGemmMarks[] = {"gemm",  "cublas",      "cutlass",  "xmma",       "matmul",
                                           "gemv",  "cijk_",       "nvjet",    "dot_kernel", "hmma",
                                           "wgmma", "triton_tem_", "mm_kernel"};
constexpr std::string_view kReductionMarks[] = {"reduce",        "softmax",  "sum_kernel",  "mean_kernel",
                                                "argmax",        "argmin",   "max_kernel",  "min_kernel",
                                                "cross_entropy", "nll_loss", "triton_red_", "triton_per_",
                                                "norm_kernel",   "cub::",    "scan_kernel"};
constexpr std::string_view kElementwiseMarks[] = {"elementwise", "pointwise",
                                                  "triton_poi_", "add_kernel",
                                                  "mul_kernel",  "relu",
                                                  "gelu",        "silu",
                                                  "sigmoid",     "tanh",
                                                  "fill_kernel", "div_kernel",
                                                  "sub_kernel",  "multi_tensor_apply",
                                                  "dropout",     "where_kernel",
                                                  "cast_kernel", "bias_kernel",
                                                  "activation",  "unary",
                                                  "binary",      "clamp"};

KernelClassification byName(std::string_view kernelName) {
    KernelClassification c;
    if (isCommunicationKernelName(kernelName)) {
        c.kernelClass = KernelClass::Communication;
        return c;
    }
    std::string name = lower(kernelName);
    if (startsWith(name, "memcpy") || has(name, "copy_kernel") || has(name, "copykernel")) {
        c.kernelClass = KernelClass::Copy;
        return c;
    }
    if (startsWith(name, "memset")) {
        c.kernelClass = KernelClass::Memset;
        return c;
    }
    bool tensorCore = hasAny(name, kTensorCoreMarks);
    if (hasAny(name, kAttentionMarks)) {
        c.kernelClass = KernelClass::Attention;
        c.tensorCore = tensorCore;
        return c;
    }
    if (hasAny(name, kNormMarks)) {
        c.kernelClass = KernelClass::Normalization;
        return c;
    }
    if (hasAny(name, kConvMarks)) {
        c.kernelClass = KernelClass::Convolution;
        c.tensorCore = tensorCore;
        return c;
    }
    if (hasAny(name, kGemmMarks) || tensorCore) {
        c.kernelClass = KernelClass::Gemm;
        c.tensorCore = tensorCore;
        return c;
    }
    if (hasAny(name, kReductionMarks)) {
        c.kernelClass = KernelClass::Reduction;
        return c;
    }
    if (hasAny(name, kElementwiseMarks)) {
        c.kernelClass = KernelClass::Elementwise;
        return c;
    }
    return c;
}

// Class implied by the framework op that launched the kernel ("aten::addmm" -> GEMM).
KernelClass byOp(std::string_view opName) {
    std::string name = lower(opName);
    if (startsWith(name, "aten::")) {
        name.erase(0, 6);
    }
    if (name.empty()) {
        return KernelClass::Other;
    }
    if (has(name, "attention") || has(name, "flash") || has(name, "sdpa")) {
        return KernelClass::Attention;
    }
    if (has(name, "conv")) {
        return KernelClass::Convolution;
    }
    static constexpr std::string_view kGemmOps[] = {"mm",         "addmm",  "bmm",    "baddbmm",
                                                    "matmul",     "linear", "addbmm", "einsum",
                                                    "_scaled_mm", "dot",    "mv",     "addmv"};
    for (std::string_view op : kGemmOps) {
        if (name == op) {
            return KernelClass::Gemm;
        }
    }
    if (has(name, "norm")) {
        return KernelClass::Normalization;
    }
    if (has(name, "softmax") || name == "sum" || name == "mean" || name == "max" || name == "min" ||
        name == "argmax" || name == "argmin" || name == "amax" || name == "cross_entropy_loss" ||
        has(name, "nll_loss") || name == "cumsum" || name == "prod" || name == "var" || name == "std") {
        return KernelClass::Reduction;
    }
    if (name == "copy_" || name == "to" || name == "_to_copy" || name == "clone" || name == "contiguous") {
        return KernelClass::Copy;
    }
    if (name == "fill_" || name == "zero_" || name == "zeros" || name == "zeros_like") {
        return KernelClass::Memset;
    }
    static constexpr std::string_view kElementwiseOps[] = {"add",
                                                           "add_",
                                                           "mul",
                                                           "mul_",
                                                           "sub",
                                                           "sub_",
                                                           "div",
                                                           "div_",
                                                           "relu",
                                                           "relu_",
                                                           "gelu",
                                                           "silu",
                                                           "sigmoid",
                                                           "tanh",
                                                           "exp",
                                                           "log",
                                                           "pow",
                                                           "sqrt",
                                                           "rsqrt",
                                                           "neg",
                                                           "abs",
                                                           "where",
                                                           "clamp",
                                                           "clamp_",
                                                           "dropout",
                                                           "threshold_backward",
                                                           "gelu_backward",
                                                           "silu_backward",
                                                           "addcmul_",
                                                           "addcdiv_",
                                                           "lerp_",
                                                           "maximum",
                                                           "minimum",
                                                           "_foreach_add_",
                                                           "_foreach_mul_",
                                                           "_fused_adam_",
                                                           "_fused_adamw_",
                                                           "masked_fill_",
                                                           "eq",
                                                           "ne",
                                                           "lt",
                                                           "gt",
                                                           "le",
                                                           "ge"};
    for (std::string_view op : kElementwiseOps) {
        if (name == op) {
            return KernelClass::Elementwise;
        }
    }
    if (startsWith(name, "_foreach_")) {
        return KernelClass::Elementwise;
    }
    return KernelClass::Other;
}

}  // namespace

std::string_view toString(KernelClass kernelClass) {
    switch (kernelClass) {
        case KernelClass::Gemm:
            return "GEMM";
        case KernelClass::Convolution:
            return "convolution";
        case KernelClass::Attention:
            return "attention";
        case KernelClass::Elementwise:
            return "elementwise";
        case KernelClass::Normalization:
            return "normalization";
        case KernelClass::Reduction:
            return "reduction/softmax";
        case KernelClass::Communication:
            return "communication";
        case KernelClass::Copy:
            return "copy";
        case KernelClass::Memset:
            return "memset";
        case KernelClass::Other:
            return "other";
    }
    return "other";
}

bool isCommunicationKernelName(std::string_view kernelName) {
    if (startsWith(kernelName, "nccl") || startsWith(kernelName, "rccl") || startsWith(kernelName, "hccl")) {
        return true;
    }
    return kernelName.find("ncclKernel") != std::string_view::npos ||
           kernelName.find("ncclDevKernel") != std::string_view::npos ||
           kernelName.find("rcclKernel") != std::string_view::npos;
}

KernelClassification classifyKernelName(std::string_view kernelName) {
    return byName(kernelName);
}

KernelClassification classifyKernel(std::string_view kernelName, std::string_view launchingOpName) {
    KernelClassification c = byName(kernelName);
    if (c.kernelClass == KernelClass::Other && !launchingOpName.empty()) {
        KernelClass fromOp = byOp(launchingOpName);
        if (fromOp != KernelClass::Other) {
            c.kernelClass = fromOp;
            c.fromOp = true;
        }
    }
    return c;
}

core::CpuOpId launchingOp(const core::TraceModel& model, core::KernelId k) {
    if (!k.valid() || k.index >= model.kernels.size()) {
        return {};
    }
    core::ApiCallId call = model.kernels.launchCall[k.index];
    if (!call.valid() || call.index >= model.apiCalls.size()) {
        return {};
    }
    core::CpuOpId op = model.apiCalls.cpuOp[call.index];
    return op.valid() && op.index < model.cpuOps.size() ? op : core::CpuOpId{};
}

KernelStatsResult computeKernelStats(const core::TraceModel& model) {
    KernelStatsResult result;
    const core::KernelTable& kt = model.kernels;
    const std::size_t n = kt.size();
    result.kernelClass.resize(n, KernelClass::Other);
    result.kernelTensorCore.resize(n, 0);

    // Classify each distinct (kernel name, launching op name) pair once.
    std::unordered_map<std::uint64_t, KernelClassification> cache;
    std::unordered_map<std::uint32_t, std::size_t> rowOfName;
    // Per op call (dense arrays over the op table): GPU time and kernels it launched. The class
    // split is accumulated per op name directly, since names are few.
    std::vector<core::DurationNs> callGpuNs(model.cpuOps.size(), 0);
    std::vector<std::int32_t> callKernels(model.cpuOps.size(), 0);
    std::unordered_map<std::uint32_t, std::array<core::DurationNs, kKernelClassCount>> classByOpName;

    for (std::size_t i = 0; i < n; ++i) {
        core::DurationNs d = std::max<core::DurationNs>(0, kt.endNs[i] - kt.startNs[i]);
        core::CpuOpId op = launchingOp(model, core::KernelId{static_cast<std::uint32_t>(i)});
        core::StringId opName = op.valid() ? model.cpuOps.name[op.index] : core::StringId{};
        std::uint64_t key = (std::uint64_t{kt.name[i].index} << 32) | opName.index;
        auto it = cache.find(key);
        if (it == cache.end()) {
            it = cache
                     .emplace(key, classifyKernel(model.text(kt.name[i]),
                                                  opName.valid() ? model.text(opName) : std::string_view{}))
                     .first;
        }
        const KernelClassification& c = it->second;
        result.kernelClass[i] = c.kernelClass;
        result.kernelTensorCore[i] = c.tensorCore ? 1 : 0;
        result.timeByClassNs[static_cast<std::size_t>(c.kernelClass)] += d;
        result.totalKernelTimeNs += d;
        if (c.tensorCore) {
            result.tensorCoreTimeNs += d;
        }

        auto [rowIt, inserted] = rowOfName.emplace(kt.name[i].index, result.kernels.size());
        if (inserted) {
            KernelStatsRow row;
            row.name = kt.name[i];
            row.kernelClass = c.kernelClass;
            row.tensorCore = c.tensorCore;
            row.minNs = d;
            row.maxNs = d;
            row.longest = core::KernelId{static_cast<std::uint32_t>(i)};
            result.kernels.push_back(row);
        }
        KernelStatsRow& row = result.kernels[rowIt->second];
        ++row.count;
        row.totalNs += d;
        row.minNs = std::min(row.minNs, d);
        if (d > row.maxNs) {
            row.maxNs = d;
            row.longest = core::KernelId{static_cast<std::uint32_t>(i)};
        }
        if (op.valid()) {
            ++result.kernelsWithOp;
            callGpuNs[op.index] += d;
            ++callKernels[op.index];
            classByOpName[model.cpuOps.name[op.index].index][static_cast<std::size_t>(c.kernelClass)] += d;
        }
    }
    const double total = static_cast<double>(std::max<core::DurationNs>(1, result.totalKernelTimeNs));
    for (KernelStatsRow& row : result.kernels) {
        row.meanNs = row.count > 0 ? row.totalNs / row.count : 0;
        row.shareOfKernelTime = static_cast<double>(row.totalNs) / total;
    }
    std::sort(result.kernels.begin(), result.kernels.end(),
              [](const KernelStatsRow& a, const KernelStatsRow& b) {
                  return a.totalNs != b.totalNs ? a.totalNs > b.totalNs : a.name.index < b.name.index;
              });

    // Ops: aggregate the per-call sums by op name.
    struct NameAccum {
        OpStatsRow row;
        std::array<core::DurationNs, kKernelClassCount> byClass{};
    };
    std::unordered_map<std::uint32_t, NameAccum> perName;
    for (std::uint32_t opIndex = 0; opIndex < callKernels.size(); ++opIndex) {
        if (callKernels[opIndex] == 0) {
            continue;
        }
        const core::DurationNs gpuNs = callGpuNs[opIndex];
        core::StringId name = model.cpuOps.name[opIndex];
        NameAccum& na = perName[name.index];
        na.row.name = name;
        ++na.row.count;
        na.row.kernelCount += callKernels[opIndex];
        na.row.gpuTimeNs += gpuNs;
        if (!na.row.example.valid() || gpuNs > na.row.maxGpuTimeNs) {  // ascending index: first longest wins
            na.row.maxGpuTimeNs = gpuNs;
            na.row.example = core::CpuOpId{opIndex};
        }
    }
    for (auto& [nameIndex, na] : perName) {
        na.byClass = classByOpName[nameIndex];
    }
    result.ops.reserve(perName.size());
    for (auto& [nameIndex, na] : perName) {
        OpStatsRow row = na.row;
        row.meanGpuTimeNs = row.count > 0 ? row.gpuTimeNs / row.count : 0;
        row.shareOfKernelTime = static_cast<double>(row.gpuTimeNs) / total;
        std::size_t best = static_cast<std::size_t>(KernelClass::Other);
        core::DurationNs bestNs = -1;
        for (std::size_t c = 0; c < kKernelClassCount; ++c) {
            if (na.byClass[c] > bestNs) {
                bestNs = na.byClass[c];
                best = c;
            }
        }
        row.kernelClass = static_cast<KernelClass>(best);
        result.ops.push_back(row);
    }
    std::sort(result.ops.begin(), result.ops.end(), [](const OpStatsRow& a, const OpStatsRow& b) {
        return a.gpuTimeNs != b.gpuTimeNs ? a.gpuTimeNs > b.gpuTimeNs : a.name.index < b.name.index;
    });
    return result;
}

}  // namespace chokepoint::analysis

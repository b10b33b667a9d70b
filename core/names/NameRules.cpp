#include "core/names/NameRules.h"
#include "core/base/Strings.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>

namespace chokepoint::names {

std::vector<std::string> tokens(std::string_view name) {
    std::vector<std::string> out;
    std::string current;
    char previous = 0;
    for (char c : name) {
        const auto u = static_cast<unsigned char>(c);
        const bool alnum = std::isalnum(u) != 0;
        const bool upperAfterLower =
            std::isupper(u) != 0 && std::islower(static_cast<unsigned char>(previous)) != 0;
        if ((!alnum || upperAfterLower) && !current.empty()) {
            out.push_back(current);
            current.clear();
        }
        if (alnum) {
            current.push_back(core::toLower(c));
        }
        previous = c;
    }
    if (!current.empty()) {
        out.push_back(current);
    }
    return out;
}

namespace {

// A name's tokens with the queries the rules use.
struct Words {
    explicit Words(std::string_view name) : w(tokens(name)) {}
    std::vector<std::string> w;

    bool has(std::string_view token) const {
        return std::any_of(w.begin(), w.end(), [&](const std::string& t) { return t == token; });
    }
    bool hasAny(std::initializer_list<std::string_view> list) const {
        return std::any_of(list.begin(), list.end(), [&](std::string_view t) { return has(t); });
    }
    bool hasPrefix(std::string_view prefix) const {
        return std::any_of(w.begin(), w.end(), [&](const std::string& t) { return t.starts_with(prefix); });
    }
    bool hasPrefixAny(std::initializer_list<std::string_view> list) const {
        return std::any_of(list.begin(), list.end(), [&](std::string_view p) { return hasPrefix(p); });
    }
    // Two consecutive tokens, or the two written as one token ("layer norm" or "layernorm").
    bool pair(std::string_view a, std::string_view b) const {
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (w[i] == a && i + 1 < w.size() && w[i + 1] == b) {
                return true;
            }
            if (w[i].size() == a.size() + b.size() && w[i].starts_with(a) && w[i].ends_with(b)) {
                return true;
            }
        }
        return false;
    }
    bool first(std::string_view token) const { return !w.empty() && w.front() == token; }
};

// --- Kernel rules --------------------------------------------------------------------------------

// Convolution tokens: conv, conv2d, 3dconv, convolution, fprop/dgrad/wgrad (cuDNN / CUTLASS conv
// passes), winograd, im2col, implicit gemm, cuDNN's scudnn/hcudnn engine names. "convert" is none.
bool convolutionWords(const Words& k) {
    for (const std::string& t : k.w) {
        if (t == "conv" || t == "convolution" || t == "convolve" || t == "convnd" || t == "fprop" ||
            t == "dgrad" || t == "wgrad" || t == "im2col" || t == "scudnn" || t == "hcudnn" ||
            t.starts_with("winograd")) {
            return true;
        }
        // conv1d, conv2d, conv3d, 3dconv, 2dconv
        if (t.size() == 6 &&
            ((t.starts_with("conv") && std::isdigit(static_cast<unsigned char>(t[4])) != 0 && t[5] == 'd') ||
             (t.ends_with("dconv") && std::isdigit(static_cast<unsigned char>(t[0])) != 0))) {
            return true;
        }
    }
    return k.pair("implicit", "gemm") || k.pair("implicit", "precomp");
}

bool attentionWords(const Words& k) {
    return k.hasAny({"attention", "attn", "sdpa", "mha", "fmha", "flash", "flashattn", "mla"}) ||
           k.hasPrefixAny({"flashattn", "fmha", "flash"});
}

bool normalizationWords(const Words& k) {
    return k.pair("layer", "norm") || k.pair("rms", "norm") || k.pair("batch", "norm") ||
           k.pair("group", "norm") || k.pair("instance", "norm") || k.pair("bn", "fw") ||
           k.pair("bn", "bw") || k.pair("norm", "fwd") || k.pair("norm", "bwd") || k.pair("ln", "fwd") ||
           k.pair("ln", "bwd") || k.pair("gamma", "beta") || k.pair("rowwise", "moments") ||
           k.hasAny({"layernorm", "rmsnorm", "batchnorm", "groupnorm", "instancenorm"});
}

bool gemmWords(const Words& k) {
    for (const std::string& t : k.w) {
        // gemm, sgemm, s1688gemm, h16816gemm, gemmk1, gemv, gemvx, matmul; FBGEMM's embedding and
        // permute kernels (fbgemm_gpu::...) are not GEMMs.
        if ((t.find("gemm") != std::string::npos && !t.starts_with("fbgemm")) || t.starts_with("gemv") ||
            t == "matmul" || t == "xmma" || t == "wgmma" || t == "hmma" || t.starts_with("cublas") ||
            t == "dot" || t == "bmm" || t == "mm") {
            return true;
        }
    }
    return false;
}

bool reductionWords(const Words& k) {
    return k.hasAny({"reduce", "reduction", "softmax", "logsoftmax", "argmax", "argmin", "sum", "mean",
                     "cumsum", "scan", "sort", "pool", "pooling", "entropy", "topk", "norm"}) ||
           k.pair("soft", "max") ||  // cunn_SoftMaxForward (case change splits "SoftMax")
           k.pair("nll", "loss") || k.pair("max", "kernel") || k.pair("min", "kernel") ||
           k.hasPrefixAny({"maxpool", "avgpool", "radixsort", "nllcriterion"});
}

bool elementwiseWords(const Words& k) {
    return k.hasAny({"elementwise", "pointwise",  "relu",   "gelu",   "silu",  "sigmoid", "tanh",
                     "dropout",     "activation", "unary",  "binary", "clamp", "fill",    "axpy",
                     "saxpy",       "daxpy",      "bias",   "where",  "cast",  "add",     "mul",
                     "div",         "sub",        "convert"}) ||  // dtype conversion
                                                                  // (cudnn::fusion::convert_dq_to_16bits)
           k.pair("multi", "tensor");
}

bool copyWords(const Words& k) {
    return k.first("memcpy") || k.pair("copy", "kernel") ||
           k.hasAny({"copykernel", "nchw2nhwc", "nhwc2nchw"}) || k.pair("batched", "copy") ||
           k.pair("nchw", "to") || k.pair("nhwc", "to") || k.pair("copy", "device");  // copy_device_to_device
}

// Tensor-core (MMA) marks: NVIDIA's cuBLAS/cuDNN/CUTLASS naming (xmma, hmma, wgmma/gmma, imma,
// wmma, tensorop, instruction shapes s1688/s16816/h884/h1688/h16816/i8816), half/bf16 GEMM
// families (ampere_h*, turing_h*, volta_h*, ampere_bf16), nvjet, AMD matrix-core kernels (Tensile
// Cijk_ with an MI instruction, mfma), fused attention.
bool tensorCoreWords(const Words& k) {
    for (const std::string& t : k.w) {
        if (t.find("xmma") != std::string::npos || t.find("hmma") != std::string::npos ||
            t.find("gmma") != std::string::npos || t.find("imma") != std::string::npos ||
            t.find("wmma") != std::string::npos || t.find("tensorop") != std::string::npos ||
            t.find("mfma") != std::string::npos || t == "tensorcore" || t == "tc") {
            return true;
        }
        for (std::string_view shape :
             {"s1688", "s16816", "h884", "h1688", "h16816", "i8816", "bf16816", "s161616", "i16832"}) {
            if (t.starts_with(shape)) {
                return true;
            }
        }
    }
    // ampere_h16816gemm / volta_h884gemm / turing_h1688gemm: an "h" GEMM after the arch token;
    // ampere_bf16_s16816gemm.
    for (std::size_t i = 0; i + 1 < k.w.size(); ++i) {
        const std::string& arch = k.w[i];
        if ((arch == "ampere" || arch == "turing" || arch == "volta" || arch == "hopper") &&
            (k.w[i + 1].starts_with("h") || k.w[i + 1] == "bf16" || k.w[i + 1] == "fp16")) {
            return true;
        }
    }
    return false;
}

KernelClass tritonClass(const Words& k) {
    // Inductor names: triton_{poi,red,per,tem}_fused_<ops>_<n>. The kind token decides; the fused
    // op names only refine reductions into normalizations and templates into convolutions.
    if (k.has("poi")) {
        return KernelClass::Elementwise;
    }
    if (k.has("red") || k.has("per")) {
        return normalizationWords(k) ? KernelClass::Normalization : KernelClass::Reduction;
    }
    if (k.has("tem")) {
        return convolutionWords(k) ? KernelClass::Convolution : KernelClass::Gemm;
    }
    if (attentionWords(k)) {
        return KernelClass::Attention;
    }
    return KernelClass::Other;  // triton__0d1d2d: an old Triton name that says nothing
}

}  // namespace

std::string_view toString(KernelFamily family) {
    switch (family) {
        case KernelFamily::Unknown:
            return "unknown";
        case KernelFamily::Aten:
            return "aten";
        case KernelFamily::Triton:
            return "triton";
        case KernelFamily::Cublas:
            return "cublas";
        case KernelFamily::Nvjet:
            return "nvjet";
        case KernelFamily::Cutlass:
            return "cutlass";
        case KernelFamily::HipBlasLt:
            return "hipblaslt";
        case KernelFamily::Cudnn:
            return "cudnn";
        case KernelFamily::CudnnFusion:
            return "cudnn-fusion";
        case KernelFamily::FlashAttention:
            return "flash-attention";
        case KernelFamily::Nvfuser:
            return "nvfuser";
        case KernelFamily::Cub:
            return "cub";
        case KernelFamily::Nccl:
            return "nccl";
        case KernelFamily::CudaGraph:
            return "cuda-graph";
    }
    return "unknown";
}

bool isCommunicationKernelName(std::string_view kernelName) {
    const Words k(kernelName);
    return k.hasAny({"nccl", "rccl", "hccl", "msccl"});
}

bool isSoftmaxKernelName(std::string_view kernelName) {
    const Words k(kernelName);
    return k.hasAny({"softmax", "logsoftmax"}) || k.pair("soft", "max");
}

bool isCudaGraphKernelName(std::string_view kernelName) {
    const Words k(kernelName);
    return k.w.size() == 3 && k.w[0] == "cuda" && k.w[1] == "graph" &&
           std::all_of(k.w[2].begin(), k.w[2].end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

KernelNameInfo classifyKernelName(std::string_view kernelName) {
    KernelNameInfo info;
    const Words k(kernelName);
    if (k.w.empty()) {
        return info;
    }
    if (k.hasAny({"nccl", "rccl", "hccl", "msccl"})) {
        info.kernelClass = KernelClass::Communication;
        info.family = KernelFamily::Nccl;
        return info;
    }
    if (isCudaGraphKernelName(kernelName)) {
        info.family = KernelFamily::CudaGraph;  // its contents are not visible: class Other
        return info;
    }
    if (k.first("memset")) {
        info.kernelClass = KernelClass::Memset;
        return info;
    }
    const bool tensorCore = tensorCoreWords(k);

    // Families first: they decide how the rest of the name reads.
    if (k.first("triton")) {
        info.family = KernelFamily::Triton;
        info.kernelClass = tritonClass(k);
        info.tensorCore = info.kernelClass == KernelClass::Gemm ||
                                  info.kernelClass == KernelClass::Convolution ||
                                  info.kernelClass == KernelClass::Attention
                              ? tensorCore
                              : false;
        return info;
    }
    if (k.hasPrefix("nvfuser")) {  // nvfuser_pointwise_f0_c1_r0_g0, <unnamed>::nvfuser_none_f0_...
        info.family = KernelFamily::Nvfuser;
        info.kernelClass = k.has("pointwise")                      ? KernelClass::Elementwise
                           : k.hasAny({"reduction", "persistent"}) ? KernelClass::Reduction
                           : k.hasAny({"matmul", "gemm"})          ? KernelClass::Gemm
                           : k.has("transpose")                    ? KernelClass::Copy
                                                                   : KernelClass::Other;
        return info;
    }
    if (k.first("nvjet")) {
        info.family = KernelFamily::Nvjet;
        info.kernelClass = KernelClass::Gemm;
        info.tensorCore = true;
        return info;
    }
    if (k.first("cijk")) {
        info.family = KernelFamily::HipBlasLt;
        info.kernelClass = KernelClass::Gemm;
        // Tensile's MI<m>x<n>x<k> token names the matrix instruction (MFMA).
        info.tensorCore = tensorCore || std::any_of(k.w.begin(), k.w.end(), [](const std::string& t) {
                              return t.size() > 2 && t.starts_with("mi") &&
                                     std::isdigit(static_cast<unsigned char>(t[2])) != 0;
                          });
        return info;
    }
    if (k.pair("cudnn", "generated")) {
        info.family = KernelFamily::CudnnFusion;
    } else if (k.hasAny({"flash", "flashattn"}) || k.hasPrefix("flashattn")) {
        info.family = KernelFamily::FlashAttention;
    } else if (k.hasPrefix("cutlass")) {
        info.family = KernelFamily::Cutlass;
    } else if (k.hasAny({"cudnn", "scudnn", "hcudnn"}) || k.hasPrefix("cask")) {
        info.family = KernelFamily::Cudnn;
    } else if (k.hasPrefix("cublas") || k.hasAny({"sgemm", "gemvx"}) || (k.has("xmma") && k.has("gemm")) ||
               (k.hasAny({"maxwell", "pascal", "volta", "turing", "ampere"}) && gemmWords(k))) {
        // cuBLAS: cublas*/cublasLt:: kernels, <arch>_[sh]gemm / <arch>_bf16_s16816gemm, sm80/sm90 xmma gemm.
        info.family = KernelFamily::Cublas;
    } else if (k.has("cub")) {
        info.family = KernelFamily::Cub;
    } else if (k.has("native") || k.pair("elementwise", "kernel") || k.pair("reduce", "kernel")) {
        info.family = KernelFamily::Aten;
    }

    if (convolutionWords(k) && info.family == KernelFamily::Cublas) {
        info.family = KernelFamily::Cudnn;  // implicit_convolve_sgemm: cuDNN's legacy engines
    }
    if (copyWords(k)) {
        info.kernelClass = KernelClass::Copy;
        return info;
    }
    if (k.pair("split", "kreduce")) {  // cuBLAS split-K GEMMs' final reduction of partial sums
        info.kernelClass = KernelClass::Reduction;
        return info;
    }
    if (k.pair("dot", "do")) {
        // Attention backward's preprocessing, D = rowsum(dO * O) (cuDNN's compute_dot_do_o,
        // FlashAttention's dot_do_o): a reduction, not a GEMM for all its "dot".
        info.kernelClass = KernelClass::Reduction;
        return info;
    }
    if (k.hasAny({"scal", "axpy", "saxpy", "daxpy"})) {  // BLAS level-1 (cuBLAS scal_kernel)
        info.kernelClass = KernelClass::Elementwise;
        return info;
    }
    if (attentionWords(k)) {
        info.kernelClass = KernelClass::Attention;
        info.tensorCore = tensorCore || k.hasAny({"flash", "fmha"}) || k.hasPrefix("flashattn");
        return info;
    }
    if (normalizationWords(k)) {
        info.kernelClass = KernelClass::Normalization;
        return info;
    }
    if (convolutionWords(k) ||
        (info.family == KernelFamily::Cudnn && !gemmWords(k) && !reductionWords(k) && !elementwiseWords(k))) {
        // cuDNN kernels without another mark are convolution engines and their helpers
        // (cask_cudnn offsets, winograd tiles).
        info.kernelClass = KernelClass::Convolution;
        info.tensorCore = tensorCore;
        return info;
    }
    if (gemmWords(k) || tensorCore || info.family == KernelFamily::Cutlass ||
        info.family == KernelFamily::Cublas) {
        info.kernelClass = KernelClass::Gemm;
        info.tensorCore = tensorCore;
        return info;
    }
    if (reductionWords(k) || info.family == KernelFamily::Cub) {
        info.kernelClass = KernelClass::Reduction;
        return info;
    }
    if (elementwiseWords(k)) {
        info.kernelClass = KernelClass::Elementwise;
        return info;
    }
    return info;
}

KernelClass kernelClassFromOpName(std::string_view opName) {
    std::string_view op = opName.starts_with("aten::") ? opName.substr(6) : opName;
    const Words k(op);
    if (k.w.empty()) {
        return KernelClass::Other;
    }
    std::string joined;
    for (const std::string& t : k.w) {
        joined += joined.empty() ? t : "_" + t;
    }
    // The op's full (lower-cased, '_'-joined) name for exact-op rules.
    const std::string lowerOp = core::toLower(op);
    if (k.hasAny({"attention", "flash", "sdpa", "attn"})) {
        return KernelClass::Attention;
    }
    if (convolutionWords(k) || k.hasPrefix("cudnn_convolution")) {
        return KernelClass::Convolution;
    }
    static constexpr std::string_view kGemmOps[] = {"mm",         "addmm",  "bmm",    "baddbmm",
                                                    "matmul",     "linear", "addbmm", "einsum",
                                                    "_scaled_mm", "dot",    "mv",     "addmv"};
    for (std::string_view g : kGemmOps) {
        if (lowerOp == g) {
            return KernelClass::Gemm;
        }
    }
    if (normalizationWords(k) ||
        (k.has("norm") && k.hasAny({"native", "layer", "batch", "group", "instance"}))) {
        return KernelClass::Normalization;
    }
    if (k.has("softmax") || k.has("logsoftmax") || k.pair("nll", "loss") || k.pair("cross", "entropy")) {
        return KernelClass::Reduction;
    }
    static constexpr std::string_view kReductionOps[] = {"sum",
                                                         "mean",
                                                         "max",
                                                         "min",
                                                         "argmax",
                                                         "argmin",
                                                         "amax",
                                                         "cumsum",
                                                         "prod",
                                                         "var",
                                                         "std",
                                                         "norm",
                                                         "linalg_vector_norm"};
    for (std::string_view r : kReductionOps) {
        if (lowerOp == r) {
            return KernelClass::Reduction;
        }
    }
    if (lowerOp == "copy_" || lowerOp == "to" || lowerOp == "_to_copy" || lowerOp == "clone" ||
        lowerOp == "contiguous" || lowerOp == "cat") {
        return KernelClass::Copy;
    }
    if (lowerOp == "fill_" || lowerOp == "zero_" || lowerOp == "zeros" || lowerOp == "zeros_like") {
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
                                                           "_fused_adam_",
                                                           "_fused_adamw_",
                                                           "masked_fill_",
                                                           "eq",
                                                           "ne",
                                                           "lt",
                                                           "gt",
                                                           "le",
                                                           "ge"};
    for (std::string_view e : kElementwiseOps) {
        if (lowerOp == e) {
            return KernelClass::Elementwise;
        }
    }
    if (lowerOp.starts_with("_foreach_")) {
        return KernelClass::Elementwise;
    }
    return KernelClass::Other;
}

HtaKernelType htaKernelType(std::string_view name) {
    if (name.starts_with("nccl") || name.find("ncclKernel") != std::string_view::npos ||
        name.starts_with("hccl") || name.starts_with("rccl")) {
        return HtaKernelType::Communication;
    }
    if (name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("dma")) {
        return HtaKernelType::Memory;
    }
    return HtaKernelType::Computation;
}

// --- Collectives ---------------------------------------------------------------------------------

namespace {

struct KindRule {
    std::string_view joined;  // tokens joined without separators
    std::string_view kind;
};

// Longest first: "reducescatter" before "reduce", "allgatherv" before "allgather".
constexpr std::array<KindRule, 17> kKindRules{{
    {"reducescatter", "ReduceScatter"},
    {"reducescatterv", "ReduceScatter"},
    {"allreduce", "AllReduce"},
    {"allgatherv", "AllGather"},
    {"allgatherinto", "AllGather"},
    {"allgather", "AllGather"},
    {"alltoallv", "AllToAll"},
    {"alltoall", "AllToAll"},
    {"all2all", "AllToAll"},
    {"sendrecv", "SendRecv"},
    {"broadcast", "Broadcast"},
    {"barrier", "Barrier"},
    {"reduce", "Reduce"},
    {"send", "SendRecv"},
    {"recv", "SendRecv"},
    {"gather", "Gather"},
    {"scatter", "Scatter"},
}};

std::string_view kindOfJoined(std::string_view joined) {
    for (const KindRule& rule : kKindRules) {
        if (joined == rule.joined) {
            return rule.kind;
        }
    }
    return {};
}

// The first collective word run after `first`: the longest join of up to three tokens.
std::string kindFromTokens(const std::vector<std::string>& words, std::size_t first) {
    for (std::size_t i = first; i < words.size(); ++i) {
        for (std::size_t span = 3; span >= 1; --span) {
            if (i + span > words.size()) {
                continue;
            }
            std::string joined;
            for (std::size_t j = i; j < i + span; ++j) {
                joined += words[j];
            }
            if (std::string_view kind = kindOfJoined(joined); !kind.empty()) {
                return std::string(kind);
            }
        }
    }
    return {};
}

}  // namespace

std::string collectiveKindFromName(std::string_view name) {
    const std::vector<std::string> words = tokens(name);
    if (words.empty()) {
        return {};
    }
    const bool kernel =
        words[0].starts_with("nccl") || words[0].starts_with("rccl") || words[0].starts_with("hccl");
    if (kernel) {
        // "ncclDevKernel_AllReduce_Sum_f32": words nccl, dev, kernel, all, reduce, sum, f32.
        std::size_t first = 1;
        while (first < words.size() && (words[first] == "dev" || words[first] == "kernel")) {
            ++first;
        }
        return kindFromTokens(words, first);
    }
    // Recorded names: "allreduce", "_allgather_base", "all_to_allv", "nccl:all_reduce",
    // "c10d::allreduce_". Framework ops that merely contain a collective word are not collectives:
    // only names made of collective words (plus "base", "coalesced", "into", "tensor", "single").
    std::size_t first = 0;
    if (words[0] == "c10d" || words[0] == "gloo" || words[0] == "nccl" || words[0] == "rccl") {
        first = 1;
    }
    std::string joined;
    for (std::size_t i = first; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w == "base" || w == "coalesced" || w == "tensor" || w == "single" || w == "into") {
            continue;
        }
        joined += w;
    }
    return std::string(kindOfJoined(joined));
}

// --- Host roles ----------------------------------------------------------------------------------

namespace {

// MPI calls that move data or wait for it, as Nsight Systems' MPI tracing names its ranges
// ("MPI_Send", "MPI_Allreduce"; MPI standard 4.0 names). MPI_Init, MPI_Comm_rank and the like set
// up or ask; they are not communication.
bool mpiCommunicationCall(std::string_view call) {
    static constexpr std::string_view kCalls[] = {"Send",
                                                  "Ssend",
                                                  "Bsend",
                                                  "Rsend",
                                                  "Isend",
                                                  "Issend",
                                                  "Recv",
                                                  "Irecv",
                                                  "Mrecv",
                                                  "Sendrecv",
                                                  "Sendrecv_replace",
                                                  "Probe",
                                                  "Wait",
                                                  "Waitall",
                                                  "Waitany",
                                                  "Waitsome",
                                                  "Bcast",
                                                  "Ibcast",
                                                  "Reduce",
                                                  "Ireduce",
                                                  "Allreduce",
                                                  "Iallreduce",
                                                  "Gather",
                                                  "Gatherv",
                                                  "Allgather",
                                                  "Allgatherv",
                                                  "Iallgather",
                                                  "Scatter",
                                                  "Scatterv",
                                                  "Alltoall",
                                                  "Alltoallv",
                                                  "Alltoallw",
                                                  "Ialltoall",
                                                  "Reduce_scatter",
                                                  "Reduce_scatter_block",
                                                  "Barrier",
                                                  "Ibarrier",
                                                  "Scan",
                                                  "Exscan",
                                                  "Put",
                                                  "Get",
                                                  "Accumulate",
                                                  "Win_fence",
                                                  "Win_wait"};
    return std::find(std::begin(kCalls), std::end(kCalls), call) != std::end(kCalls);
}

bool collectiveHostName(std::string_view name, const Words& k) {
    if (name.starts_with("c10d::") || name.starts_with("nccl:") || name.starts_with("gloo:") ||
        name.starts_with("ProcessGroup") || name == "record_param_comms") {
        return true;
    }
    if (name.starts_with("MPI_")) {
        return mpiCommunicationCall(name.substr(4));
    }
    // A call of torch.distributed (python frame "torch/distributed/distributed_c10d.py(..): all_reduce")
    // or a range named after the collective ("allreduce", "all_gather_into_tensor").
    if (k.has("c10d") && !collectiveKindFromName(k.w.back()).empty()) {
        return true;
    }
    if (k.pair("all", "reduce") || k.has("allreduce") || k.pair("all", "gather") || k.has("allgather") ||
        k.pair("reduce", "scatter") || k.has("reducescatter") || k.has("alltoall")) {
        return !k.has("aten");
    }
    for (std::size_t i = 0; i + 2 < k.w.size(); ++i) {
        if (k.w[i] == "all" && k.w[i + 1] == "to" && k.w[i + 2] == "all") {
            return !k.has("aten");
        }
    }
    // Exactly a collective's name ("barrier", "broadcast") - aten::broadcast_tensors is not.
    if (k.has("aten") || k.w.size() > 3) {
        return false;
    }
    const std::string kind = collectiveKindFromName(name);
    return kind == "AllReduce" || kind == "AllGather" || kind == "ReduceScatter" || kind == "AllToAll" ||
           kind == "Broadcast" || kind == "Barrier";
}

bool synchronizationHostName(std::string_view name, const Words& k) {
    if (name == "aten::item" || name == "aten::_local_scalar_dense" || name == "aten::nonzero" ||
        name == "aten::is_nonzero") {
        return true;
    }
    // Python frames: "<built-in method item of Tensor object at 0x...>", ".cpu()", ".tolist()",
    // "torch/cuda/__init__.py(..): synchronize".
    if (k.has("tensor") && k.has("method") && k.hasAny({"item", "cpu", "tolist"})) {
        for (std::size_t i = 0; i + 1 < k.w.size(); ++i) {
            if (k.w[i] == "method" &&
                (k.w[i + 1] == "item" || k.w[i + 1] == "cpu" || k.w[i + 1] == "tolist")) {
                return true;
            }
        }
    }
    return k.has("synchronize") && k.has("py");  // torch/cuda/__init__.py(..): synchronize
}

bool compilationHostName(const Words& k) {
    // torch.compile: dynamo's frame conversion, inductor's lowering / codegen / autotuning, Triton's
    // compiler; nvFuser's lowering and scheduling; TorchScript; cuDNN's algorithm search. Running
    // compiled code (Torch-Compiled Region, CompiledFunction, eval_frame) is not compilation.
    // "compile" as a word: compile_fx, _compile, triton's compiler.py: compile, compileFusion, but
    // not torch/compiler/__init__.py: is_compiling or _is_compiled (run-time checks).
    if (k.hasAny({"compile", "compilation", "autotune", "autotuning", "precompile", "nvrtc", "recompile",
                  "recompilation"})) {
        return true;
    }
    // Code generation of a compiler (torch/_inductor/codegen/…, nvfuser::codegen::…), not FBGEMM's
    // generated training ops that run every step (split_embedding_codegen_lookup_…_function).
    if (k.has("codegen") && k.hasAny({"inductor", "triton", "dynamo", "nvfuser", "jit"})) {
        return true;
    }
    if (k.has("dynamo") && (k.pair("convert", "frame") || k.pair("symbolic", "convert") ||
                            k.pair("output", "graph") || k.has("bytecode"))) {
        return true;
    }
    if (k.has("inductor") &&
        (k.pair("graph", "lowering") || k.has("lowering") || k.pair("select", "algorithm") ||
         k.hasAny({"benchmark", "scheduler"}) || k.pair("fx", "passes"))) {
        return true;
    }
    if (k.has("autotuner") && k.hasAny({"bench", "benchmark", "prune"})) {
        return true;
    }
    if (k.pair("gpu", "lower")) {  // nvFuser: GpuLower::Lower::...
        return true;
    }
    // torch/jit/_trace.py: is_tracing and is_scripting ask whether a trace is under way: checks
    // that every eager model runs (a TraceLens BERT trace read as "torch.compile in use").
    if (k.has("jit") && k.hasAny({"script", "trace", "freeze", "optimize"}) &&
        !(k.has("is") && k.hasAny({"tracing", "scripting"}))) {
        return true;
    }
    return k.has("cudnn") && k.has("find") && k.has("algorithm");  // cudnnFind*Algorithm (benchmark)
}

bool housekeepingHostName(const Words& k) {
    // Checkpoint saving (activation checkpointing, torch/utils/checkpoint.py, is compute: not here).
    if ((k.has("serialization") && (k.has("save") || k.has("legacy"))) || k.pair("save", "checkpoint") ||
        k.pair("checkpoint", "save") || k.pair("state", "dict") || k.has("statedict") ||
        (k.has("distributed") && k.has("checkpoint")) || k.pair("torch", "save")) {
        return true;
    }
    // Logging and experiment tracking.
    if (k.hasAny({"wandb", "tensorboard", "tensorboardx", "mlflow", "comet", "neptune"}) ||
        k.pair("summary", "writer") || k.pair("add", "scalar") || k.pair("add", "scalars") ||
        (k.has("logging") && k.has("py")) || k.pair("function", "print")) {
        return true;
    }
    // Evaluation loops.
    return k.hasAny({"evaluate", "evaluation", "validation", "validate"}) || k.pair("eval", "step") ||
           k.pair("eval", "loop") || k.pair("val", "step") || k.pair("val", "loop");
}

bool dataPreparationHostName(const Words& k) {
    // Image decode and augmentation, tokenization, collate, numpy conversion, datasets.
    if (k.hasAny({"torchvision", "pil",       "cv2",          "albumentations", "kornia",
                  "tokenizers",  "tokenizer", "tokenization", "tokenize",       "collate",
                  "imread",      "imdecode",  "jpeg",         "dali",           "webdataset",
                  "dataset",     "datasets",  "augment",      "augmentation",   "transforms"})) {
        return true;
    }
    // numpy conversions (torch.from_numpy, Tensor.numpy()), not every numpy frame.
    // The single-process loader's sample fetch (torch/utils/data/_utils/fetch.py: fetch) runs the
    // Dataset's __getitem__ in the calling process.
    if (k.has("fetch") && k.has("utils") && k.has("data")) {
        return true;
    }
    return k.pair("from", "numpy") || k.pair("method", "numpy") || k.pair("decode", "image") ||
           k.pair("decode", "jpeg") || k.pair("image", "open") || k.pair("default", "collate");
}

}  // namespace

std::string_view toString(HostRole role) {
    switch (role) {
        case HostRole::None:
            return "other";
        case HostRole::DataLoading:
            return "data loading";
        case HostRole::DataPreparation:
            return "input preparation";
        case HostRole::Collective:
            return "collective";
        case HostRole::Synchronization:
            return "synchronization";
        case HostRole::Compilation:
            return "compilation";
        case HostRole::Housekeeping:
            return "checkpointing/logging/evaluation";
        case HostRole::GarbageCollection:
            return "garbage collection";
        case HostRole::Optimizer:
            return "optimizer";
        case HostRole::Backward:
            return "backward";
        case HostRole::CompiledRegion:
            return "compiled region";
    }
    return "other";
}

bool isFrameworkOpName(std::string_view name) {
    if (name.empty() || name.front() == '<' || name.find(".py(") != std::string_view::npos) {
        return false;  // Python frames: "<built-in method ...>", "file.py(12): fn"
    }
    if (name.find("::") != std::string_view::npos) {
        return true;  // aten::mm, c10d::allreduce_, torch::autograd::AccumulateGrad
    }
    // Autograd nodes: AddmmBackward0, ConvolutionBackward0 (one word, "Backward" plus digits).
    std::string_view stem = name;
    while (!stem.empty() && std::isdigit(static_cast<unsigned char>(stem.back())) != 0) {
        stem.remove_suffix(1);
    }
    return stem.ends_with("Backward") && name.find(' ') == std::string_view::npos;
}

bool isDataLoadingName(std::string_view name) {
    if (markerRoleOf(name) == MarkerRole::DataWait) {
        return true;  // chokepoint:data
    }
    const Words k(name);
    return k.pair("data", "loader") || k.has("dataloader") || k.pair("data", "loading") ||
           k.has("dataloading");
}

bool isBackwardOpName(std::string_view name) {
    if (name.starts_with("autograd::engine::evaluate_function")) {
        return true;
    }
    const Words k(name);
    // AddmmBackward0 (token "backward0"), aten::convolution_backward, ".backward()".
    return k.hasPrefix("backward");
}

bool isOptimizerName(std::string_view name) {
    if (markerRoleOf(name) == MarkerRole::Optimizer) {
        return true;  // chokepoint:optimizer
    }
    if (name.starts_with("Optimizer.") || name.starts_with("optimizer.") ||
        name.starts_with("optimizer_step")) {
        return true;  // Optimizer.step#Adam.step, Optimizer.zero_grad#SGD.zero_grad, optimizer.step
    }
    const Words k(name);
    if (k.pair("fused", "adam") || k.has("fusedadam") || k.pair("tensor", "adam") || k.pair("fused", "sgd") ||
        k.pair("fused", "adamw")) {
        return true;
    }
    // Python frames of an optimizer package: torch/optim/adamw.py: step, torch/optim/optimizer.py:
    // wrapper (the step hook), bitsandbytes/optim/..., not the learning-rate scheduler.
    return (k.has("optim") || k.has("optimizers")) && k.has("py") && !k.pair("lr", "scheduler");
}

bool isCommunicationOpName(std::string_view name) {
    const Words k(name);
    return collectiveHostName(name, k);
}

bool isCollectiveOpName(std::string_view name) {
    return name == "record_param_comms" || name.starts_with("nccl:") || name.starts_with("c10d::") ||
           name.starts_with("gloo:");
}

bool isGarbageCollectionName(std::string_view name) {
    const Words k(name);
    return k.has("gc") || k.pair("garbage", "collect") || k.pair("garbage", "collection") ||
           k.pair("gc", "collect");
}

HostRole hostRoleOf(std::string_view name) {
    // The helper's phase ranges say what they are (NameRules.h, "Step and phase markers").
    switch (markerRoleOf(name)) {
        case MarkerRole::DataWait:
            return HostRole::DataLoading;
        case MarkerRole::Backward:
            return HostRole::Backward;
        case MarkerRole::Optimizer:
            return HostRole::Optimizer;
        case MarkerRole::Step:
        case MarkerRole::Forward:
        case MarkerRole::Meta:
            return HostRole::None;  // steps and forward enclose work; marks carry facts
        case MarkerRole::None:
            break;
    }
    const Words k(name);
    if (k.w.empty()) {
        return HostRole::None;
    }
    if (collectiveHostName(name, k)) {
        return HostRole::Collective;
    }
    if (isOptimizerName(name)) {
        return HostRole::Optimizer;
    }
    if (isBackwardOpName(name)) {
        return HostRole::Backward;
    }
    if (isDataLoadingName(name)) {
        return HostRole::DataLoading;
    }
    if (isGarbageCollectionName(name)) {
        return HostRole::GarbageCollection;
    }
    // Dynamo's eval-frame wrapper (_fn, compile_wrapper in newer PyTorch) runs around every call of a
    // compiled function: running compiled code, not compiling it.
    if (k.has("dynamo") && k.pair("eval", "frame")) {
        return HostRole::CompiledRegion;
    }
    if (compilationHostName(k)) {
        return HostRole::Compilation;
    }
    if (k.pair("compiled", "region") || k.pair("compiled", "function") || k.pair("compiled", "fx") ||
        k.pair("cache", "lookup")) {
        return HostRole::CompiledRegion;  // Torch-Compiled Region, CompiledFunction, TorchDynamo Cache Lookup
    }
    if (synchronizationHostName(name, k)) {
        return HostRole::Synchronization;
    }
    if (housekeepingHostName(k)) {
        return HostRole::Housekeeping;
    }
    if (dataPreparationHostName(k)) {
        return HostRole::DataPreparation;
    }
    return HostRole::None;
}

// --- Runtime API -----------------------------------------------------------------------------------

ApiRole apiRoleOf(std::string_view name) {
    // The runtime/driver API is a closed vocabulary whose names glue words and digits
    // ("cudaMemcpy2DAsync", "cuMemcpyDtoHAsync_v2"), so its rules read the lower-cased name.
    const std::string n = core::toLower(name);
    const auto has = [&](std::string_view part) { return n.find(part) != std::string::npos; };
    if (has("synchronize")) {
        return ApiRole::Synchronize;  // cudaStreamSynchronize, cuCtxSynchronize, hipEventSynchronize
    }
    // cudaFree / cuMemFree / hipFree wait for the device before releasing memory (the reason
    // PyTorch caches allocations); the stream-ordered cudaFreeAsync does not.
    if (has("free") && !has("async")) {
        return ApiRole::Synchronize;
    }
    if (has("graphlaunch")) {
        return ApiRole::GraphLaunch;  // cudaGraphLaunch, hipGraphLaunch
    }
    if (has("launch")) {
        return ApiRole::KernelLaunch;  // cudaLaunchKernel, cuLaunchKernel, cudaLaunchCooperativeKernel
    }
    if (has("memcpy")) {
        // cudaMemcpy, cudaMemcpy2D, cuMemcpyDtoH_v2, hipMemcpy block; *Async and peer copies do not.
        return has("async") || has("peer") ? ApiRole::CopyAsync : ApiRole::CopyBlocking;
    }
    if (has("memset")) {
        return ApiRole::Memset;
    }
    return ApiRole::Other;
}

bool isSyncApiName(std::string_view name) {
    const ApiRole r = apiRoleOf(name);
    return r == ApiRole::Synchronize || r == ApiRole::CopyBlocking;
}

bool isLaunchApiName(std::string_view name) {
    const ApiRole r = apiRoleOf(name);
    return r == ApiRole::KernelLaunch || r == ApiRole::GraphLaunch || r == ApiRole::CopyAsync ||
           r == ApiRole::CopyBlocking || r == ApiRole::Memset;
}

// --- Devices -------------------------------------------------------------------------------------

std::string architectureFromDeviceName(std::string_view deviceName) {
    const Words k(deviceName);
    if (k.hasAny({"amd", "instinct", "radeon"}) ||
        k.hasPrefixAny({"mi100", "mi200", "mi210", "mi250", "mi300"})) {
        return "cdna";
    }
    const auto anyOf = [&](std::initializer_list<std::string_view> models) { return k.hasAny(models); };
    if (anyOf({"v100", "titanv"})) {
        return "volta";
    }
    if (anyOf({"a100", "a10", "a10g", "a30", "a40", "a16", "a2", "a800", "a6000", "a5000", "a4000"})) {
        return "ampere";
    }
    if (anyOf({"h100", "h200", "h800", "h20", "gh200"})) {
        return "hopper";
    }
    if (anyOf({"b100", "b200", "gb200", "b300", "gb300"})) {
        return "blackwell";
    }
    if (anyOf({"t4"})) {
        return "turing";
    }
    if (anyOf({"l4", "l40", "l40s"})) {
        return "ada";
    }
    // GeForce RTX NNNN: the first two digits name the generation.
    for (std::size_t i = 0; i + 1 < k.w.size(); ++i) {
        const std::string& model = k.w[i + 1];
        if (k.w[i] == "rtx" && model.size() == 4 && std::all_of(model.begin(), model.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c)) != 0;
            })) {
            const std::string_view series = std::string_view(model).substr(0, 2);
            return series == "20"   ? "turing"
                   : series == "30" ? "ampere"
                   : series == "40" ? "ada"
                   : series == "50" ? "blackwell"
                                    : "";
        }
    }
    return "";
}

// --- Threads -----------------------------------------------------------------------------------------

ThreadRole threadRoleOf(std::string_view threadName) {
    if (threadName.starts_with("pt_autograd")) {
        return ThreadRole::Autograd;
    }
    const Words k(threadName);
    if (k.pair("pin", "memory") || k.pair("data", "pin") || k.has("pinmemory")) {
        return ThreadRole::PinMemory;  // pt_data_pin, pin_memory_thread
    }
    if (k.has("dataloader") || k.pair("data", "loader") || k.pair("data", "worker")) {
        return ThreadRole::DataWorker;  // pt_data_worker, "DataLoader worker 3"
    }
    if (k.pair("main", "thread") || k.has("mainthread")) {
        return ThreadRole::Main;  // pt_main_thread, MainThread
    }
    return ThreadRole::Other;
}

std::string_view toString(ThreadRole role) {
    switch (role) {
        case ThreadRole::Autograd:
            return "autograd";
        case ThreadRole::DataWorker:
            return "data-worker";
        case ThreadRole::PinMemory:
            return "pin-memory";
        case ThreadRole::Main:
            return "main";
        case ThreadRole::Other:
            break;
    }
    return "other";
}

}  // namespace chokepoint::names

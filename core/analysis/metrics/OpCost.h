#pragma once
// FLOPs and bytes of framework ops from the input shapes and dtypes Kineto records
// (cpuOps.inputShapes like "[[8, 1024], [1024, 4096]]", inputTypes like "[\"float\", \"c10::BFloat16\"]").
//
// Conventions (seed spec §1.3: 2 FLOPs per multiply-accumulate; bytes = every input read once plus
// the output written once, i.e. the minimum HBM traffic of an unfused op):
//   mm / matmul (2-D)        [M,K]x[K,N]           FLOPs 2·M·N·K
//   addmm                    bias,[M,K],[K,N]      2·M·N·K + M·N
//   bmm / baddbmm / matmul   [B,M,K]x[B,K,N]       2·B·M·N·K (+ B·M·N for baddbmm)
//   linear                   x[..., K], W[N, K]    2·rows(x)·N·K (+ rows·N with bias)
//   convolution (1d/2d/3d)   x[N,C,spatial], w[O,C/g,kernel]: 2·N·O·prod(out spatial)·(C/g)·prod(kernel)
//                            (the output's spatial size is the one the trace's backward op for the same
//                            input and weight shapes shows, ConvOutputShapes; without one it is taken
//                            as the input's, "same" size, an estimate that counts a stride-2 conv 4x)
//   convolution backward     grad_output[N,O,out], w[O,C/g,kernel]: 2 × 2·N·O·prod(out)·(C/g)·prod(kernel)
//                            (grad input and grad weight, each the forward's FLOPs; exact, as the
//                            gradient has the output's shape; the first layer's grad input, which
//                            PyTorch skips, is counted too)
//   scaled_dot_product_attention / flash / efficient / cuDNN attention  q[B,H,S,D], k[B,H,Sk,D]:
//                            4·B·H·S·Sk·D (QK^T and A·V, seed spec §1.3 "4·B·N_heads·S²·d_head"),
//                            over the query-key pairs the causal mask leaves when the op recorded
//                            is_causal (S·(S+1)/2 for S = Sk: a causal kernel skips the masked
//                            blocks); the backward ops 2x that (dV, dP, dQ, dK; FlashAttention's
//                            recomputed Q·K^T is not model work and is not counted)
//   elementwise (add, mul, relu, gelu, silu, sigmoid, tanh, div, sub, ...) 1 FLOP per output element
//                            (gelu/silu/softmax-like activations: documented small constants)
//   layer_norm / rms_norm / batch_norm / group_norm  ~5 FLOPs per element (mean, var, normalize, affine)
//   softmax / log_softmax    ~5 FLOPs per element
// Other backward ops (`*Backward*`, the matmuls' backward runs as recorded mm/bmm calls) are not
// costed here.
// dtype sizes: double 8, float 4, c10::Half/BFloat16 2, c10::Float8_* 1, int64 8, int32 4, bool 1.
// Precision of an op: the widest floating dtype among its inputs (float -> FP32; TF32 is not visible
// in the trace and is left to the caller), BFloat16 -> BF16, Half -> FP16, Float8 -> FP8.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/metrics/KernelClassifier.h"
#include "core/analysis/metrics/OpSchemas.h"
#include "core/base/Ids.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

using Shape = std::vector<std::int64_t>;

// Parses a recorded shape list: "[[8, 1024], [1024, 4096], []]". Non-list entries (scalars recorded
// as [] or nested lists of tensors) become empty shapes. nullopt when the text is malformed.
std::optional<std::vector<Shape>> parseShapes(std::string_view text);
// Parses a recorded type list: ["float", "c10::BFloat16", "Scalar"]. nullopt when malformed.
std::optional<std::vector<std::string>> parseTypes(std::string_view text);
// Size in bytes of a recorded dtype, 0 when unknown/not a tensor type.
int dtypeSizeBytes(std::string_view type);
// Precision of a recorded floating dtype, nullopt for non-floating or unknown.
std::optional<Precision> precisionOfType(std::string_view type);
std::string_view toString(Precision precision);
// True when a kernel name shows TF32 tensor-core math ("..._tf32f32_...", "cutlass_tensorop_tf32_...").
bool kernelNameSaysTf32(std::string_view kernelName);

struct OpCostEstimate {
    bool known = false;  // a formula applied and the shapes were usable
    double flops = 0;
    double bytes = 0;
    std::optional<Precision> precision;
    std::string formula;  // short label: "mm 2·M·N·K", "sdpa 4·B·H·S·Sk·D"
};

// Convolution output shapes the trace's backward ops show: the gradient of a convolution's output
// has the output's shape, so a forward call with the same input and weight shapes produced it. Kineto
// records a stride as an empty list before PyTorch's "Concrete Inputs", so this is how a stride-2
// convolution's smaller output is known. A key seen with two different outputs is not used.
class ConvOutputShapes {
public:
    void add(const Shape& input, const Shape& weight, const Shape& output);
    // The output shape for a forward call with these input and weight shapes, or null.
    const Shape* find(const Shape& input, const Shape& weight) const;
    bool empty() const { return m_outputs.empty(); }

private:
    std::vector<std::pair<std::pair<Shape, Shape>, std::optional<Shape>>> m_outputs;  // sorted by key
};
ConvOutputShapes convOutputShapesFromBackward(const core::TraceModel& model);

// Cost of one op call from its name and recorded inputs (either may be empty -> known = false).
// `convOutputs` gives a forward convolution its output size (null: the input's size is assumed);
// `concreteInputs`, the recorded scalar arguments ("Concrete Inputs"), give a convolution its
// stride, padding and dilation and an attention op its causal mask, where the op's schema is known
// (OpSchemas.h). A convolution's recorded arguments win over `convOutputs`.
OpCostEstimate estimateOpCost(std::string_view opName, std::string_view inputShapes,
                              std::string_view inputTypes, const ConvOutputShapes* convOutputs = nullptr,
                              std::string_view concreteInputs = {});

struct OpCostResult {
    // Per kernel row: FLOPs and bytes attributed from the costed op that launched it (0 = none).
    // An op's cost is split over the kernels it launched (directly or through child ops) in
    // proportion to kernel time; its FLOPs only over its matmul-class kernels when it launched any
    // (and the kernel classes were given).
    std::vector<double> kernelFlops;
    std::vector<double> kernelBytes;
    std::vector<std::int8_t> kernelPrecision;  // Precision value, -1 unknown
    // Per kernel row: how many kernels share its costed op's FLOPs (1 = the op launched only it).
    std::vector<std::int32_t> kernelSharers;
    double totalFlops = 0;  // of the costed ops that launched GPU work
    double totalBytes = 0;
    std::int64_t opsWithShapes = 0;  // CPU ops that carry recorded shapes
    std::int64_t opsCosted = 0;      // ops a formula applied to
    std::int64_t kernelsCosted = 0;  // kernels that received a share
    bool shapesRecorded() const { return opsWithShapes > 0; }
    // Kernel row k was launched by a costed op (its FLOPs may still be 0: a copy beside a GEMM).
    bool kernelCosted(std::size_t k) const { return k < kernelSharers.size() && kernelSharers[k] > 0; }
};

// Parameters of the embedding tables the trace's ops looked up: the weight [V, d] of each
// aten::embedding call, each distinct shape once (a table looked up many times, or tied to the
// output layer, counts once; two tables of one shape count once too: a lower bound). 0 without
// recorded shapes. 6·N·T counts these parameters although a lookup multiplies nothing.
double embeddingTableParameters(const core::TraceModel& model);

// `kernelClass` (KernelStatsResult::kernelClass, per kernel row) lets an op's FLOPs go to its
// matmul-class kernels alone; null splits them over all its kernels.
OpCostResult attributeOpCosts(const core::TraceModel& model,
                              const std::vector<KernelClass>* kernelClass = nullptr);

}  // namespace chokepoint::analysis

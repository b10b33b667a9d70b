// FLOP and byte formulas of OpCost, each against a value computed by hand in the comment.

#include "core/analysis/metrics/OpCost.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

TEST(OpCost, ParsesRecordedShapesAndTypes) {
    auto shapes = parseShapes("[[8, 1024], [1024, 4096], [], [[1, 2], [3]]]");
    ASSERT_TRUE(shapes.has_value());
    ASSERT_EQ(shapes->size(), 4u);
    EXPECT_EQ((*shapes)[0], (Shape{8, 1024}));
    EXPECT_EQ((*shapes)[1], (Shape{1024, 4096}));
    EXPECT_TRUE((*shapes)[2].empty());
    EXPECT_TRUE((*shapes)[3].empty());  // a tensor list is not one tensor
    EXPECT_FALSE(parseShapes("[[8, 1024]").has_value());
    EXPECT_FALSE(parseShapes("[[8, x]]").has_value());
    EXPECT_FALSE(parseShapes("").has_value());
    EXPECT_TRUE(parseShapes("[]").has_value());
    auto types = parseTypes(R"(["float", "c10::BFloat16", "Scalar", ""])");
    ASSERT_TRUE(types.has_value());
    ASSERT_EQ(types->size(), 4u);
    EXPECT_EQ((*types)[1], "c10::BFloat16");
    EXPECT_FALSE(parseTypes(R"(["float")").has_value());
}

TEST(OpCost, DtypeSizesAndPrecision) {
    EXPECT_EQ(dtypeSizeBytes("float"), 4);
    EXPECT_EQ(dtypeSizeBytes("double"), 8);
    EXPECT_EQ(dtypeSizeBytes("c10::BFloat16"), 2);
    EXPECT_EQ(dtypeSizeBytes("c10::Half"), 2);
    EXPECT_EQ(dtypeSizeBytes("c10::Float8_e4m3fn"), 1);
    EXPECT_EQ(dtypeSizeBytes("long int"), 8);
    EXPECT_EQ(dtypeSizeBytes("Scalar"), 0);
    EXPECT_EQ(precisionOfType("float"), Precision::FP32);
    EXPECT_EQ(precisionOfType("c10::BFloat16"), Precision::BF16);
    EXPECT_EQ(precisionOfType("c10::Half"), Precision::FP16);
    EXPECT_EQ(precisionOfType("c10::Float8_e5m2"), Precision::FP8);
    EXPECT_FALSE(precisionOfType("long int").has_value());
}

TEST(OpCost, MatrixMultiplies) {
    // mm [8,1024]x[1024,4096]: 2·8·4096·1024 = 67,108,864 FLOPs;
    // bytes (8·1024 + 1024·4096 + 8·4096)·4 = 16,941,056.
    OpCostEstimate mm = estimateOpCost("aten::mm", "[[8, 1024], [1024, 4096]]", R"(["float", "float"])");
    ASSERT_TRUE(mm.known);
    EXPECT_DOUBLE_EQ(mm.flops, 67108864.0);
    EXPECT_DOUBLE_EQ(mm.bytes, 16941056.0);
    EXPECT_EQ(mm.precision, Precision::FP32);
    // addmm bias[4096] + [8,1024]x[1024,4096] in BF16: 67,108,864 + 8·4096 = 67,141,632 FLOPs;
    // bytes (4096 + 8192 + 4,194,304 + 32,768)·2 = 8,478,720.
    OpCostEstimate addmm =
        estimateOpCost("aten::addmm", "[[4096], [8, 1024], [1024, 4096], [], []]",
                       R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
    ASSERT_TRUE(addmm.known);
    EXPECT_DOUBLE_EQ(addmm.flops, 67141632.0);
    EXPECT_DOUBLE_EQ(addmm.bytes, 8478720.0);
    EXPECT_EQ(addmm.precision, Precision::BF16);
    // bmm [4,64,32]x[4,32,16]: 2·4·64·16·32 = 262,144.
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::bmm", "[[4, 64, 32], [4, 32, 16]]", "").flops, 262144.0);
    // baddbmm adds 4·64·16 = 4,096.
    EXPECT_DOUBLE_EQ(
        estimateOpCost("aten::baddbmm", "[[4, 64, 16], [4, 64, 32], [4, 32, 16], [], []]", "").flops,
        262144.0 + 4096.0);
    // matmul with a broadcast batch: [2,3,64,32]x[32,16] -> 2·6·64·16·32 = 393,216.
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::matmul", "[[2, 3, 64, 32], [32, 16]]", "").flops, 393216.0);
    // Seed spec §1.3 (L792): dense 512->1024 at batch 64 = 33.6 M MACs = 67.1 MFLOP.
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::linear", "[[64, 512], [1024, 512]]", "").flops, 67108864.0);
    // linear with bias over [2,8,1024] -> rows 16: 2·16·4096·1024 + 16·4096 = 134,283,264.
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::linear", "[[2, 8, 1024], [4096, 1024], [4096]]", "").flops,
                     134283264.0);
}

TEST(OpCost, ConvolutionAndAttention) {
    // conv2d x[64,3,224,224] w[64,3,7,7], "same" output: 2·64·64·224·224·3·49 = 60,423,143,424.
    OpCostEstimate conv = estimateOpCost(
        "aten::cudnn_convolution", "[[64, 3, 224, 224], [64, 3, 7, 7], [], [], []]", R"(["float", "float"])");
    ASSERT_TRUE(conv.known);
    EXPECT_DOUBLE_EQ(conv.flops, 60423143424.0);
    // Seed spec T06: GPT-2 layer, B=32, S=1024, 25 heads, d_head=64: QK^T + A·V = 4·B·H·S²·d = 214.7 GFLOP.
    OpCostEstimate sdpa = estimateOpCost("aten::scaled_dot_product_attention",
                                         "[[32, 25, 1024, 64], [32, 25, 1024, 64], [32, 25, 1024, 64]]",
                                         R"(["c10::Half", "c10::Half", "c10::Half"])");
    ASSERT_TRUE(sdpa.known);
    EXPECT_DOUBLE_EQ(sdpa.flops, 214748364800.0);
    EXPECT_EQ(sdpa.precision, Precision::FP16);
    // Four [32,25,1024,64] FP16 tensors read/written once: 4·32·25·1024·64·2 bytes.
    EXPECT_DOUBLE_EQ(sdpa.bytes, 4.0 * 32 * 25 * 1024 * 64 * 2);
    // The flash kernel op takes [B, S, H, D]: the same FLOPs.
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::_flash_attention_forward",
                                    "[[32, 1024, 25, 64], [32, 1024, 25, 64], [32, 1024, 25, 64]]", "")
                         .flops,
                     214748364800.0);
}

TEST(OpCost, NormsSoftmaxAndElementwise) {
    // layer_norm over [8,1024]: 5·8192 = 40,960 FLOPs; bytes 2·8192·4 + 2·1024·4 = 73,728.
    OpCostEstimate ln = estimateOpCost("aten::layer_norm", "[[8, 1024], [], [1024], [1024], [], []]",
                                       R"(["float", "", "float", "float", "Scalar", "bool"])");
    ASSERT_TRUE(ln.known);
    EXPECT_DOUBLE_EQ(ln.flops, 40960.0);
    EXPECT_DOUBLE_EQ(ln.bytes, 73728.0);
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::_softmax", "[[8, 1024], [], []]", "").flops, 40960.0);
    // add [8,1024] + [8,1024]: 8192 FLOPs, bytes 3·8192·4 = 98,304 (two reads, one write).
    OpCostEstimate add =
        estimateOpCost("aten::add", "[[8, 1024], [8, 1024], []]", R"(["float", "float", "Scalar"])");
    EXPECT_DOUBLE_EQ(add.flops, 8192.0);
    EXPECT_DOUBLE_EQ(add.bytes, 98304.0);
    EXPECT_NEAR(add.flops / add.bytes, 1.0 / 12.0, 1e-12);  // far below any ridge: memory-bound
    // In-place add_ writes into its first input: 2·8192·4 = 65,536 bytes.
    EXPECT_DOUBLE_EQ(
        estimateOpCost("aten::add_", "[[8, 1024], [8, 1024], []]", R"(["float", "float"])").bytes, 65536.0);
    // Broadcast add [8,1024] + [1024]: output 8192 elements.
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::mul", "[[8, 1024], [1024]]", "").flops, 8192.0);
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::gelu", "[[8, 1024]]", "").flops, 4.0 * 8192);
}

TEST(OpCost, UnknownOpsAndBadInputAreNotCosted) {
    EXPECT_FALSE(estimateOpCost("aten::index_select", "[[8, 1024], [], [4]]", "").known);
    EXPECT_FALSE(estimateOpCost("aten::mm", "", "").known);
    EXPECT_FALSE(estimateOpCost("aten::mm", "[[8, 1024]", "").known);
    EXPECT_FALSE(estimateOpCost("aten::mm", "[[8, 1024]]", "").known);  // missing second operand
    EXPECT_FALSE(estimateOpCost("aten::mm", "[[99999999999999999999, 2], [2, 2]]", "").known);
}

TEST(OpCost, AttributesOpCostToLaunchedKernelsByTime) {
    TraceBuilder b;
    // aten::linear (no formula used: its child addmm carries the cost) -> addmm launches two kernels.
    b.cpuOp("aten::linear", 0, 100, 1, "[[8, 1024], [4096, 1024], [4096]]", R"(["float", "float", "float"])");
    b.cpuOp("aten::addmm", 5, 95, 1, "[[4096], [8, 1024], [1024, 4096], [], []]",
            R"(["float", "float", "float"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.apiCall("cudaLaunchKernel", 30, 40, 2);
    b.kernel("ampere_sgemm_128x64_tn", 100, 130, 0, 7, 1);  // 30 ns
    b.kernel("splitKreduce_kernel", 130, 140, 0, 7, 2);     // 10 ns
    // Backward: the autograd node launches through aten::mm, which is costed.
    b.cpuOp("autograd::engine::evaluate_function: AddmmBackward0", 200, 300);
    b.cpuOp("aten::mm", 210, 290, 1, "[[8, 4096], [4096, 1024]]", R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 220, 230, 3);
    b.kernel("ampere_sgemm_64x64_nt", 300, 400, 0, 7, 3);
    // A kernel under an op without any formula gets nothing.
    b.cpuOp("aten::index_select", 500, 510, 1, "[[8, 1024], [], [4]]", "");
    b.apiCall("cudaLaunchKernel", 501, 502, 4);
    b.kernel("indexSelectLargeIndex", 510, 520, 0, 7, 4);
    core::TraceModel model = b.build();
    OpCostResult costs = attributeOpCosts(model);
    EXPECT_EQ(costs.opsWithShapes, 4);
    EXPECT_EQ(costs.opsCosted, 2);
    EXPECT_EQ(costs.kernelsCosted, 3);
    const double addmmFlops = 2.0 * 8 * 4096 * 1024 + 8 * 4096;
    EXPECT_DOUBLE_EQ(costs.kernelFlops[0], addmmFlops * 0.75);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[1], addmmFlops * 0.25);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[2], 2.0 * 8 * 1024 * 4096);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[3], 0.0);
    EXPECT_EQ(costs.kernelPrecision[0], static_cast<std::int8_t>(Precision::FP32));
    EXPECT_DOUBLE_EQ(costs.totalFlops, addmmFlops + 2.0 * 8 * 1024 * 4096);
}

// Given the kernel classes, an op's FLOPs go to its GEMM / convolution / attention kernels alone: a
// convolution's layout transform (a copy kernel) once drew FLOPs by its time and sat on the
// roofline as a "copy" point at 44 TFLOP/s on a V100 (rn50-nw0). Bytes are still split over all.
TEST(OpCost, FlopsGoToTheMatmulKernelsOfAnOp) {
    TraceBuilder b;
    b.cpuOp("aten::mm", 0, 100, 1, "[[64, 64], [64, 64]]", R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.apiCall("cudaLaunchKernel", 30, 40, 2);
    b.apiCall("cudaLaunchKernel", 50, 60, 3);
    b.kernel("ampere_sgemm_128x64_tn", 100, 130, 0, 7, 1);                    // 30 ns, GEMM
    b.kernel("volta_sgemm_64x64_nn", 130, 140, 0, 7, 2);                      // 10 ns, GEMM
    b.kernel("void cudnn::ops::nchwToNhwcKernel<float>", 140, 200, 0, 7, 3);  // 60 ns, a transform
    b.cpuOp("aten::add", 300, 400, 1, "[[64, 64], [64, 64], []]", R"(["float", "float", "Scalar"])");
    b.apiCall("cudaLaunchKernel", 310, 320, 4);
    b.kernel("vectorized_elementwise_kernel", 400, 410, 0, 7, 4);
    core::TraceModel model = b.build();
    const KernelStatsResult stats = computeKernelStats(model);
    ASSERT_NE(stats.kernelClass[2], KernelClass::Gemm);
    const OpCostResult costs = attributeOpCosts(model, &stats.kernelClass);
    const double mmFlops = 2.0 * 64 * 64 * 64;
    EXPECT_DOUBLE_EQ(costs.kernelFlops[0], mmFlops * 0.75);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[1], mmFlops * 0.25);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[2], 0.0);
    EXPECT_GT(costs.kernelBytes[2], 0.0);  // it moves memory all the same
    EXPECT_EQ(costs.kernelSharers[0], 2);
    // An op without matmul-class kernels keeps its FLOPs on what it launched.
    EXPECT_DOUBLE_EQ(costs.kernelFlops[3], 64.0 * 64);
    EXPECT_DOUBLE_EQ(costs.totalFlops, mmFlops + 64.0 * 64);
}

TEST(OpCost, Fp32MatmulOnTf32TensorCoresIsTf32) {
    EXPECT_TRUE(kernelNameSaysTf32("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32"));
    EXPECT_TRUE(kernelNameSaysTf32("cutlass_80_tensorop_TF32_s1688gemm_128x128"));
    EXPECT_FALSE(kernelNameSaysTf32("ampere_sgemm_128x64_tn"));
    TraceBuilder b;
    b.cpuOp("aten::mm", 0, 100, 1, "[[64, 64], [64, 64]]", R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.kernel("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", 100, 130, 0, 7, 1);
    b.cpuOp("aten::mm", 200, 300, 1, "[[64, 64], [64, 64]]", R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 210, 220, 2);
    b.kernel("ampere_sgemm_128x64_tn", 300, 330, 0, 7, 2);
    core::TraceModel model = b.build();
    OpCostResult costs = attributeOpCosts(model);
    EXPECT_EQ(costs.kernelPrecision[0], static_cast<std::int8_t>(Precision::TF32));
    EXPECT_EQ(costs.kernelPrecision[1], static_cast<std::int8_t>(Precision::FP32));
}

// A convolution's backward op records the gradient of its output, whose shape is the output's: the
// backward is costed from it (grad input + grad weight, twice the forward), and the forward call
// with the same input and weight shapes learns its output size from it. Before, Kineto's empty stride
// list made ResNet-50's stride-2 convolutions count 4x and left their backward uncosted (rn50-nw0:
// 0.788 TFLOP per step now, the textbook 3 × 2 × 4.1 GMAC × 32 images; MFU 14.8 % -> 28.3 %).
// gpt-kineto's attention (PyTorch 2.11, cuDNN SDPA, is_causal recorded as "True"): B 16, H 16,
// S = Sk = 1024, D 64. A causal kernel computes S·(S+1)/2 of the S² query-key pairs.
TEST(OpCost, CausalAttentionCountsTheUnmaskedPairs) {
    const std::string qkv = "[16, 16, 1024, 64], [16, 16, 1024, 64], [16, 16, 1024, 64]";
    const std::string types =
        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "Scalar", "Scalar", "", "Scalar"])";
    const std::string shapes = "[" + qkv + ", [], [], [], [], []]";
    const double full = 4.0 * 16 * 16 * 1024 * 1024 * 64;
    const double causal = 4.0 * 16 * 16 * (1024.0 * 1025 / 2) * 64;
    const OpCostEstimate masked = estimateOpCost("aten::scaled_dot_product_attention", shapes, types, nullptr,
                                                 R"(["", "", "", "", "0.", "True", "", "False"])");
    ASSERT_TRUE(masked.known);
    EXPECT_DOUBLE_EQ(masked.flops, causal);
    EXPECT_NE(masked.formula.find("causal"), std::string::npos) << masked.formula;
    // Bytes do not shrink: every query, key and value is still read.
    const OpCostEstimate open = estimateOpCost("aten::scaled_dot_product_attention", shapes, types, nullptr,
                                               R"(["", "", "", "", "0.", "False", "", "False"])");
    EXPECT_DOUBLE_EQ(open.flops, full);
    EXPECT_DOUBLE_EQ(open.bytes, masked.bytes);
    // Not recorded (before PyTorch 2.1, or an unknown schema): every pair, and the formula says so.
    const OpCostEstimate unknown = estimateOpCost("aten::scaled_dot_product_attention", shapes, types);
    EXPECT_DOUBLE_EQ(unknown.flops, full);
    EXPECT_NE(unknown.formula.find("mask not recorded"), std::string::npos) << unknown.formula;
    // A value that is not a bool where is_causal should be: not trusted.
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::scaled_dot_product_attention", shapes, types, nullptr,
                                    R"(["", "", "", "", "0.", "0.5", "", "False"])")
                         .flops,
                     full);
    // Scalars that do not line up with the inputs are ignored.
    EXPECT_DOUBLE_EQ(
        estimateOpCost("aten::scaled_dot_product_attention", shapes, types, nullptr, R"(["", "True"])").flops,
        full);
}

TEST(OpCost, AttentionBackwardIsTwiceTheForward) {
    // gpt-kineto's aten::_cudnn_attention_backward: (grad_out, query, key, value, out, logsumexp, ...).
    const std::string t = "[16, 16, 1024, 64]";
    const std::string shapes = "[" + t + ", " + t + ", " + t + ", " + t + ", " + t +
                               ", [16, 16, 1024, 1], [], [], [], [], [], [], [], [], [], []]";
    const std::string types =
        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float", "long int", "long int", "", "", "", "Scalar", "Scalar", "Scalar", "Scalar", ""])";
    const OpCostEstimate backward =
        estimateOpCost("aten::_cudnn_attention_backward", shapes, types, nullptr,
                       R"(["", "", "", "", "", "", "", "", "", "", "", "1024", "1024", "0.", "True", ""])");
    ASSERT_TRUE(backward.known);
    EXPECT_DOUBLE_EQ(backward.flops, 2 * 4.0 * 16 * 16 * (1024.0 * 1025 / 2) * 64);
    EXPECT_EQ(backward.precision, Precision::BF16);
    // Reads dO, Q, K, V and O; writes dQ, dK and dV: eight [16,16,1024,64] bf16 tensors.
    EXPECT_DOUBLE_EQ(backward.bytes, 8.0 * 16 * 16 * 1024 * 64 * 2);
    // The flash kernel's backward op takes [B, S, H, D] after the gradient: H 8, S 2048 here, so
    // reading it as [B, H, S, D] would count 8² where 2048² belongs.
    const std::string bshd = "[2, 2048, 8, 128]";
    const OpCostEstimate flash = estimateOpCost(
        "aten::_flash_attention_backward",
        "[" + bshd + ", " + bshd + ", " + bshd + ", " + bshd + ", " + bshd +
            ", [2, 8, 2048], [], [], [], [], [], [], [], [], [], [], []]",
        "", nullptr,
        R"(["", "", "", "", "", "", "", "", "2048", "2048", "0.", "False", "", "", "", "", ""])");
    EXPECT_DOUBLE_EQ(flash.flops, 2 * 4.0 * 2 * 8 * 2048 * 2048 * 128);
}

TEST(OpCost, MemoryEfficientAttentionMaskTypes) {
    // _efficient_attention_forward(query, key, value, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
    // max_seqlen_k, dropout_p, custom_mask_type, compute_log_sumexp, scale, seqlen_k, window_size),
    // [B, S, H, D]: 4 queries against 6 keys.
    const std::string shapes =
        "[[1, 4, 1, 8], [1, 6, 1, 8], [1, 6, 1, 8], [], [], [], [], [], [], [], [], [], [], []]";
    auto flopsWithMask = [&](const char* maskType) {
        const std::string concrete = std::string(R"(["", "", "", "", "", "", "4", "6", "0.", ")") + maskType +
                                     R"(", "False", "", "", ""])";
        return estimateOpCost("aten::_efficient_attention_forward", shapes, "", nullptr, concrete).flops;
    };
    const double perPair = 4.0 * 8;  // 2·D for Q·K^T and 2·D for A·V
    EXPECT_DOUBLE_EQ(flopsWithMask("0"), 24 * perPair);
    // Top left: query i sees keys 0..i, 1 + 2 + 3 + 4 = 10 pairs.
    EXPECT_DOUBLE_EQ(flopsWithMask("1"), 10 * perPair);
    // Bottom right: query i sees keys 0..i+2, 3 + 4 + 5 + 6 = 18 pairs.
    EXPECT_DOUBLE_EQ(flopsWithMask("2"), 18 * perPair);
    EXPECT_DOUBLE_EQ(flopsWithMask("7"), 24 * perPair);  // not a mask type: every pair
}

TEST(OpCost, ConvolutionOutputFromItsRecordedStride) {
    // aten::convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    // groups), a ResNet stem: x[32,3,224,224], w[64,3,7,7], stride 2, padding 3 -> out 112x112.
    const std::string shapes = "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]";
    const std::string types =
        R"(["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"])";
    const double stem = 2.0 * 32 * 64 * 112 * 112 * 3 * 49;
    const OpCostEstimate conv =
        estimateOpCost("aten::convolution", shapes, types, nullptr,
                       R"(["", "", "", "[2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1"])");
    ASSERT_TRUE(conv.known);
    EXPECT_DOUBLE_EQ(conv.flops, stem);
    EXPECT_NE(conv.formula.find("recorded stride"), std::string::npos) << conv.formula;
    // The recorded arguments win over an output the backward ops suggest.
    ConvOutputShapes outputs;
    outputs.add({32, 3, 224, 224}, {64, 3, 7, 7}, {32, 64, 224, 224});
    EXPECT_DOUBLE_EQ(estimateOpCost("aten::convolution", shapes, types, &outputs,
                                    R"(["", "", "", "[2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1"])")
                         .flops,
                     stem);
    // cuDNN's op records padding before stride; a dilation of 2 widens the 3x3 kernel to 5x5:
    // (56 + 2·2 - 2·2 - 1) / 1 + 1 = 56.
    const OpCostEstimate dilated = estimateOpCost(
        "aten::cudnn_convolution", "[[8, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []]",
        R"(["float", "float"])", nullptr,
        R"(["", "", "[2, 2]", "[1, 1]", "[2, 2]", "1", "False", "False", "True"])");
    EXPECT_DOUBLE_EQ(dilated.flops, 2.0 * 8 * 64 * 56 * 56 * 64 * 9);
    // A transposed convolution (weight [C, O/g, k, k]) is costed at its input's size, its exact count.
    const OpCostEstimate transposed =
        estimateOpCost("aten::convolution", "[[8, 64, 28, 28], [64, 32, 2, 2], [], [], [], [], [], [], []]",
                       R"(["float", "float"])", nullptr,
                       R"(["", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[0, 0]", "1"])");
    EXPECT_DOUBLE_EQ(transposed.flops, 2.0 * 8 * 64 * 28 * 28 * 32 * 4);
    EXPECT_NE(transposed.formula.find("transposed"), std::string::npos) << transposed.formula;
    // Arguments that do not parse, or a kernel larger than the padded input: the estimate as before.
    for (const char* concrete :
         {R"(["", "", "", "same", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1"])",
          R"(["", "", "", "[2, 2]", "[-1, -1]", "[1, 1]", "False", "[0, 0]", "1"])",
          R"(["", "", "", "[2, 2, 2]", "[3, 3]", "[1, 1]", "False", "[0, 0]", "1"])"}) {
        const OpCostEstimate fallback = estimateOpCost("aten::convolution", shapes, types, nullptr, concrete);
        EXPECT_NE(fallback.formula.find("estimate"), std::string::npos)
            << concrete << ": " << fallback.formula;
    }
    EXPECT_NE(
        estimateOpCost("aten::convolution", "[[1, 3, 4, 4], [8, 3, 7, 7], [], [], [], [], [], [], []]", "",
                       nullptr, R"(["", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"])")
            .formula.find("estimate"),
        std::string::npos);
}

TEST(OpCost, ScalarArgumentsAreKeptApartWhenCosting) {
    // Two calls with the same name, shapes and types, one causal: each keeps its own count.
    const std::string qkv = "[[2, 4, 128, 64], [2, 4, 128, 64], [2, 4, 128, 64], [], [], [], [], []]";
    TraceBuilder b;
    b.cpuOp("aten::scaled_dot_product_attention", 0, 100, 1, qkv, "",
            R"(["", "", "", "", "0.", "True", "", "False"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.kernel("flash_fwd_kernel", 100, 200, 0, 7, 1);
    b.cpuOp("aten::scaled_dot_product_attention", 300, 400, 1, qkv, "",
            R"(["", "", "", "", "0.", "False", "", "False"])");
    b.apiCall("cudaLaunchKernel", 310, 320, 2);
    b.kernel("flash_fwd_kernel", 400, 500, 0, 7, 2);
    const core::TraceModel model = b.build();
    const OpCostResult costs = attributeOpCosts(model);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[0], 4.0 * 2 * 4 * (128.0 * 129 / 2) * 64);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[1], 4.0 * 2 * 4 * 128 * 128 * 64);
}

TEST(OpCost, ConvolutionOutputAndBackwardFromTheGradient) {
    // The stem: x[32,3,224,224], w[64,3,7,7], stride 2 -> out [32,64,112,112].
    const double forward = 2.0 * 32 * 64 * 112 * 112 * 3 * 49;
    const std::string x = "[32, 3, 224, 224]";
    const std::string w = "[64, 3, 7, 7]";
    const std::string out = "[32, 64, 112, 112]";
    // PyTorch 1.8's cudnn_convolution_backward(self, grad_output, weight, ...); since 1.11
    // convolution_backward(grad_output, input, weight, ...).
    const OpCostEstimate old =
        estimateOpCost("aten::cudnn_convolution_backward", "[" + x + ", " + out + ", " + w + ", [], [], []]",
                       R"(["float", "float", "float"])");
    ASSERT_TRUE(old.known);
    EXPECT_DOUBLE_EQ(old.flops, 2 * forward);
    const OpCostEstimate current =
        estimateOpCost("aten::convolution_backward", "[" + out + ", " + x + ", " + w + ", [], [], []]",
                       R"(["float", "float", "float"])");
    EXPECT_DOUBLE_EQ(current.flops, 2 * forward);
    // A transposed convolution (weight [in, out, k, k], the output grows) is not costed as one.
    EXPECT_FALSE(estimateOpCost("aten::convolution_backward",
                                "[[32, 64, 56, 56], [32, 64, 28, 28], [64, 64, 2, 2], [], [], []]",
                                R"(["float", "float", "float"])")
                     .known);
    // Shapes that do not fit a convolution (the gradient's channels are not the weight's outputs).
    EXPECT_FALSE(estimateOpCost("aten::convolution_backward", "[" + x + ", " + x + ", " + w + "]", "").known);

    TraceBuilder b;
    b.cpuOp("aten::cudnn_convolution", 0, 100, 1, "[" + x + ", " + w + ", [], [], []]",
            R"(["float", "float"])");
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.kernel("implicit_convolve_sgemm", 100, 200, 0, 7, 1);
    b.cpuOp("aten::cudnn_convolution_backward", 300, 400, 1, "[" + x + ", " + out + ", " + w + ", [], []]",
            R"(["float", "float", "float"])");
    b.cpuOp("aten::cudnn_convolution_backward_input", 310, 340, 1, "[[], " + out + ", " + w + ", []]",
            R"(["", "float", "float"])");
    b.apiCall("cudaLaunchKernel", 320, 330, 2);
    b.kernel("dgrad_engine", 400, 500, 0, 7, 2);
    b.cpuOp("aten::cudnn_convolution_backward_weight", 350, 390, 1, "[[], " + out + ", " + x + ", []]",
            R"(["", "float", "float"])");
    b.apiCall("cudaLaunchKernel", 360, 370, 3);
    b.kernel("wgrad_alg0_engine", 500, 600, 0, 7, 3);
    core::TraceModel model = b.build();
    const ConvOutputShapes outputs = convOutputShapesFromBackward(model);
    ASSERT_NE(outputs.find({32, 3, 224, 224}, {64, 3, 7, 7}), nullptr);
    EXPECT_EQ(*outputs.find({32, 3, 224, 224}, {64, 3, 7, 7}), (Shape{32, 64, 112, 112}));
    OpCostResult costs = attributeOpCosts(model);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[0], forward);  // not 4x: the output is half the input's size
    // The backward's two children have no formula of their own: both resolve to the costed parent.
    EXPECT_DOUBLE_EQ(costs.kernelFlops[1], forward);
    EXPECT_DOUBLE_EQ(costs.kernelFlops[2], forward);
    EXPECT_DOUBLE_EQ(costs.totalFlops, 3 * forward);
}

TEST(OpCost, ConvolutionOutputsSeenTwiceDifferentlyAreNotUsed) {
    ConvOutputShapes outputs;
    outputs.add({8, 64, 56, 56}, {64, 64, 3, 3}, {8, 64, 56, 56});
    outputs.add({8, 64, 56, 56}, {64, 64, 3, 3}, {8, 64, 56, 56});  // the same again: kept
    EXPECT_NE(outputs.find({8, 64, 56, 56}, {64, 64, 3, 3}), nullptr);
    outputs.add({8, 64, 56, 56}, {64, 64, 3, 3}, {8, 64, 28, 28});  // a stride-2 twin: ambiguous
    EXPECT_EQ(outputs.find({8, 64, 56, 56}, {64, 64, 3, 3}), nullptr);
    // The forward then falls back to the input's size, and says so.
    const OpCostEstimate conv = estimateOpCost("aten::cudnn_convolution", "[[8, 64, 56, 56], [64, 64, 3, 3]]",
                                               R"(["float", "float"])", &outputs);
    EXPECT_NE(conv.formula.find("estimate"), std::string::npos) << conv.formula;
    EXPECT_DOUBLE_EQ(conv.flops, 2.0 * 8 * 64 * 56 * 56 * 64 * 9);
}

// A matrix op runs in its operands' dtype: an fp32 side input does not make it FP32 (gpt-kineto's
// cuDNN attention backward, whose logsumexp is fp32, was measured against the TF32 roof).
TEST(OpCost, MatrixOpsTakeTheirOperandsPrecision) {
    const OpCostEstimate addmm =
        estimateOpCost("aten::addmm", "[[4096], [8, 1024], [1024, 4096], [], []]",
                       R"(["float", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])");
    ASSERT_TRUE(addmm.known);
    EXPECT_EQ(addmm.precision, Precision::BF16);
    const OpCostEstimate attention = estimateOpCost(
        "aten::_scaled_dot_product_flash_attention_backward",
        "[[16, 16, 1024, 64], [16, 16, 1024, 64], [16, 16, 1024, 64], [16, 16, 1024, 64], [16, 16, 1024]]",
        R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float"])");
    ASSERT_TRUE(attention.known);
    EXPECT_EQ(attention.precision, Precision::BF16);
    // Elementwise ops keep the widest input: an fp32 operand makes the math fp32.
    const OpCostEstimate add =
        estimateOpCost("aten::add", "[[64, 64], [64, 64], []]", R"(["c10::BFloat16", "float", "Scalar"])");
    EXPECT_EQ(add.precision, Precision::FP32);
}

TEST(OpCost, EmbeddingTablesAreCountedOncePerShape) {
    TraceBuilder b;
    // The token table looked up twice, a position table, and a call without shapes.
    b.cpuOp("aten::embedding", 0, 10, 1, "[[32768, 1024], [16, 1024], [], [], []]");
    b.cpuOp("aten::embedding", 20, 30, 1, "[[32768, 1024], [16, 1024], [], [], []]");
    b.cpuOp("aten::embedding", 40, 50, 1, "[[1024, 1024], [1024], [], [], []]");
    b.cpuOp("aten::embedding", 60, 70, 1);
    b.cpuOp("aten::embedding_backward", 80, 90, 1, "[[16, 1024, 1024], [16, 1024], [], [], [], []]");
    EXPECT_DOUBLE_EQ(embeddingTableParameters(b.build()), 32768.0 * 1024 + 1024.0 * 1024);
    EXPECT_DOUBLE_EQ(embeddingTableParameters(TraceBuilder().build()), 0.0);
}

TEST(OpCost, NoShapesNoCosts) {
    TraceBuilder b;
    b.cpuOp("aten::mm", 0, 10);
    b.apiCall("cudaLaunchKernel", 1, 2, 1);
    b.kernel("gemm", 5, 10, 0, 7, 1);
    core::TraceModel model = b.build();
    OpCostResult costs = attributeOpCosts(model);
    EXPECT_FALSE(costs.shapesRecorded());
    EXPECT_EQ(costs.kernelFlops.size(), 1u);
    EXPECT_EQ(costs.kernelFlops[0], 0.0);
}

}  // namespace
}  // namespace chokepoint::analysis

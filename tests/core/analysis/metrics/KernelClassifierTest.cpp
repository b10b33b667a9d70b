#include "core/analysis/metrics/KernelClassifier.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

struct Case {
    const char* name;
    KernelClass expected;
    bool tensorCore;
};

TEST(KernelClassifier, NameTable) {
    const Case cases[] = {
        {"ampere_sgemm_128x64_tn", KernelClass::Gemm, false},
        {"volta_sgemm_128x64_nn", KernelClass::Gemm, false},
        {"volta_h884gemm_64x64_ldg8_nn", KernelClass::Gemm, true},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_"
         "off_kernel__5x_cublas",
         KernelClass::Gemm, true},
        {"void "
         "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_tn_align8>(Params)",
         KernelClass::Gemm, true},
        {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", KernelClass::Gemm, true},
        {"Cijk_Ailk_Bljk_SB_MT64x64x16_MI32x32x2x1_SN_1LDSB0", KernelClass::Gemm, true},
        {"nvjet_hsh_128x128_64x4_1x2_h_bz_coopA_NTN", KernelClass::Gemm, true},
        {"void flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>",
         KernelClass::Attention, true},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel)",
         KernelClass::Attention, true},
        {"implicit_convolve_sgemm", KernelClass::Convolution, false},
        {"volta_scudnn_128x64_relu_interior_nn_v1", KernelClass::Convolution, false},
        {"sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32",
         KernelClass::Convolution, true},
        {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>", KernelClass::Normalization,
         false},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>",
         KernelClass::Normalization, false},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
         "at::detail::Array<char*, 3>>",
         KernelClass::Elementwise, false},
        {"triton_poi_fused_add_gelu_0", KernelClass::Elementwise, false},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
         "float>>>",
         KernelClass::Reduction, false},
        {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false>",
         KernelClass::Reduction, false},
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", KernelClass::Communication, false},
        {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", KernelClass::Communication, false},
        {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>",
         KernelClass::Copy, false},
        {"my_custom_kernel", KernelClass::Other, false},
    };
    for (const Case& c : cases) {
        KernelClassification k = classifyKernelName(c.name);
        EXPECT_EQ(k.kernelClass, c.expected) << c.name << " -> " << toString(k.kernelClass);
        EXPECT_EQ(k.tensorCore, c.tensorCore) << c.name;
    }
}

TEST(KernelClassifier, LaunchingOpDecidesWhenTheNameSaysNothing) {
    KernelClassification k = classifyKernel("my_custom_kernel", "aten::mm");
    EXPECT_EQ(k.kernelClass, KernelClass::Gemm);
    EXPECT_TRUE(k.fromOp);
    EXPECT_EQ(classifyKernel("my_custom_kernel", "aten::native_layer_norm").kernelClass,
              KernelClass::Normalization);
    EXPECT_EQ(classifyKernel("my_custom_kernel", "aten::_softmax").kernelClass, KernelClass::Reduction);
    EXPECT_EQ(classifyKernel("my_custom_kernel", "aten::cudnn_convolution").kernelClass,
              KernelClass::Convolution);
    EXPECT_EQ(classifyKernel("my_custom_kernel", "aten::mul").kernelClass, KernelClass::Elementwise);
    EXPECT_EQ(classifyKernel("my_custom_kernel", "aten::_scaled_dot_product_flash_attention").kernelClass,
              KernelClass::Attention);
    // A name rule wins over the op.
    EXPECT_EQ(classifyKernel("ampere_sgemm_128x64_tn", "aten::add").kernelClass, KernelClass::Gemm);
    EXPECT_EQ(classifyKernel("my_custom_kernel", "").kernelClass, KernelClass::Other);
}

TEST(KernelClassifier, TopKernelsAndTopOps) {
    TraceBuilder b;
    b.cpuOp("aten::addmm", 0, 100);
    b.apiCall("cudaLaunchKernel", 10, 20, 1);
    b.apiCall("cudaLaunchKernel", 30, 40, 2);
    b.cpuOp("aten::addmm", 200, 300);
    b.apiCall("cudaLaunchKernel", 210, 220, 3);
    b.cpuOp("aten::relu", 400, 450);
    b.apiCall("cudaLaunchKernel", 410, 420, 4);
    b.kernel("ampere_sgemm_128x64_tn", 100, 400, 0, 7, 1);  // 300
    b.kernel("splitKreduce_kernel", 400, 450, 0, 7, 2);     // 50, launched by the same addmm
    b.kernel("ampere_sgemm_128x64_tn", 500, 600, 0, 7, 3);  // 100
    b.kernel("void at::native::vectorized_elementwise_kernel<4, relu>", 600, 650, 0, 7, 4);  // 50
    core::TraceModel model = b.build();
    KernelStatsResult stats = computeKernelStats(model);
    EXPECT_EQ(stats.totalKernelTimeNs, 500);
    ASSERT_EQ(stats.kernels.size(), 3u);
    EXPECT_EQ(model.text(stats.kernels[0].name), "ampere_sgemm_128x64_tn");
    EXPECT_EQ(stats.kernels[0].count, 2);
    EXPECT_EQ(stats.kernels[0].totalNs, 400);
    EXPECT_EQ(stats.kernels[0].meanNs, 200);
    EXPECT_EQ(stats.kernels[0].maxNs, 300);
    EXPECT_EQ(stats.kernels[0].minNs, 100);
    EXPECT_DOUBLE_EQ(stats.kernels[0].shareOfKernelTime, 0.8);
    EXPECT_EQ(stats.kernels[0].kernelClass, KernelClass::Gemm);
    EXPECT_EQ(stats.timeByClassNs[static_cast<std::size_t>(KernelClass::Gemm)], 400);
    EXPECT_EQ(stats.timeByClassNs[static_cast<std::size_t>(KernelClass::Reduction)], 50);
    EXPECT_EQ(stats.kernelsWithOp, 4);
    ASSERT_EQ(stats.ops.size(), 2u);
    EXPECT_EQ(model.text(stats.ops[0].name), "aten::addmm");
    EXPECT_EQ(stats.ops[0].count, 2);
    EXPECT_EQ(stats.ops[0].kernelCount, 3);
    EXPECT_EQ(stats.ops[0].gpuTimeNs, 450);
    EXPECT_EQ(stats.ops[0].maxGpuTimeNs, 350);
    EXPECT_EQ(stats.ops[0].kernelClass, KernelClass::Gemm);
    EXPECT_EQ(stats.ops[0].example, (core::CpuOpId{0}));
    EXPECT_EQ(model.text(stats.ops[1].name), "aten::relu");
}

}  // namespace
}  // namespace chokepoint::analysis

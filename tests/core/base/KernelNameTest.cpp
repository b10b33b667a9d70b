#include "core/base/KernelName.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace chokepoint::core;

namespace {

// Kernel names as recorded in the public traces of ../shared/traces (named per case).
const std::vector<std::pair<std::string, std::string>>& realNames() {
    static const std::vector<std::pair<std::string, std::string>> names = {
        // kineto-rn50-nw0: a PyTorch elementwise kernel (Kineto records demangled names).
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
         "3>)",
         "at::native::vectorized_elementwise_kernel<4, CUDAFunctor_add, Array>"},
        // hta-trace-diff-control: CUTLASS, whose single template argument names the kernel.
        {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1>"
         "(cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1::Params)",
         "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nt_align1>"},
        // kineto-rn50-nw0: cuBLAS / cuDNN kernels are plain names.
        {"volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn"},
        {"cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1",
         "cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1"},
        // hta-trace-diff-control: NCCL, a plain function with parameters.
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "ncclKernel_AllReduce_RING_LL_Sum_float"},
        // hta-trace-diff-test: an anonymous namespace.
        {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>(float*, "
         "float const*, int, int, int, bool const*, int, bool)",
         "(anonymous namespace)::softmax_warp_forward<float, float, float, 10, true, false>"},
        {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>"
         "(float*, float*, float*, long*, float*, bool, long, long, long, long)",
         "at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>"},
        // hta-trace-diff-control: a return type that is itself a template with parentheses; a
        // long argument list folds whole.
        {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, "
         "false, true, false, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
         "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >"
         "(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
         "cublasGemvTensorStridedBatched<float "
         "const>, cublasGemvTensorStridedBatched<float>, float>)",
         "internal::gemvx::kernel<…>"},
        // kineto-rn50-nw0: lambdas inside the template arguments.
        {"void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl<float>"
         "(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}, at::detail::Array<char*, 3> >"
         "(int, at::native::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
         "float)::{lambda(float, "
         "float)#1}, at::detail::Array<char*, 3>)",
         "at::native::vectorized_elementwise_kernel<4, threshold_kernel_impl, Array>"},
        // hta-trace-diff-control: a template argument of one plain type is kept.
        {"void fbgemm_gpu::_offsets_range_cuda_kernel<long>(long, long, long const*, long*)",
         "fbgemm_gpu::_offsets_range_cuda_kernel<long>"},
        // nvfuser-nsys (Nsight Systems demangledName): "<unnamed>" namespaces, "(int)4" arguments.
        {"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<c10::Half>, "
         "std::array<char *, (unsigned long)1>>(int, T2, T3)",
         "at::native::vectorized_elementwise_kernel<4, FillFunctor, array>"},
        {"<unnamed>::nvfuser_pointwise_f0_c1_r0_g4(<unnamed>::Tensor<<unnamed>::__bfloat, (int)3, (int)3>, "
         "<unnamed>::Tensor<float, (int)3, (int)3>)",
         "<unnamed>::nvfuser_pointwise_f0_c1_r0_g4"},
        // pipit-nsys: a C kernel.
        {"saxpy(double *, double *, double *, double, int)", "saxpy"},
        // hta-amd-mi250: a Tensile kernel name, unchanged.
        {"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1",
         "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1"},
    };
    return names;
}

}  // namespace

TEST(KernelName, ShortensRealNames) {
    for (const auto& [full, expected] : realNames()) {
        EXPECT_EQ(shortKernelName(full), expected) << full;
    }
}

TEST(KernelName, ShortNameIsNeverLongerAndNeverEmpty) {
    for (const auto& [full, expected] : realNames()) {
        const std::string shortName = shortKernelName(full);
        EXPECT_FALSE(shortName.empty()) << full;
        EXPECT_LE(shortName.size(), full.size()) << full;
    }
}

TEST(KernelName, InstancesOfOneGenericKernelStayApart) {
    // kineto-rn50-nw0: two instances of the same PyTorch kernel differ only in the functor.
    const std::string mul =
        "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
        "at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 3> >(int, "
        "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
        "at::detail::Array<char*, 3>)";
    const std::string log =
        "void at::native::vectorized_elementwise_kernel<4, "
        "at::native::log_kernel_cuda(at::TensorIteratorBase&)::"
        "{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
        "at::detail::Array<char*, 2> >(int, "
        "at::native::log_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::"
        "operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, "
        "2>)";
    EXPECT_EQ(shortKernelName(mul), "at::native::vectorized_elementwise_kernel<4, BinaryFunctor, Array>");
    EXPECT_EQ(shortKernelName(log), "at::native::vectorized_elementwise_kernel<4, log_kernel_cuda, Array>");
}

TEST(KernelName, KeepsParenthesesThatAreNotParameters) {
    EXPECT_EQ(shortKernelName("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD (Pageable -> Device)");
    EXPECT_EQ(shortKernelName("  volta_sgemm_64x64_nt  "), "volta_sgemm_64x64_nt");
    EXPECT_EQ(shortKernelName("void foo::operator()(int) const"), "foo::operator()");
}

TEST(KernelName, NamesCutShortAreFolded) {
    // Some exporters truncate long names; the cut may fall inside the template or the parameters.
    EXPECT_EQ(shortKernelName("void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::nat"),
              "at::native::reduce_kernel<…>");
    EXPECT_EQ(
        shortKernelName("void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_"
                        "per_row_1<float, float, float, 1ul, 16>(at::GenericPackedTensorAccessor<float"),
        "split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_warp_per_row_1<float, float, "
        "float, 1ul, 16>");
    EXPECT_EQ(shortKernelName(""), "");
    EXPECT_EQ(shortKernelName("<"), "<…>");
}

TEST(KernelName, DemanglesItaniumNames) {
    if (!kernelDemanglerAvailable()) {
        GTEST_SKIP() << "no abi::__cxa_demangle in this C++ runtime";
    }
    EXPECT_EQ(demangleKernelName("_Z5saxpyifPfS_"), "saxpy(int, float, float*, float*)");
    EXPECT_EQ(shortKernelName("_Z5saxpyifPfS_"), "saxpy");
    // Not a valid mangled name: kept as it is.
    EXPECT_EQ(demangleKernelName("_Znot a symbol"), "_Znot a symbol");
    EXPECT_EQ(demangleKernelName("volta_sgemm_128x64_nn"), "volta_sgemm_128x64_nn");
}

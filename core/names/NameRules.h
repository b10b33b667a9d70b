#pragma once
// What the analyzer knows about names, in one table: GPU kernel names (class, library family,
// tensor-core use), the framework op that launched a kernel, host frames and ranges (data loading,
// input preparation, collectives, synchronization, compilation, checkpointing/logging/evaluation,
// garbage collection, optimizer, backward, compiled regions), runtime API calls (launch, copy,
// synchronize, graph launch) and thread names.
//
// Names are split into lower-case tokens (non-alphanumerics and lower->upper case changes split:
// "ncclDevKernel_AllReduce" -> nccl dev kernel all reduce) and rules match whole tokens or runs of
// tokens, never substrings: "convert" is no "conv", aten::broadcast_tensors is no collective.
// The regression corpus of real names with their expected classes is
// tests/names/data/name_corpus.tsv (NameRulesCorpusTest checks every row).
// Plain C++20; pure functions.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace chokepoint::names {

// Lower-case alphanumeric tokens of a name (see above).
std::vector<std::string> tokens(std::string_view name);

// --- Kernels ------------------------------------------------------------------------------------

enum class KernelClass : std::uint8_t {
    Gemm = 0,
    Convolution,
    Attention,
    Elementwise,
    Normalization,
    Reduction,  // reductions, softmax, pooling, scans and sorts
    Communication,
    Copy,  // copies, concatenation, layout transposes
    Memset,
    Other,
};
inline constexpr std::size_t kKernelClassCount = 10;

// Which library or compiler produced a kernel (where the name says so).
enum class KernelFamily : std::uint8_t {
    Unknown = 0,
    Aten,         // PyTorch's own CUDA kernels (at::native::, elementwise_kernel, reduce_kernel)
    Triton,       // Triton / TorchInductor (triton_poi_, triton_red_, triton_per_, triton_tem_, triton__)
    Cublas,       // cuBLAS / cuBLASLt (ampere_sgemm, sm90_xmma_gemm_*_cublas, gemvx, cublasLt::)
    Nvjet,        // cuBLAS nvjet kernels (Hopper and later)
    Cutlass,      // CUTLASS 2.x / 3.x (cutlass_80_tensorop, cutlass3x_sm90, sm100)
    HipBlasLt,    // hipBLASLt / Tensile (Cijk_)
    Cudnn,        // cuDNN engines (scudnn, cudnn::, cask_cudnn, xmma conv)
    CudnnFusion,  // cuDNN runtime-fusion / graph API kernels (cudnn_generated_*)
    FlashAttention,
    Nvfuser,
    Cub,
    Nccl,  // NCCL and RCCL (RCCL keeps NCCL's kernel names)
    CudaGraph,
};

struct KernelNameInfo {
    KernelClass kernelClass = KernelClass::Other;
    KernelFamily family = KernelFamily::Unknown;
    bool tensorCore = false;  // the name shows an MMA / tensor-core (matrix-core) implementation
};

std::string_view toString(KernelFamily family);

KernelNameInfo classifyKernelName(std::string_view kernelName);
// Class implied by the framework op that launched a kernel ("aten::addmm" -> GEMM); Other when
// the op name says nothing.
KernelClass kernelClassFromOpName(std::string_view opName);
// NCCL / RCCL / HCCL / MSCCL collective kernels.
bool isCommunicationKernelName(std::string_view kernelName);
// Softmax kernels (a materialized attention's signature).
bool isSoftmaxKernelName(std::string_view kernelName);
// An Nsight Systems CUDA graph node ("CUDA graph 12" with --cuda-graph-trace=graph).
bool isCudaGraphKernelName(std::string_view kernelName);

// "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AllToAll", "SendRecv",
// "Barrier", "Gather", "Scatter", or "" when the name is not a collective. Accepts NCCL/RCCL
// kernel names and recorded collective names ("allreduce", "_allgather_base", "nccl:all_reduce").
std::string collectiveKindFromName(std::string_view name);

// Holistic Trace Analysis' own kernel types (HTA 0.6.1), reproduced exactly so our HTA-parity
// figures compare like for like: COMMUNICATION = names starting "nccl"/"hccl"/"rccl" or containing
// "ncclKernel", MEMORY = names starting "Memcpy"/"Memset"/"dma", everything else COMPUTATION. This
// is HTA's prefix rule, not ours (classifyKernelName is ours).
enum class HtaKernelType : std::uint8_t { Computation = 0, Communication, Memory };
HtaKernelType htaKernelType(std::string_view kernelName);

// --- Host frames and ranges ---------------------------------------------------------------------

enum class HostRole : std::uint8_t {
    None = 0,
    DataLoading,        // DataLoader ranges (enumerate(DataLoader)#...__next__)
    DataPreparation,    // input work in this process: decode, transforms, image ops, tokenization,
                        // collate, numpy conversion, dataset __getitem__
    Collective,         // host side of a collective (c10d::, nccl:, gloo:, record_param_comms)
    Synchronization,    // aten::item, _local_scalar_dense, nonzero, Tensor.item/.cpu/.tolist
    Compilation,        // dynamo / inductor / triton compile and autotuning, nvFuser lowering, JIT
    Housekeeping,       // checkpoint saving, logging, evaluation
    GarbageCollection,  // the Python garbage collector
    Optimizer,          // Optimizer.step#..., fused/foreach Adam
    Backward,           // autograd engine, *Backward* ops
    CompiledRegion,     // running compiled code (Torch-Compiled Region, CompiledFunction)
};

std::string_view toString(HostRole role);
HostRole hostRoleOf(std::string_view name);

// A framework operator of the eager op stream (aten::empty, aten::mm, c10d::allreduce_,
// autograd::engine::evaluate_function: MulBackward0, AddmmBackward0), not a Python frame or a
// user range. Host time in these is dispatch, whether or not the op itself launches a kernel.
bool isFrameworkOpName(std::string_view name);

// Kept as separate predicates for the phase detector and the job layer.
bool isDataLoadingName(std::string_view name);  // HostRole::DataLoading
bool isBackwardOpName(std::string_view name);
bool isOptimizerName(std::string_view name);
bool isCommunicationOpName(std::string_view name);    // HostRole::Collective
bool isCollectiveOpName(std::string_view name);       // wraps a collective call (shapes give the size)
bool isGarbageCollectionName(std::string_view name);  // HostRole::GarbageCollection

// --- Runtime API calls --------------------------------------------------------------------------

enum class ApiRole : std::uint8_t {
    Other = 0,
    KernelLaunch,  // cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel, ...
    GraphLaunch,   // cudaGraphLaunch, hipGraphLaunch
    CopyAsync,     // cudaMemcpyAsync (may still block on pageable memory)
    CopyBlocking,  // cudaMemcpy, cuMemcpyDtoH_v2, hipMemcpy (no Async, not peer)
    Memset,
    Synchronize,  // cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, cudaFree, ...
};

ApiRole apiRoleOf(std::string_view name);
bool isSyncApiName(std::string_view name);    // Synchronize or CopyBlocking
bool isLaunchApiName(std::string_view name);  // launches GPU work (kernel, graph, copy, memset)

// --- Devices ------------------------------------------------------------------------------------

// The GPU architecture a device's marketing name implies ("NVIDIA A100-SXM4-40GB" -> "ampere",
// "Tesla T4" -> "turing", "NVIDIA L4" -> "ada", "AMD Instinct MI250X" -> "cdna"), "" when the
// name says nothing. A fallback for traces without a compute capability.
std::string architectureFromDeviceName(std::string_view deviceName);

// --- Threads ------------------------------------------------------------------------------------

enum class ThreadRole : std::uint8_t { Other = 0, Autograd, DataWorker };
ThreadRole threadRoleOf(std::string_view threadName);

}  // namespace chokepoint::names

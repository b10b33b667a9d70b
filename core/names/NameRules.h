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
// tests/core/names/data/name_corpus.tsv (NameRulesCorpusTest checks every row).
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

// --- Sampled call stacks ----------------------------------------------------------------------------
// A sampled frame (the Python sampler's, or a native one) is read by the host-role rules above in
// the form Kineto gives a python_function event: "<file>(<line>): <function>" ("<file>: <function>"
// without a line, the bare function without a file). The sampler records the qualified name
// (co_qualname: "DataLoader.__next__", "RandomResizedCrop.forward") where Python has it.
std::string frameName(std::string_view file, std::string_view function, std::int64_t line);

// One role for a whole sampled stack (frame names leaf first, as frameName writes them):
//  1. the outermost frame whose role covers everything it calls: compilation (dynamo's frame
//     conversion, inductor, Triton), checkpointing/logging/evaluation, garbage collection;
//  2. else input work: a frame of dataset / transform / collate / decode code or the loader's sample
//     fetch (input preparation: this thread makes its own batches, e.g. DataLoader(num_workers=0) on
//     the main thread), else a DataLoader frame (data loading: the loop waits for its workers);
//  3. else the innermost frame with a role (optimizer, backward, synchronization, collective,
//     compiled region);
//  4. else none.
// `frame` is the index (leaf first) of the frame that decided it; the leaf (0) for none.
struct StackRole {
    HostRole role = HostRole::None;
    std::size_t frame = 0;
};
StackRole stackRoleOf(const std::vector<std::string>& frameNamesLeafFirst);
// The same from each frame's hostRoleOf (leaf first), for callers that classify every frame once.
StackRole stackRoleOfFrameRoles(const std::vector<HostRole>& frameRolesLeafFirst);

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

// A thread's role from its name (the comm the OS shows, or the name a profiler recorded):
// PyTorch names its autograd device threads "pt_autograd_N", DataLoader worker processes
// "pt_data_worker", the pin-memory thread "pt_data_pin" and, in some versions, the main thread
// "pt_main_thread"; older traces and other loaders say "DataLoader worker", "pin_memory".
// A main thread whose name says nothing (comm "python3") is found by its tid == pid instead
// (core/model/ThreadLabels.h).
enum class ThreadRole : std::uint8_t { Other = 0, Autograd, DataWorker, PinMemory, Main };
ThreadRole threadRoleOf(std::string_view threadName);
std::string_view toString(ThreadRole role);  // "other", "autograd", "data-worker", "pin-memory", "main"

// --- Step and phase markers ------------------------------------------------------------------------

// Every marker the product knows, in one place. A step marker is a host range (NVTX or
// record_function) whose name starts with one of the capture's step-marker prefixes, matched as the
// agent matches them (case-sensitive prefix): torch.profiler's "ProfilerStep#N", the Python
// helper's "chokepoint:step#N", a plain "step..." range, or whatever `--marker` the capture was
// started with. The agent records the prefixes it used as the capture note `capture.step_markers`
// ("ProfilerStep#|chokepoint:step|step"); a trace without that note (an older capture, a
// torch.profiler or Nsight export) uses the defaults. The helper's other ranges say what the
// host is doing: "chokepoint:data" waits for the next batch (input pipeline), "chokepoint:forward",
// "chokepoint:backward" and "chokepoint:optimizer" are phases, "chokepoint:meta key=value" marks
// carry facts (stored as model.<key> notes).
inline constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";
inline constexpr std::string_view kHelperStepPrefix = "chokepoint:step";
inline constexpr std::string_view kPlainStepPrefix = "step";
inline constexpr std::string_view kStepMarkersNote = "capture.step_markers";
// The agent's capture window, "START..END" in trace nanoseconds, and the stat it adds when it closed
// NVTX ranges (a step marker among them) still open at END: the analysis leaves such a step out.
inline constexpr std::string_view kCaptureWindowNote = "capture.window_ns";
inline constexpr std::string_view kNvtxOpenAtStopStat = "nvtx.open_at_stop";

// The agent's default step-marker prefixes, in its order.
std::vector<std::string> defaultStepMarkerPrefixes();
// The prefixes of a `capture.step_markers` note ("a|b|c"; empty parts dropped); the defaults for
// an empty value.
std::vector<std::string> parseStepMarkers(std::string_view noteValue);
// True when `name` starts with `prefix` (case-sensitive, as the agent compares).
bool matchesStepMarker(std::string_view name, std::string_view prefix);
bool isProfilerStepName(std::string_view name);

enum class MarkerRole : std::uint8_t {
    None = 0,
    Step,       // ProfilerStep#N, chokepoint:step#N
    DataWait,   // chokepoint:data: the loop waits for its next batch
    Forward,    // chokepoint:forward
    Backward,   // chokepoint:backward
    Optimizer,  // chokepoint:optimizer
    Meta,       // chokepoint:meta key=value ...
};
// The role of a marker the product itself defines (ProfilerStep#, the helper's chokepoint:*
// names); None for any other name, including a capture's own --marker prefix.
MarkerRole markerRoleOf(std::string_view name);
std::string_view toString(MarkerRole role);  // "none", "step", "data-wait", "forward", ...

// --- Precision of a kernel's math, from its name ----------------------------------------------------

// What a GEMM, convolution or attention kernel's name says about the precision of its inputs:
// cuBLAS nvjet type codes (nvjet_[sm90_]tst_ = BF16, hsh/hss = FP16, the first letter is the input
// type), xmma / CUTLASS type tokens (bf16bf16, f16f16, f32f32 on tensor cores = TF32, e4m3/e5m2 =
// FP8, s8/i8 = INT8), instruction shapes (s1688/s16816 = TF32, h884/h1688/h16816 = FP16,
// bf16816 = BF16, i8816 = INT8), legacy cuBLAS families (ampere_sgemm = FP32 CUDA cores,
// volta_h884gemm = FP16, ampere_bf16_*), template arguments (cutlass::bfloat16_t, __nv_bfloat16,
// c10::BFloat16, cutlass::half_t, __half, c10::Half). Unknown when the name says nothing (Triton,
// cuDNN runtime-fusion names that only say "f16" for any 16-bit type are read as 16-bit: FP16).
enum class KernelPrecision : std::uint8_t { Unknown = 0, FP64, FP32, TF32, BF16, FP16, FP8, INT8 };
KernelPrecision kernelPrecisionFromName(std::string_view kernelName);
std::string_view toString(KernelPrecision precision);  // "unknown", "fp32", "tf32", "bf16", ...
// The precision a helper fact names ("bf16", "fp16", "fp32", "tf32", "fp8"; also "bfloat16",
// "float16", "half", "float32", "float"); Unknown for anything else.
KernelPrecision precisionFromFact(std::string_view value);

}  // namespace chokepoint::names

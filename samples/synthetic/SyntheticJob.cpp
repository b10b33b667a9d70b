#include "samples/synthetic/SyntheticJob.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <unordered_set>

#include "core/names/NameRules.h"

namespace chokepoint::samples {

namespace {

using core::DurationNs;
using core::TimestampNs;

// Cost model (the same H100 SXM figures as SyntheticTrainingJob.cpp): achievable fractions of the
// datasheet peaks.
constexpr double kBf16PeakFlops = 989e12;
constexpr double kGemmEfficiency = 0.62;
constexpr double kAttentionEfficiency = 0.45;
constexpr double kHbmBytesPerSecond = 3.35e12 * 0.85;
constexpr DurationNs kKernelFloorNs = 2'500;
// Collective bus bandwidth: NVLink inside a host, the NIC (400 Gb/s InfiniBand per GPU) across hosts.
constexpr double kIntraHostBusBytesPerSecond = 150e9;
constexpr double kInterHostBusBytesPerSecond = 45e9;
constexpr DurationNs kCollectiveLatencyNs = 8'000;
constexpr DurationNs kCollectiveEndJitterNs = 2'000;  // ends differ by up to this across ranks

// Training job shape: a GPT-style transformer, bf16.
constexpr long kBatch = 8;
constexpr long kSeqLen = 2048;
constexpr long kHidden = 2048;
constexpr long kTokens = kBatch * kSeqLen;
constexpr DurationNs kDataLoadNs = 1'500'000;  // DataLoader __next__ with workers: a short wait
constexpr DurationNs kCpuPerOpNs = 18'000;
constexpr DurationNs kLaunchNs = 5'000;
constexpr double kDefaultLateShare = 0.15;
constexpr int kComputeStream = 7;
constexpr int kNcclStream = 20;
constexpr DurationNs kWindowLeadNs = 200'000;  // BeforeWindow: the window opens this long before the arrival

const std::string kGemmKernel =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel__5x_cublas";
const std::string kDataLoaderRange = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

enum class Lane { Main, Autograd };

// One framework op that launches one compute kernel.
struct KernelSpec {
    std::string opName;
    std::string shapes;
    std::string types;
    std::string kernelName;
    DurationNs ns = 0;
    int grid = 1;
    int block = 128;
};

std::string shapeList(std::initializer_list<std::initializer_list<long>> tensors) {
    std::string text = "[";
    bool firstTensor = true;
    for (const auto& tensor : tensors) {
        text += firstTensor ? "[" : ", [";
        firstTensor = false;
        bool firstDim = true;
        for (long dim : tensor) {
            text += firstDim ? "" : ", ";
            text += std::to_string(dim);
            firstDim = false;
        }
        text += "]";
    }
    return text + "]";
}

DurationNs gemmNs(double m, double n, double k) {
    return std::max(kKernelFloorNs,
                    static_cast<DurationNs>(2.0 * m * n * k / (kBf16PeakFlops * kGemmEfficiency) * 1e9));
}
DurationNs streamNs(double bytes) {
    return std::max(kKernelFloorNs, static_cast<DurationNs>(bytes / kHbmBytesPerSecond * 1e9));
}
int gridFor(double m, double n) {
    return static_cast<int>(std::ceil(m / 128) * std::ceil(n / 128));
}

// The compute kernels of one step, built once per job (every rank runs the same program).
struct StepProgram {
    std::vector<KernelSpec> attentionForward;  // per layer, before the first TP all-reduce
    std::vector<KernelSpec> mlpForward;        // per layer, before the second TP all-reduce
    KernelSpec loss;
    std::vector<KernelSpec> mlpBackward;        // per layer, before a TP all-reduce
    std::vector<KernelSpec> attentionBackward;  // per layer, before a TP all-reduce
    std::vector<KernelSpec> optimizer;
    KernelSpec extraExpertGemm;              // ExtraKernels: the imbalanced work
    std::int64_t layerGradientElements = 0;  // parameters of one layer held by one rank
    std::int64_t activationElements = 0;     // the TP all-reduce message
    DurationNs computeNs = 0;                // all compute kernels of one step
};

StepProgram makeProgram(int layers, int tp) {
    StepProgram p;
    const long b = kBatch, s = kSeqLen, h = kHidden, t = kTokens;
    const std::string bf = "\"c10::BFloat16\"";
    const std::string bf2 = "[" + bf + ", " + bf + "]";
    const std::string bf3 = "[" + bf + ", " + bf + ", " + bf + "]";
    const double activationBytes = static_cast<double>(t * h * 2);
    const long heads = h / 64 / tp;
    auto linear = [&](long out, long in) {
        return KernelSpec{"aten::linear",
                          shapeList({{b, s, in}, {out, in}, {out}}),
                          bf3,
                          kGemmKernel,
                          gemmNs(t, out, in),
                          gridFor(t, out),
                          384};
    };
    const KernelSpec layerNorm{"aten::layer_norm",
                               shapeList({{b, s, h}, {h}, {h}}),
                               "[" + bf + "]",
                               "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::"
                               "BFloat16, float>(int, float, c10::BFloat16 const*)",
                               streamNs(2 * activationBytes),
                               static_cast<int>(t / 4),
                               256};
    p.attentionForward = {
        layerNorm,
        linear(3 * h / tp, h),
        {"aten::scaled_dot_product_attention",
         shapeList({{b, heads, s, 64}, {b, heads, s, 64}, {b, heads, s, 64}}), bf3,
         "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
         "cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>(pytorch_flash::"
         "Flash_fwd_params)",
         static_cast<DurationNs>(4.0 * b * s * s * h / tp / (kBf16PeakFlops * kAttentionEfficiency) * 1e9),
         static_cast<int>(b * heads * std::ceil(s / 128.0)), 128},
        linear(h, h / tp),
    };
    p.mlpForward = {
        layerNorm,
        linear(4 * h / tp, h),
        {"aten::gelu", shapeList({{b, s, 4 * h / tp}}), "[" + bf + "]",
         "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
         streamNs(8 * activationBytes / tp), static_cast<int>(t * h / 128 / tp), 128},
        linear(h, 4 * h / tp),
    };
    p.loss = {"aten::cross_entropy_loss",
              shapeList({{t, 32000}, {t}}),
              "[" + bf + ", \"long\"]",
              "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
              "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>",
              streamNs(static_cast<double>(t) * 32000 * 4),
              static_cast<int>(t),
              256};
    auto mm = [&](long m, long n, long k) {
        return KernelSpec{
            "aten::mm", shapeList({{m, k}, {k, n}}), bf2, kGemmKernel, gemmNs(m, n, k), gridFor(m, n), 384};
    };
    p.mlpBackward = {
        mm(t, 4 * h / tp, h),  // fc2 dgrad
        mm(4 * h / tp, h, t),  // fc2 wgrad
        {"aten::gelu_backward", shapeList({{b, s, 4 * h / tp}, {b, s, 4 * h / tp}}), bf2,
         "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl>",
         streamNs(12 * activationBytes / tp), static_cast<int>(t * h / 128 / tp), 128},
        mm(t, h, 4 * h / tp),  // fc1 dgrad (its wgrad fused into the same cuBLAS call here)
    };
    p.attentionBackward = {
        {"aten::native_layer_norm_backward", shapeList({{b, s, h}, {b, s, h}, {h}}), bf3,
         "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<c10::BFloat16, float>",
         streamNs(3 * activationBytes), static_cast<int>(t / 4), 256},
        {"aten::_scaled_dot_product_flash_attention_backward",
         shapeList({{b, heads, s, 64}, {b, heads, s, 64}, {b, heads, s, 64}}), bf3,
         "void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, 128, "
         "128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, true, false, false, false, false>("
         "pytorch_flash::Flash_bwd_params)",
         static_cast<DurationNs>(10.0 * b * s * s * h / tp / (kBf16PeakFlops * 0.4) * 1e9),
         static_cast<int>(b * heads * std::ceil(s / 128.0)), 256},
        mm(t, h, 4 * h / tp),  // qkv + proj grads, one call each
    };
    const double layerParams = 12.0 * static_cast<double>(h * h) / tp;
    p.layerGradientElements = static_cast<std::int64_t>(layerParams);
    p.activationElements = t * h;
    for (int chunk = 0; chunk < 2; ++chunk) {
        // AdamW reads and writes param, grad, exp_avg, exp_avg_sq in fp32: 32 B per parameter.
        p.optimizer.push_back(
            {"aten::_fused_adamw_", "[]", "[\"TensorList\"]",
             "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
             "namespace)::TensorListMetadata<4>, at::native::(anonymous "
             "namespace)::FusedAdamMathFunctor<float, "
             "4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, double, "
             "bool>",
             streamNs(layerParams * layers / 2 * 32), 1200, 512});
    }
    p.extraExpertGemm = linear(4 * h / tp, h);
    DurationNs sum = p.loss.ns;
    for (const auto* list : {&p.attentionForward, &p.mlpForward, &p.mlpBackward, &p.attentionBackward}) {
        for (const KernelSpec& k : *list) {
            sum += k.ns * layers;
        }
    }
    for (const KernelSpec& k : p.optimizer) {
        sum += k.ns;
    }
    p.computeNs = sum;
    return p;
}

// A process group: its name, description and member ranks (sorted).
struct Group {
    std::string name;
    std::string description;
    std::vector<int> ranks;
    std::string ranksText;  // "[0, 1, 2, 3]", long lists cut like Kineto's ("[0, 1, ..., 1023]")
    bool crossesHosts = false;
};

std::string ranksText(const std::vector<int>& ranks) {
    constexpr std::size_t kShown = 30;
    std::string text = "[";
    for (std::size_t i = 0; i < ranks.size() && i < kShown; ++i) {
        text += (i ? ", " : "") + std::to_string(ranks[i]);
    }
    if (ranks.size() > kShown) {
        text += ", ...";
    }
    return text + "]";
}

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter };

struct CollectiveSpec {
    CollectiveKind kind = CollectiveKind::AllReduce;
    const std::vector<Group>* groups = nullptr;  // a partition of the ranks
    std::vector<int> groupOfRank;                // index into groups, per rank
    std::int64_t elements = 0;  // the full (unsharded) message in elements: bf16, 2 bytes each
    bool blocking = true;       // the compute stream waits for it
};

// Bus-bandwidth factors of ring algorithms (NCCL's tests/doc/PERFORMANCE.md): all-reduce moves
// 2(n-1)/n of the message per rank, all-gather and reduce-scatter (n-1)/n of the full message.
DurationNs transferNs(CollectiveKind kind, std::int64_t elements, int n, bool crossesHosts) {
    const double bytes = static_cast<double>(elements) * 2;
    const double factor = (kind == CollectiveKind::AllReduce ? 2.0 : 1.0) * (n - 1) / std::max(1, n);
    const double bw = crossesHosts ? kInterHostBusBytesPerSecond : kIntraHostBusBytesPerSecond;
    return kCollectiveLatencyNs + static_cast<DurationNs>(factor * bytes / bw * 1e9);
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// One rank being simulated.
class RankSim {
public:
    RankSim(int rank, const SyntheticJobOptions& options)
        : m_rank(rank), m_rng(mix(options.seed * 1'000'003ull + static_cast<std::uint64_t>(rank))) {
        const int localRank = rank % options.ranksPerHost;
        m_pid = 3100 + localRank * 17;
        model.metadata.sourceFormat = "synthetic";
        model.metadata.synthetic = true;
        model.metadata.producer = "chokepoint synthetic job generator 0.1";
        model.metadata.hostName = "node" + std::to_string(rank / options.ranksPerHost);
        model.metadata.notes.emplace_back("scenario", "distributed-job");
        model.metadata.notes.emplace_back(
            "warning", "SYNTHETIC: generated by Chokepoint's own cost model, not captured from a real GPU");
        model.distributed = {true, rank, options.ranks, "nccl"};
        core::DeviceInfo& device = model.deviceOrAdd(0);
        device.name = "NVIDIA H100 80GB HBM3";
        device.vendor = "NVIDIA";
        device.smCount = 132;
        device.totalMemoryBytes = 85'029'158'912;
        device.computeMajor = 9;
        device.computeMinor = 0;
        device.maxThreadsPerBlock = 1024;
        device.maxThreadsPerSm = 2048;
        device.registersPerBlock = 65536;
        device.sharedMemoryPerBlockBytes = 49152;
        device.l2CacheBytes = 52'428'800;
        device.warpSize = 32;
        model.processes.push_back({m_pid, "python train.py --local-rank " + std::to_string(localRank)});
        m_main = model.threadIndex(m_pid, m_pid, "python (main thread)");
        m_autograd = model.threadIndex(m_pid, m_pid + 59, "pt_autograd_0");
        model.streamIndex(0, kComputeStream);
        model.streamIndex(0, kNcclStream);
    }

    core::TraceModel model;
    double kernelScale = 1.0;

    int rank() const { return m_rank; }
    TimestampNs& clock(Lane lane) { return lane == Lane::Main ? m_mainCpu : m_autogradCpu; }
    core::ThreadIndex thread(Lane lane) const { return lane == Lane::Main ? m_main : m_autograd; }
    TimestampNs computeClock() const { return m_computeClock; }
    TimestampNs firstArrivalNs() const { return m_firstArrival; }

    double jitter(double spread) {
        return std::uniform_real_distribution<double>(1 - spread, 1 + spread)(m_rng);
    }
    DurationNs endJitter() {
        return std::uniform_int_distribution<DurationNs>(0, kCollectiveEndJitterNs)(m_rng);
    }

    // The op launches one compute kernel on stream 7 after everything before it on the stream.
    void kernelOp(Lane lane, const KernelSpec& spec, double scale = 1.0) {
        TimestampNs& cpu = clock(lane);
        const TimestampNs opStart = cpu;
        const auto cpuCost = static_cast<DurationNs>(static_cast<double>(kCpuPerOpNs) * jitter(0.03));
        const TimestampNs launchStart = opStart + cpuCost * 6 / 10;
        const TimestampNs launchEnd = launchStart + kLaunchNs;
        const TimestampNs opEnd = std::max(opStart + cpuCost, launchEnd + 1'000);
        addCpuOp(lane, spec.opName, opStart, opEnd, spec.shapes, spec.types);
        const std::int64_t correlation = m_nextCorrelation++;
        addApiCall(lane, "cudaLaunchKernel", launchStart, launchEnd, correlation);
        core::KernelRow kernel;
        kernel.startNs = std::max(m_computeClock, launchEnd + 3'000);
        const double ns = static_cast<double>(spec.ns) * scale * kernelScale * jitter(0.003);
        kernel.endNs = kernel.startNs + std::max(kKernelFloorNs, static_cast<DurationNs>(ns));
        kernel.deviceIndex = 0;
        kernel.streamId = kComputeStream;
        kernel.name = model.intern(spec.kernelName);
        kernel.gridX = spec.grid;
        kernel.gridY = kernel.gridZ = 1;
        kernel.blockX = spec.block;
        kernel.blockY = kernel.blockZ = 1;
        kernel.registersPerThread = 128;
        kernel.dynamicSharedBytes = 49'152;
        kernel.correlationId = correlation;
        model.kernels.add(kernel);
        m_computeClock = kernel.endNs;
        cpu = opEnd;
    }

    // Launches the rank's NCCL kernel; returns its arrival (kernel start). The end is set later by
    // finishCollective, once every participant has arrived.
    TimestampNs launchCollective(Lane lane, CollectiveKind kind, const Group& group, std::int64_t elements) {
        TimestampNs& cpu = clock(lane);
        const char* opName = kind == CollectiveKind::AllReduce   ? "c10d::allreduce_"
                             : kind == CollectiveKind::AllGather ? "c10d::_allgather_base_"
                                                                 : "c10d::_reduce_scatter_base_";
        const char* collectiveName = kind == CollectiveKind::AllReduce   ? "allreduce"
                                     : kind == CollectiveKind::AllGather ? "_allgather_base"
                                                                         : "_reduce_scatter_base";
        const char* kernelName =
            kind == CollectiveKind::AllReduce
                ? "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
            : kind == CollectiveKind::AllGather
                ? "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                : "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
        const TimestampNs opStart = cpu;
        const TimestampNs launchStart = opStart + 14'000;
        const TimestampNs launchEnd = launchStart + 6'000;
        const TimestampNs opEnd = launchEnd + 8'000;
        const std::string shapes = "[[" + std::to_string(elements) + "]]";
        addCpuOp(lane, opName, opStart, opEnd, shapes, "[\"c10::BFloat16\"]");
        addCpuOp(lane, "record_param_comms", opStart + 4'000, opEnd - 2'000, shapes, "[\"c10::BFloat16\"]");
        const std::int64_t correlation = m_nextCorrelation++;
        addApiCall(lane, "cudaLaunchKernel", launchStart, launchEnd, correlation);
        cpu = opEnd;

        core::KernelRow kernel;
        // NCCL runs on its own stream after waiting (an event) for the compute stream's work.
        kernel.startNs = std::max({launchEnd + 4'000, m_computeClock, m_ncclClock});
        kernel.endNs = kernel.startNs;  // set by finishCollective
        kernel.deviceIndex = 0;
        kernel.streamId = kNcclStream;
        kernel.name = model.intern(kernelName);
        kernel.gridX = 24;
        kernel.gridY = kernel.gridZ = 1;
        kernel.blockX = 640;
        kernel.blockY = kernel.blockZ = 1;
        kernel.registersPerThread = 96;
        kernel.correlationId = correlation;
        m_pendingKernel = model.kernels.size();
        model.kernels.add(kernel);
        if (m_firstArrival < 0) {
            m_firstArrival = kernel.startNs;
        }

        const auto n = static_cast<std::int64_t>(group.ranks.size());
        core::CollectiveCallRow call;
        call.correlationId = correlation;
        call.collectiveName = model.intern(collectiveName);
        call.processGroupName = model.intern(group.name);
        call.processGroupDescription = model.intern(group.description);
        call.processGroupRanks = model.intern(group.ranksText);
        call.dtype = model.intern("BFloat16");
        call.inNelems = kind == CollectiveKind::AllGather ? elements / n : elements;
        call.outNelems = kind == CollectiveKind::ReduceScatter ? elements / n : elements;
        call.groupSize = static_cast<std::int32_t>(n);
        model.collectiveCalls.push_back(call);
        return kernel.startNs;
    }

    void finishCollective(TimestampNs endNs, bool blocking) {
        model.kernels.endNs[m_pendingKernel] = endNs;
        m_ncclClock = endNs;
        if (blocking) {
            m_computeClock = std::max({m_computeClock, endNs, m_outstandingNccl});
            m_outstandingNccl = 0;
        } else {
            m_outstandingNccl = std::max(m_outstandingNccl, endNs);
        }
    }

    void addCpuOp(Lane lane, std::string_view name, TimestampNs start, TimestampNs end,
                  std::string_view shapes = {}, std::string_view types = {},
                  core::CpuOpCategory category = core::CpuOpCategory::Operator) {
        core::CpuOpRow row;
        row.startNs = start;
        row.endNs = end;
        row.thread = thread(lane);
        row.name = model.intern(name);
        row.category = category;
        row.inputShapes = model.intern(shapes);
        row.inputTypes = model.intern(types);
        row.externalId = m_nextExternalId++;
        model.cpuOps.add(row);
    }

    void addApiCall(Lane lane, std::string_view name, TimestampNs start, TimestampNs end,
                    std::int64_t correlation) {
        core::ApiCallRow row;
        row.startNs = start;
        row.endNs = end;
        row.thread = thread(lane);
        row.name = model.intern(name);
        row.correlationId = correlation;
        model.apiCalls.add(row);
    }

    void addRange(std::string_view name, TimestampNs start, TimestampNs end) {
        core::RangeRow row;
        row.startNs = start;
        row.endNs = end;
        row.thread = m_main;
        row.source = core::RangeSource::UserAnnotation;
        row.name = model.intern(name);
        model.ranges.add(row);
    }

    // The batch's host-to-device copy (pinned, asynchronous).
    void copyBatch() {
        const std::int64_t correlation = m_nextCorrelation++;
        const TimestampNs callStart = m_mainCpu + 4'000;
        const std::int64_t bytes = kTokens * 8;
        core::MemcpyRow copy;
        copy.kind = core::MemcpyKind::HostToDevice;
        copy.sizeBytes = bytes;
        copy.deviceIndex = 0;
        copy.streamId = kComputeStream;
        copy.correlationId = correlation;
        copy.srcKind = core::MemoryKind::Pinned;
        copy.dstKind = core::MemoryKind::Device;
        copy.startNs = std::max(m_computeClock, callStart + 8'000);
        copy.endNs =
            copy.startNs + static_cast<DurationNs>(static_cast<double>(bytes) / 50e9 * 1e9);  // PCIe 5
        model.memcpys.add(copy);
        m_computeClock = copy.endNs;
        addCpuOp(Lane::Main, "aten::to", m_mainCpu, callStart + 12'000, shapeList({{kBatch, kSeqLen}}),
                 "[\"long\"]");
        addApiCall(Lane::Main, "cudaMemcpyAsync", callStart, callStart + 9'000, correlation);
        m_mainCpu = callStart + 12'000;
    }

    // loss.item(): a 4-byte device-to-host copy and a stream synchronize that waits for the GPU.
    void lossItem() {
        const TimestampNs opStart = m_mainCpu;
        const std::int64_t correlation = m_nextCorrelation++;
        core::MemcpyRow copy;
        copy.kind = core::MemcpyKind::DeviceToHost;
        copy.sizeBytes = 4;
        copy.deviceIndex = 0;
        copy.streamId = kComputeStream;
        copy.correlationId = correlation;
        copy.srcKind = core::MemoryKind::Device;
        copy.dstKind = core::MemoryKind::Pageable;
        copy.startNs = std::max(m_computeClock, opStart + 12'000);
        copy.endNs = copy.startNs + 2'000;
        model.memcpys.add(copy);
        m_computeClock = copy.endNs;
        addApiCall(Lane::Main, "cudaMemcpyAsync", opStart + 5'000, opStart + 9'000, correlation);
        const std::int64_t syncCorrelation = m_nextCorrelation++;
        addApiCall(Lane::Main, "cudaStreamSynchronize", opStart + 10'000, copy.endNs + 3'000,
                   syncCorrelation);
        core::SyncRow sync;
        sync.startNs = opStart + 10'000;
        sync.endNs = copy.endNs + 3'000;
        sync.deviceIndex = 0;
        sync.streamId = kComputeStream;
        sync.thread = m_main;
        sync.kind = core::SyncKind::StreamSynchronize;
        sync.correlationId = syncCorrelation;
        model.syncs.add(sync);
        m_mainCpu = copy.endNs + 6'000;
        addCpuOp(Lane::Main, "aten::item", opStart, m_mainCpu, "[[]]", "[\"float\"]");
        addCpuOp(Lane::Main, "aten::_local_scalar_dense", opStart + 2'000, m_mainCpu - 1'000, "[[]]",
                 "[\"float\"]");
    }

    // Host-side Python work with no launches: the GPU idles meanwhile.
    void hostPython(DurationNs total) {
        const TimestampNs start = m_mainCpu;
        addCpuOp(Lane::Main, "train.py(88): compute_metrics", start, start + total, {}, {},
                 core::CpuOpCategory::PythonFunction);
        constexpr int kCalls = 8;
        const DurationNs each = total / kCalls;
        for (int i = 0; i < kCalls; ++i) {
            const TimestampNs t = start + i * each + 2'000;
            addCpuOp(Lane::Main, "metrics.py(41): update", t, t + each - 4'000, {}, {},
                     core::CpuOpCategory::PythonFunction);
            addCpuOp(Lane::Main, "numpy/core/_methods.py(49): _sum", t + 3'000, t + each * 7 / 10, {}, {},
                     core::CpuOpCategory::PythonFunction);
        }
        m_mainCpu = start + total;
    }

    // The main thread waits in backward() while the autograd thread runs it.
    void beginBackward() { m_autogradCpu = m_mainCpu + 10'000; }
    void endBackward() {
        addCpuOp(Lane::Main, "autograd::engine::evaluate_function: backward", m_mainCpu,
                 m_autogradCpu + 20'000);
        m_mainCpu = m_autogradCpu + 20'000;
    }

    void startStep() { m_stepStart = m_mainCpu; }
    void endStep(int stepNumber) {
        addRange(std::string(names::kProfilerStepPrefix) + std::to_string(stepNumber), m_stepStart,
                 m_mainCpu);
        m_mainCpu += 30'000;
    }

    void setStart(TimestampNs t) { m_mainCpu = t; }
    TimestampNs& mainCpu() { return m_mainCpu; }

private:
    int m_rank = 0;
    std::mt19937_64 m_rng;
    std::int64_t m_pid = 0;
    core::ThreadIndex m_main = 0;
    core::ThreadIndex m_autograd = 0;
    TimestampNs m_mainCpu = 0;
    TimestampNs m_autogradCpu = 0;
    TimestampNs m_computeClock = 0;
    TimestampNs m_ncclClock = 0;
    TimestampNs m_outstandingNccl = 0;  // latest end of non-blocking collectives not yet waited for
    TimestampNs m_stepStart = 0;
    TimestampNs m_firstArrival = -1;  // start of its first NCCL kernel
    std::size_t m_pendingKernel = 0;
    std::int64_t m_nextCorrelation = 1;
    std::int64_t m_nextExternalId = 1;
};

// A profiler that started late, at `cut`: host events that began earlier are not recorded; GPU work
// that started after it is, even when it was launched before (its launch call is then missing,
// as in real late-started traces).
void cutBefore(core::TraceModel& m, TimestampNs cut) {
    auto from = [cut](const std::vector<TimestampNs>& start) {
        std::vector<std::uint32_t> order;
        for (std::size_t i = 0; i < start.size(); ++i) {
            if (start[i] >= cut) {
                order.push_back(static_cast<std::uint32_t>(i));
            }
        }
        return order;
    };
    std::unordered_set<std::int64_t> droppedKernels;
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        if (m.kernels.startNs[i] < cut) {
            droppedKernels.insert(m.kernels.correlationId[i]);
        }
    }
    m.kernels.permute(from(m.kernels.startNs));
    m.memcpys.permute(from(m.memcpys.startNs));
    m.apiCalls.permute(from(m.apiCalls.startNs));
    m.syncs.permute(from(m.syncs.startNs));
    m.ranges.permute(from(m.ranges.startNs));
    m.cpuOps.permute(from(m.cpuOps.startNs));
    std::erase_if(m.collectiveCalls, [&](const core::CollectiveCallRow& c) {
        return droppedKernels.count(c.correlationId) != 0;
    });
}

void shiftClock(core::TraceModel& m, DurationNs offset) {
    auto shift = [offset](std::vector<TimestampNs>& column) {
        for (TimestampNs& t : column) {
            t += offset;
        }
    };
    shift(m.kernels.startNs);
    shift(m.kernels.endNs);
    shift(m.memcpys.startNs);
    shift(m.memcpys.endNs);
    shift(m.memsets.startNs);
    shift(m.memsets.endNs);
    shift(m.apiCalls.startNs);
    shift(m.apiCalls.endNs);
    shift(m.syncs.startNs);
    shift(m.syncs.endNs);
    shift(m.ranges.startNs);
    shift(m.ranges.endNs);
    shift(m.cpuOps.startNs);
    shift(m.cpuOps.endNs);
    for (core::CounterTrack& track : m.counters) {
        shift(track.timesNs);
    }
}

std::vector<Group> makeGroups(const std::vector<std::vector<int>>& members, int firstName,
                              const std::string& description, int ranksPerHost) {
    std::vector<Group> groups;
    for (std::size_t g = 0; g < members.size(); ++g) {
        Group group;
        group.name = std::to_string(firstName + static_cast<int>(g));
        group.description = description;
        group.ranks = members[g];
        group.ranksText = ranksText(group.ranks);
        group.crossesHosts = group.ranks.front() / ranksPerHost != group.ranks.back() / ranksPerHost;
        groups.push_back(std::move(group));
    }
    return groups;
}

DurationNs nominalStepNs(const SyntheticJobOptions& o, const StepProgram& p) {
    const int dp = o.ranks / o.tensorParallelSize;
    const bool dpCrossesHosts = o.ranks > o.ranksPerHost;
    const std::int64_t lastBucket = p.layerGradientElements * std::max(1, o.layers - 1);
    DurationNs exposed =
        transferNs(o.shardedDataParallel ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce,
                   lastBucket, dp, dpCrossesHosts);
    if (o.tensorParallelSize > 1) {
        exposed += 4 * o.layers *
                   transferNs(CollectiveKind::AllReduce, p.activationElements, o.tensorParallelSize,
                              o.tensorParallelSize > o.ranksPerHost);
    }
    return kDataLoadNs + p.computeNs + exposed + 300'000;  // copies, launches, syncs
}

}  // namespace

std::string_view lateCauseName(LateCause cause) {
    switch (cause) {
        case LateCause::None:
            return "none";
        case LateCause::DataWait:
            return "data";
        case LateCause::LongerKernels:
            return "longer-kernels";
        case LateCause::ExtraKernels:
            return "extra-kernels";
        case LateCause::HostPython:
            return "host";
        case LateCause::BeforeWindow:
            return "before-window";
    }
    return "none";
}

std::optional<LateCause> parseLateCause(std::string_view name) {
    for (LateCause cause : {LateCause::None, LateCause::DataWait, LateCause::LongerKernels,
                            LateCause::ExtraKernels, LateCause::HostPython, LateCause::BeforeWindow}) {
        if (lateCauseName(cause) == name) {
            return cause;
        }
    }
    return std::nullopt;
}

core::Status validate(const SyntheticJobOptions& o) {
    auto fail = [](const std::string& message) { return core::Status(core::makeError(message)); };
    if (o.ranks < 1 || o.ranks > 4096) {
        return fail("ranks must be 1..4096, not " + std::to_string(o.ranks));
    }
    if (o.steps < 1 || o.steps > 1000) {
        return fail("steps must be 1..1000, not " + std::to_string(o.steps));
    }
    if (o.ranksPerHost < 1) {
        return fail("ranksPerHost must be at least 1");
    }
    if (o.layers < 2 || o.layers > 96) {
        return fail("layers must be 2..96, not " + std::to_string(o.layers));
    }
    if (o.tensorParallelSize < 1 || o.ranks % o.tensorParallelSize != 0) {
        return fail("the tensor-parallel size " + std::to_string(o.tensorParallelSize) +
                    " must divide the ranks (" + std::to_string(o.ranks) + ")");
    }
    if (o.lateRank >= o.ranks || o.lateRank < -1) {
        return fail("late rank " + std::to_string(o.lateRank) + " is not a rank of a job of " +
                    std::to_string(o.ranks));
    }
    if ((o.lateRank >= 0) != (o.cause != LateCause::None)) {
        return fail("a late rank needs a cause, and a cause needs a late rank");
    }
    if (o.lateByNs < 0 || o.clockSkewNsMax < 0) {
        return fail("lateByNs and clockSkewNsMax must not be negative");
    }
    for (int missing : o.missingRanks) {
        if (missing < 0 || missing >= o.ranks) {
            return fail("missing rank " + std::to_string(missing) + " is not a rank of a job of " +
                        std::to_string(o.ranks));
        }
    }
    return core::Ok{};
}

SyntheticJobTruth syntheticJobTruth(const SyntheticJobOptions& o) {
    SyntheticJobTruth truth;
    truth.worldSize = o.ranks;
    truth.lateRank = o.lateRank;
    truth.cause = o.cause;
    const StepProgram program = makeProgram(o.layers, o.tensorParallelSize);
    truth.nominalStepNs = nominalStepNs(o, program);
    truth.lateByNs =
        o.lateRank < 0 ? 0
        : o.lateByNs > 0
            ? o.lateByNs
            : static_cast<std::int64_t>(kDefaultLateShare * static_cast<double>(truth.nominalStepNs));
    // The uneven rank: after the late rank (or the last rank), skipping ranks that are not written.
    if (o.unevenCollectives) {
        const int start = o.lateRank >= 0 ? o.lateRank + 1 : o.ranks - 1;
        for (int i = 0; i < o.ranks && truth.unevenRank < 0; ++i) {
            const int r = (start + i) % o.ranks;
            const bool missing =
                std::find(o.missingRanks.begin(), o.missingRanks.end(), r) != o.missingRanks.end();
            truth.unevenRank = missing || r == o.lateRank ? -1 : r;
        }
    }
    truth.collectivesPerStep =
        2 + 1 + (o.shardedDataParallel ? 1 : 0) + (o.tensorParallelSize > 1 ? 4 * o.layers : 0);
    truth.clockOffsetsNs.resize(static_cast<std::size_t>(o.ranks));
    for (int r = 0; r < o.ranks; ++r) {
        const std::uint64_t key = o.perHostClock ? static_cast<std::uint64_t>(r / o.ranksPerHost)
                                                 : static_cast<std::uint64_t>(r) + (1ull << 32);
        const std::uint64_t draw = mix(mix(o.seed) ^ key);
        const auto span = static_cast<std::uint64_t>(2 * o.clockSkewNsMax + 1);
        truth.clockOffsetsNs[static_cast<std::size_t>(r)] =
            o.clockSkewNsMax == 0 ? 0 : static_cast<std::int64_t>(draw % span) - o.clockSkewNsMax;
    }
    return truth;
}

std::vector<core::TraceModel> makeSyntheticJob(const SyntheticJobOptions& o) {
    const SyntheticJobTruth truth = syntheticJobTruth(o);
    const StepProgram program = makeProgram(o.layers, o.tensorParallelSize);
    const int world = o.ranks;
    const int tp = o.tensorParallelSize;
    const int dpSize = world / tp;

    // Process groups: the world ("0"), TP groups of consecutive ranks ("1".."k") and, with TP, the
    // data-parallel groups of ranks with the same TP index ("k+1".."k+tp").
    std::vector<int> all(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r) {
        all[static_cast<std::size_t>(r)] = r;
    }
    const std::vector<Group> worldGroups = makeGroups({all}, 0, "default_pg", o.ranksPerHost);
    std::vector<std::vector<int>> tpMembers(static_cast<std::size_t>(dpSize));
    std::vector<std::vector<int>> dpMembers(static_cast<std::size_t>(tp));
    for (int r = 0; r < world; ++r) {
        tpMembers[static_cast<std::size_t>(r / tp)].push_back(r);
        dpMembers[static_cast<std::size_t>(r % tp)].push_back(r);
    }
    const std::vector<Group> tpGroups =
        tp > 1 ? makeGroups(tpMembers, 1, "tp_group", o.ranksPerHost) : std::vector<Group>{};
    const std::vector<Group> dpGroups =
        tp > 1 ? makeGroups(dpMembers, 1 + dpSize, "dp_group", o.ranksPerHost) : worldGroups;
    auto spec = [&](CollectiveKind kind, const std::vector<Group>& groups, bool byTp, std::int64_t elements,
                    bool blocking) {
        CollectiveSpec c;
        c.kind = kind;
        c.groups = &groups;
        c.elements = elements;
        c.blocking = blocking;
        c.groupOfRank.resize(static_cast<std::size_t>(world));
        for (int r = 0; r < world; ++r) {
            c.groupOfRank[static_cast<std::size_t>(r)] = groups.size() == 1 ? 0 : byTp ? r / tp : r % tp;
        }
        return c;
    };
    const CollectiveKind gradientKind =
        o.shardedDataParallel ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce;
    const CollectiveSpec tpAllReduce =
        spec(CollectiveKind::AllReduce, tpGroups, true, program.activationElements, true);
    const CollectiveSpec paramGather =
        spec(CollectiveKind::AllGather, dpGroups, false, program.layerGradientElements * o.layers, true);
    const CollectiveSpec firstBucket =
        spec(gradientKind, dpGroups, false, program.layerGradientElements, !o.overlapFirstBucket);
    const CollectiveSpec lastBucket =
        spec(gradientKind, dpGroups, false, program.layerGradientElements * (o.layers - 1), true);
    const CollectiveSpec lossAllReduce = spec(CollectiveKind::AllReduce, worldGroups, false, 1, true);

    std::vector<RankSim> ranks;
    ranks.reserve(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r) {
        ranks.emplace_back(r, o);
        ranks.back().setStart(1'000'000);
    }
    RankSim* late = o.lateRank >= 0 ? &ranks[static_cast<std::size_t>(o.lateRank)] : nullptr;
    if (late && o.cause == LateCause::LongerKernels) {
        late->kernelScale =
            1.0 + static_cast<double>(truth.lateByNs) / static_cast<double>(program.computeNs);
    }

    std::vector<TimestampNs> arrivals(static_cast<std::size_t>(world));
    std::vector<TimestampNs> groupLast;
    int collectivesLeft = o.steps * truth.collectivesPerStep;
    auto collective = [&](const CollectiveSpec& c, Lane lane) {
        --collectivesLeft;
        const bool lastOfJob = collectivesLeft == 0;
        groupLast.assign(c.groups->size(), 0);
        for (RankSim& rank : ranks) {
            const auto r = static_cast<std::size_t>(rank.rank());
            if (lastOfJob && rank.rank() == truth.unevenRank) {
                continue;  // its profiler stopped before this collective
            }
            const Group& group = (*c.groups)[static_cast<std::size_t>(c.groupOfRank[r])];
            arrivals[r] = rank.launchCollective(lane, c.kind, group, c.elements);
            TimestampNs& last = groupLast[static_cast<std::size_t>(c.groupOfRank[r])];
            last = std::max(last, arrivals[r]);
        }
        for (RankSim& rank : ranks) {
            const auto r = static_cast<std::size_t>(rank.rank());
            if (lastOfJob && rank.rank() == truth.unevenRank) {
                continue;
            }
            const auto g = static_cast<std::size_t>(c.groupOfRank[r]);
            const Group& group = (*c.groups)[g];
            const DurationNs transfer =
                transferNs(c.kind, c.elements, static_cast<int>(group.ranks.size()), group.crossesHosts);
            rank.finishCollective(groupLast[g] + transfer + rank.endJitter(), c.blocking);
        }
    };

    for (int step = 0; step < o.steps; ++step) {
        const int stepNumber = 10 + step;
        for (RankSim& rank : ranks) {
            const bool isLate = &rank == late;
            rank.startStep();
            DurationNs loadNs = static_cast<DurationNs>(static_cast<double>(kDataLoadNs) * rank.jitter(0.01));
            if (isLate &&
                (o.cause == LateCause::DataWait || (o.cause == LateCause::BeforeWindow && step == 0))) {
                loadNs += truth.lateByNs;
            }
            TimestampNs& cpu = rank.mainCpu();
            rank.addRange(kDataLoaderRange, cpu, cpu + loadNs);
            cpu += loadNs;
            rank.copyBatch();
            if (isLate && o.cause == LateCause::HostPython) {
                rank.hostPython(truth.lateByNs);
            }
        }
        if (o.shardedDataParallel) {
            collective(paramGather, Lane::Main);
        }
        if (late && o.cause == LateCause::ExtraKernels) {
            const DurationNs each = std::max<DurationNs>(kKernelFloorNs, program.extraExpertGemm.ns);
            const int count = std::clamp(static_cast<int>(std::lround(static_cast<double>(truth.lateByNs) /
                                                                      static_cast<double>(each))),
                                         1, 64);
            const double scale = static_cast<double>(truth.lateByNs) / count / static_cast<double>(each);
            for (int k = 0; k < count; ++k) {
                late->kernelOp(Lane::Main, program.extraExpertGemm, scale);
            }
        }
        for (int layer = 0; layer < o.layers; ++layer) {
            for (RankSim& rank : ranks) {
                for (const KernelSpec& k : program.attentionForward) {
                    rank.kernelOp(Lane::Main, k);
                }
            }
            if (tp > 1) {
                collective(tpAllReduce, Lane::Main);
            }
            for (RankSim& rank : ranks) {
                for (const KernelSpec& k : program.mlpForward) {
                    rank.kernelOp(Lane::Main, k);
                }
            }
            if (tp > 1) {
                collective(tpAllReduce, Lane::Main);
            }
        }
        for (RankSim& rank : ranks) {
            rank.kernelOp(Lane::Main, program.loss);
            rank.beginBackward();
        }
        for (int layer = o.layers - 1; layer >= 0; --layer) {
            for (RankSim& rank : ranks) {
                for (const KernelSpec& k : program.mlpBackward) {
                    rank.kernelOp(Lane::Autograd, k);
                }
            }
            if (tp > 1) {
                collective(tpAllReduce, Lane::Autograd);
            }
            for (RankSim& rank : ranks) {
                for (const KernelSpec& k : program.attentionBackward) {
                    rank.kernelOp(Lane::Autograd, k);
                }
            }
            if (tp > 1) {
                collective(tpAllReduce, Lane::Autograd);
            }
            // DDP: the first bucket (the last layer's gradients) is reduced while backward goes on.
            if (layer == o.layers - 1) {
                collective(firstBucket, Lane::Autograd);
            }
        }
        collective(lastBucket, Lane::Autograd);
        for (RankSim& rank : ranks) {
            rank.endBackward();
        }
        collective(lossAllReduce, Lane::Main);
        for (RankSim& rank : ranks) {
            const TimestampNs optimizerStart = rank.mainCpu();
            for (const KernelSpec& k : program.optimizer) {
                rank.kernelOp(Lane::Main, k);
            }
            rank.addRange("Optimizer.step#AdamW.step", optimizerStart, rank.mainCpu() + 5'000);
            rank.mainCpu() += 5'000;
            rank.lossItem();
            rank.endStep(stepNumber);
        }
    }

    std::vector<core::TraceModel> models;
    models.reserve(ranks.size());
    for (RankSim& rank : ranks) {
        const int r = rank.rank();
        if (std::find(o.missingRanks.begin(), o.missingRanks.end(), r) != o.missingRanks.end()) {
            continue;
        }
        if (&rank == late && o.cause == LateCause::BeforeWindow && rank.firstArrivalNs() >= 0) {
            cutBefore(rank.model, rank.firstArrivalNs() - kWindowLeadNs);
        }
        shiftClock(rank.model, truth.clockOffsetsNs[static_cast<std::size_t>(r)]);
        rank.model.finalize();
        models.push_back(std::move(rank.model));
    }
    return models;
}

}  // namespace chokepoint::samples

#include "samples/synthetic/SyntheticTrainingJob.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "core/names/NameRules.h"

namespace chokepoint::samples {

namespace {

using core::TimestampNs;

// Achievable fractions of the H100 SXM datasheet peaks used by the cost model.
constexpr double kBf16PeakFlops = 989e12;  // dense BF16 tensor core
constexpr double kTf32PeakFlops = 494e12;  // dense TF32 tensor core
constexpr double kHbmBytesPerSecond = 3.35e12;
constexpr double kGemmEfficiency = 0.62;
constexpr double kBandwidthEfficiency = 0.85;
constexpr TimestampNs kKernelFloorNs = 2'500;  // even an empty kernel occupies the GPU this long

struct ScenarioParams {
    int batch = 16;
    int seqLen = 512;
    int hidden = 1024;
    int layers = 8;
    bool bf16 = true;
    int extraElementwisePerLayer = 0;  // unfused dropout/bias/scale ops
    TimestampNs dataLoadNs = 0;        // main thread inside DataLoader.__next__
    bool pinnedAsyncCopy = false;      // pin_memory + non_blocking
    int dataWorkers = 0;               // DataLoader worker threads
    TimestampNs cpuPerOpNs = 18'000;   // Python + dispatcher cost per op
    TimestampNs launchNs = 5'000;      // cudaLaunchKernel cost
};

ScenarioParams paramsFor(SyntheticScenario scenario) {
    ScenarioParams p;
    switch (scenario) {
        case SyntheticScenario::DataBound:
            p.dataLoadNs = 30'000'000;
            break;
        case SyntheticScenario::DataBoundFixed:
            p.dataLoadNs = 300'000;
            p.pinnedAsyncCopy = true;
            p.dataWorkers = 4;
            break;
        case SyntheticScenario::ComputeBound:
            p.batch = 16;
            p.seqLen = 1024;
            p.hidden = 4096;
            p.layers = 4;
            p.dataLoadNs = 400'000;
            p.pinnedAsyncCopy = true;
            p.dataWorkers = 4;
            break;
        case SyntheticScenario::LaunchBound:
            p.batch = 8;
            p.seqLen = 32;
            p.hidden = 256;
            p.layers = 24;
            p.dataLoadNs = 200'000;
            p.pinnedAsyncCopy = true;
            p.dataWorkers = 2;
            p.cpuPerOpNs = 30'000;
            p.launchNs = 7'000;
            break;
        case SyntheticScenario::MemoryBound:
            p.batch = 32;
            p.seqLen = 512;
            p.hidden = 512;
            p.layers = 6;
            p.bf16 = false;
            p.extraElementwisePerLayer = 14;
            p.dataLoadNs = 1'000'000;
            p.pinnedAsyncCopy = true;
            p.dataWorkers = 2;
            p.cpuPerOpNs = 40'000;
            break;
    }
    return p;
}

// Emits CPU ops, their launch calls and the kernels they launch, keeping one clock per host
// thread and one for the GPU stream (work is serialised on the stream, like a real default stream).
class JobEmitter {
public:
    JobEmitter(core::TraceModel& model, const ScenarioParams& params, std::uint64_t seed)
        : m_model(model), m_params(params), m_rng(seed) {
        m_main = model.threadIndex(4242, 4242, "python (main thread)");
        m_autograd = model.threadIndex(4242, 4301, "pt_autograd_0");
    }

    double jitter() { return std::uniform_real_distribution<double>(0.97, 1.03)(m_rng); }

    // One framework op on `thread` that launches one kernel of `kernelNs` on the GPU.
    void op(core::ThreadIndex thread, TimestampNs& cpuClock, std::string_view opName, std::string_view shapes,
            std::string_view types, std::string_view kernelName, TimestampNs kernelNs, int gridX,
            int blockX) {
        TimestampNs opStart = cpuClock;
        TimestampNs cpuCost = static_cast<TimestampNs>(static_cast<double>(m_params.cpuPerOpNs) * jitter());
        TimestampNs launchStart = opStart + cpuCost * 6 / 10;
        TimestampNs launchEnd = launchStart + m_params.launchNs;
        TimestampNs opEnd = std::max(opStart + cpuCost, launchEnd + 1'000);
        addCpuOp(thread, opName, opStart, opEnd, shapes, types);
        std::int64_t correlation = m_nextCorrelation++;
        addApiCall(thread, "cudaLaunchKernel", launchStart, launchEnd, correlation);

        core::KernelRow kernel;
        kernel.startNs = std::max(m_gpuClock, launchEnd + 3'000);
        kernel.endNs =
            kernel.startNs + std::max(kKernelFloorNs, static_cast<TimestampNs>(kernelNs * jitter()));
        kernel.deviceIndex = 0;
        kernel.streamId = 7;
        kernel.name = m_model.intern(kernelName);
        kernel.gridX = gridX;
        kernel.gridY = kernel.gridZ = 1;
        kernel.blockX = blockX;
        kernel.blockY = kernel.blockZ = 1;
        kernel.registersPerThread = 128;
        kernel.dynamicSharedBytes = 49'152;
        kernel.correlationId = correlation;
        m_model.kernels.add(kernel);
        m_gpuClock = kernel.endNs;
        cpuClock = opEnd;
    }

    void addCpuOp(core::ThreadIndex thread, std::string_view name, TimestampNs start, TimestampNs end,
                  std::string_view shapes = {}, std::string_view types = {}) {
        core::CpuOpRow row;
        row.startNs = start;
        row.endNs = end;
        row.thread = thread;
        row.name = m_model.intern(name);
        row.inputShapes = m_model.intern(shapes);
        row.inputTypes = m_model.intern(types);
        row.externalId = m_nextExternalId++;
        m_model.cpuOps.add(row);
    }

    void addApiCall(core::ThreadIndex thread, std::string_view name, TimestampNs start, TimestampNs end,
                    std::int64_t correlation) {
        core::ApiCallRow row;
        row.startNs = start;
        row.endNs = end;
        row.thread = thread;
        row.name = m_model.intern(name);
        row.correlationId = correlation;
        m_model.apiCalls.add(row);
    }

    void addRange(core::ThreadIndex thread, std::string_view name, TimestampNs start, TimestampNs end) {
        core::RangeRow row;
        row.startNs = start;
        row.endNs = end;
        row.thread = thread;
        row.source = core::RangeSource::UserAnnotation;
        row.name = m_model.intern(name);
        m_model.ranges.add(row);
    }

    // Host-to-device copy of the batch; pageable copies block the CPU until done.
    void copyBatch(TimestampNs& cpuClock, std::int64_t bytes, std::string_view shapes) {
        std::int64_t correlation = m_nextCorrelation++;
        TimestampNs callStart = cpuClock + 4'000;
        core::MemcpyRow copy;
        copy.kind = core::MemcpyKind::HostToDevice;
        copy.sizeBytes = bytes;
        copy.deviceIndex = 0;
        copy.streamId = 7;
        copy.correlationId = correlation;
        copy.srcKind = m_params.pinnedAsyncCopy ? core::MemoryKind::Pinned : core::MemoryKind::Pageable;
        copy.dstKind = core::MemoryKind::Device;
        // PCIe Gen5 x16: about 50 GB/s pinned, half that for pageable staging.
        double bytesPerSecond = m_params.pinnedAsyncCopy ? 50e9 : 25e9;
        copy.startNs = std::max(m_gpuClock, callStart + 8'000);
        copy.endNs =
            copy.startNs + static_cast<TimestampNs>(static_cast<double>(bytes) / bytesPerSecond * 1e9);
        m_model.memcpys.add(copy);
        m_gpuClock = copy.endNs;
        TimestampNs callEnd = m_params.pinnedAsyncCopy ? callStart + 9'000 : copy.endNs + 2'000;
        addCpuOp(m_main, "aten::to", cpuClock, callEnd + 3'000, shapes, "[\"long\"]");
        addApiCall(m_main, "cudaMemcpyAsync", callStart, callEnd, correlation);
        cpuClock = callEnd + 3'000;
    }

    // loss.item(): a tiny device-to-host copy and a stream synchronize that waits for the GPU.
    void lossItem(TimestampNs& cpuClock) {
        TimestampNs opStart = cpuClock;
        std::int64_t correlation = m_nextCorrelation++;
        core::MemcpyRow copy;
        copy.kind = core::MemcpyKind::DeviceToHost;
        copy.sizeBytes = 4;
        copy.deviceIndex = 0;
        copy.streamId = 7;
        copy.correlationId = correlation;
        copy.srcKind = core::MemoryKind::Device;
        copy.dstKind = core::MemoryKind::Pageable;
        copy.startNs = std::max(m_gpuClock, opStart + 12'000);
        copy.endNs = copy.startNs + 2'000;
        m_model.memcpys.add(copy);
        m_gpuClock = copy.endNs;
        addApiCall(m_main, "cudaMemcpyAsync", opStart + 5'000, opStart + 9'000, correlation);
        std::int64_t syncCorrelation = m_nextCorrelation++;
        addApiCall(m_main, "cudaStreamSynchronize", opStart + 10'000, copy.endNs + 3'000, syncCorrelation);
        core::SyncRow sync;
        sync.startNs = opStart + 10'000;
        sync.endNs = copy.endNs + 3'000;
        sync.deviceIndex = 0;
        sync.streamId = 7;
        sync.thread = m_main;
        sync.kind = core::SyncKind::StreamSynchronize;
        sync.correlationId = syncCorrelation;
        m_model.syncs.add(sync);
        cpuClock = copy.endNs + 6'000;
        addCpuOp(m_main, "aten::item", opStart, cpuClock, "[[]]", "[\"float\"]");
        addCpuOp(m_main, "aten::_local_scalar_dense", opStart + 2'000, cpuClock - 1'000, "[[]]",
                 "[\"float\"]");
    }

    core::TraceModel& m_model;
    const ScenarioParams& m_params;
    std::mt19937_64 m_rng;
    core::ThreadIndex m_main = 0;
    core::ThreadIndex m_autograd = 0;
    TimestampNs m_gpuClock = 0;
    std::int64_t m_nextCorrelation = 1;
    std::int64_t m_nextExternalId = 1;
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

}  // namespace

std::string_view scenarioName(SyntheticScenario scenario) {
    switch (scenario) {
        case SyntheticScenario::DataBound:
            return "data-bound";
        case SyntheticScenario::DataBoundFixed:
            return "data-bound-fixed";
        case SyntheticScenario::ComputeBound:
            return "compute-bound";
        case SyntheticScenario::LaunchBound:
            return "launch-bound";
        case SyntheticScenario::MemoryBound:
            return "memory-bound";
    }
    return "unknown";
}

core::TraceModel makeSyntheticTrainingTrace(const SyntheticOptions& options) {
    const ScenarioParams p = paramsFor(options.scenario);
    core::TraceModel model;
    model.metadata.sourceFormat = "synthetic";
    model.metadata.synthetic = true;
    model.metadata.producer = "chokepoint synthetic sample generator 0.1";
    model.metadata.hostName = "synthetic";
    model.metadata.notes.emplace_back("scenario", std::string(scenarioName(options.scenario)));
    model.metadata.notes.emplace_back(
        "warning", "SYNTHETIC: generated by Chokepoint's own cost model, not captured from a real GPU");

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
    model.processes.push_back({4242, "python train.py"});

    JobEmitter job(model, p, options.seed);
    const long b = p.batch, s = p.seqLen, h = p.hidden, tokens = b * s;
    const double peak = p.bf16 ? kBf16PeakFlops : kTf32PeakFlops;
    const int dtypeBytes = p.bf16 ? 2 : 4;
    const std::string dtype = p.bf16 ? "\"c10::BFloat16\"" : "\"float\"";
    const std::string gemmKernel = p.bf16 ? "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
                                            "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
                                          : "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_"
                                            "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
    const std::string elementwiseType = p.bf16 ? "c10::BFloat16" : "float";
    const std::string mulKernel =
        "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<" + elementwiseType +
        ", " + elementwiseType + ", " + elementwiseType + ", at::native::binary_internal::MulFunctor<" +
        elementwiseType + "> > >";

    auto gemmNs = [&](double m, double n, double k) {
        return static_cast<TimestampNs>(2.0 * m * n * k / (peak * kGemmEfficiency) * 1e9);
    };
    auto streamNs = [&](double bytes) {
        return static_cast<TimestampNs>(bytes / (kHbmBytesPerSecond * kBandwidthEfficiency) * 1e9);
    };
    auto gridFor = [](double m, double n) {
        return static_cast<int>(std::ceil(m / 128) * std::ceil(n / 128));
    };
    const double activationBytes = static_cast<double>(tokens * h * dtypeBytes);

    const double params = 12.0 * static_cast<double>(h * h) * p.layers;
    model.metadata.notes.emplace_back("model.parameter_count",
                                      std::to_string(static_cast<long long>(params)));
    model.metadata.notes.emplace_back("model.tokens_per_step", std::to_string(tokens));
    model.metadata.notes.emplace_back("model.flops_per_step",
                                      std::to_string(static_cast<long long>(6.0 * params * tokens)));

    core::ThreadIndex main = job.m_main;
    core::ThreadIndex autograd = job.m_autograd;
    std::vector<core::ThreadIndex> workers;
    for (int w = 0; w < p.dataWorkers; ++w) {
        workers.push_back(model.threadIndex(5000 + w, 5000 + w, "DataLoader worker " + std::to_string(w)));
    }

    TimestampNs cpu = 1'000'000;
    std::string xShape = shapeList({{b, s, h}});
    for (int step = 0; step < options.steps; ++step) {
        TimestampNs stepStart = cpu;
        // --- data loading ---------------------------------------------------------------------
        TimestampNs loadNs = static_cast<TimestampNs>(static_cast<double>(p.dataLoadNs) * job.jitter());
        job.addRange(main, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", cpu, cpu + loadNs);
        if (p.dataWorkers == 0) {
            // Per-sample transforms run on the main thread: the GPU has nothing to do meanwhile.
            TimestampNs t = cpu + 20'000;
            for (int sample = 0; sample < p.batch && t < cpu + loadNs; ++sample) {
                TimestampNs each = (loadNs - 40'000) / p.batch;
                job.addCpuOp(main, "transforms.Compose.__call__", t, t + each - 5'000);
                t += each;
            }
        }
        cpu += loadNs;
        job.copyBatch(cpu, tokens * 8, shapeList({{b, s}, {}, {}, {}, {}, {}}));

        // --- forward ----------------------------------------------------------------------------
        // Forward ops that recur in every layer.
        auto layerNorm = [&] {
            job.op(main, cpu, "aten::layer_norm", shapeList({{b, s, h}, {h}, {h}}), "[" + dtype + "]",
                   "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<" + elementwiseType +
                       ", float>(int, float, " + elementwiseType + " const*)",
                   streamNs(2 * activationBytes), static_cast<int>(tokens / 4), 256);
        };
        auto residualAdd = [&] {
            job.op(main, cpu, "aten::add", shapeList({{b, s, h}, {b, s, h}, {}}),
                   "[" + dtype + ", " + dtype + ", \"Scalar\"]",
                   "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<" +
                       elementwiseType + "> >",
                   streamNs(3 * activationBytes), static_cast<int>(tokens * h / 512), 128);
        };
        // y = x W^T + b with W of shape [outFeatures, inFeatures].
        auto linear = [&](long outFeatures, long inFeatures) {
            job.op(main, cpu, "aten::linear",
                   shapeList({{b, s, inFeatures}, {outFeatures, inFeatures}, {outFeatures}}),
                   "[" + dtype + ", " + dtype + ", " + dtype + "]", gemmKernel,
                   gemmNs(tokens, outFeatures, inFeatures), gridFor(tokens, outFeatures), 384);
        };
        for (int layer = 0; layer < p.layers; ++layer) {
            layerNorm();
            linear(3 * h, h);
            job.op(
                main, cpu, "aten::scaled_dot_product_attention",
                shapeList({{b, h / 64, s, 64}, {b, h / 64, s, 64}, {b, h / 64, s, 64}}),
                "[" + dtype + ", " + dtype + ", " + dtype + "]",
                "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
                "cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>(pytorch_flash::"
                "Flash_fwd_params)",
                static_cast<TimestampNs>(4.0 * b * s * s * h / (peak * 0.45) * 1e9),
                static_cast<int>(b * (h / 64) * std::ceil(s / 128.0)), 128);
            linear(h, h);
            for (int extra = 0; extra < p.extraElementwisePerLayer; ++extra) {
                const char* name = extra % 3 == 0   ? "aten::dropout"
                                   : extra % 3 == 1 ? "aten::mul"
                                                    : "aten::add";
                job.op(main, cpu, name, shapeList({{b, s, h}, {b, s, h}}), "[" + dtype + ", " + dtype + "]",
                       mulKernel, streamNs(3 * activationBytes), static_cast<int>(tokens * h / 512), 128);
            }
            residualAdd();
            layerNorm();
            linear(4 * h, h);
            job.op(main, cpu, "aten::gelu", shapeList({{b, s, 4 * h}}), "[" + dtype + "]",
                   "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
                   streamNs(8 * activationBytes), static_cast<int>(tokens * h / 128), 128);
            linear(h, 4 * h);
            residualAdd();
        }
        job.op(main, cpu, "aten::cross_entropy_loss", shapeList({{tokens, 32000}, {tokens}}),
               "[" + dtype + ", \"long\"]",
               "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
               "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>",
               streamNs(static_cast<double>(tokens) * 32000 * dtypeBytes * 2), static_cast<int>(tokens), 256);

        // --- backward on the autograd thread; the main thread waits in backward() ---------------
        TimestampNs backwardStart = cpu + 10'000;
        TimestampNs bwd = backwardStart;
        for (int layer = p.layers - 1; layer >= 0; --layer) {
            for (int gemm = 0; gemm < 4; ++gemm) {
                double n = gemm == 0 ? h : gemm == 1 ? 4 * h : gemm == 2 ? h : 3 * h;
                double k = gemm == 0 ? 4 * h : h;
                TimestampNs outer = bwd;
                job.op(
                    autograd, bwd, "aten::mm",
                    shapeList({{tokens, static_cast<long>(n)}, {static_cast<long>(n), static_cast<long>(k)}}),
                    "[" + dtype + ", " + dtype + "]", gemmKernel, gemmNs(tokens, k, n), gridFor(tokens, k),
                    384);
                job.op(autograd, bwd, "aten::mm",
                       shapeList({{static_cast<long>(n), tokens}, {tokens, static_cast<long>(k)}}),
                       "[" + dtype + ", " + dtype + "]", gemmKernel, gemmNs(n, k, tokens), gridFor(n, k),
                       384);
                job.addCpuOp(autograd, "autograd::engine::evaluate_function: AddmmBackward0", outer,
                             bwd + 2'000);
                bwd += 4'000;
            }
            job.op(
                autograd, bwd, "aten::gelu_backward", shapeList({{b, s, 4 * h}, {b, s, 4 * h}}),
                "[" + dtype + ", " + dtype + "]",
                "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl>",
                streamNs(12 * activationBytes), static_cast<int>(tokens * h / 128), 128);
            job.op(autograd, bwd, "aten::_scaled_dot_product_flash_attention_backward",
                   shapeList({{b, h / 64, s, 64}, {b, h / 64, s, 64}, {b, h / 64, s, 64}}),
                   "[" + dtype + ", " + dtype + ", " + dtype + "]",
                   "void "
                   "pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, "
                   "128, "
                   "128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, true, false, false, false, false>("
                   "pytorch_flash::Flash_bwd_params)",
                   static_cast<TimestampNs>(10.0 * b * s * s * h / (peak * 0.4) * 1e9),
                   static_cast<int>(b * (h / 64) * std::ceil(s / 128.0)), 256);
            for (int norm = 0; norm < 2; ++norm) {
                job.op(autograd, bwd, "aten::native_layer_norm_backward",
                       shapeList({{b, s, h}, {b, s, h}, {h}}),
                       "[" + dtype + ", " + dtype + ", " + dtype + "]",
                       "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel<" +
                           elementwiseType + ", float>",
                       streamNs(3 * activationBytes), static_cast<int>(tokens / 4), 256);
            }
            for (int extra = 0; extra < p.extraElementwisePerLayer; ++extra) {
                job.op(autograd, bwd, "aten::mul", shapeList({{b, s, h}, {b, s, h}}),
                       "[" + dtype + ", " + dtype + "]", mulKernel, streamNs(3 * activationBytes),
                       static_cast<int>(tokens * h / 512), 128);
            }
        }
        job.addCpuOp(main, "autograd::engine::evaluate_function: backward", cpu, bwd + 20'000);
        cpu = bwd + 20'000;

        // --- optimizer --------------------------------------------------------------------------
        TimestampNs optimizerStart = cpu;
        const int optimizerChunks = 4;
        for (int chunk = 0; chunk < optimizerChunks; ++chunk) {
            // AdamW reads and writes param, grad, exp_avg, exp_avg_sq in fp32: 16 B/param each way.
            job.op(main, cpu, "aten::_fused_adamw_", "[]", "[\"TensorList\"]",
                   "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                   "namespace)::TensorListMetadata<4>, at::native::(anonymous "
                   "namespace)::FusedAdamMathFunctor<float, "
                   "4, (at::native::ADAM_MODE)1, false>, float*, double, double, double, double, double, "
                   "double, bool>",
                   streamNs(params / optimizerChunks * 32), 1200, 512);
        }
        job.addRange(main, "Optimizer.step#AdamW.step", optimizerStart, cpu + 5'000);
        cpu += 5'000;
        job.lossItem(cpu);
        cpu += 30'000;
        job.addRange(main, std::string(names::kProfilerStepPrefix) + std::to_string(100 + step), stepStart,
                     cpu);

        // DataLoader workers decode and transform the next batches while the GPU trains.
        for (std::size_t w = 0; w < workers.size(); ++w) {
            TimestampNs t = stepStart + static_cast<TimestampNs>(w) * 150'000;
            while (t + 900'000 < cpu) {
                job.addCpuOp(workers[w], "transforms.Compose.__call__", t, t + 700'000);
                t += 1'000'000;
            }
        }
    }
    model.finalize();
    return model;
}

}  // namespace chokepoint::samples

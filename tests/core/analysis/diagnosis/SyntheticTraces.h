#pragma once
// Small synthetic training traces, one per bottleneck class, built with TraceBuilder. Each has
// `steps` ProfilerStep ranges of 10 ms on host thread 1; GPU work is launched by cudaLaunchKernel
// calls joined by correlation id, so it is attributed to its step.

#include <cstdint>
#include <string>

#include "core/model/TraceModel.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::testutils {

inline constexpr core::DurationNs kStepNs = 10'000'000;

class SyntheticJob {
public:
    explicit SyntheticJob(const char* deviceName = "NVIDIA A100-SXM4-80GB", int smCount = 108,
                          std::int64_t memoryBytes = 80'000'000'000) {
        m_b.device(0, deviceName, smCount, memoryBytes);
    }

    TraceBuilder& builder() { return m_b; }

    void step(int index) {
        m_b.range("ProfilerStep#" + std::to_string(index), stepStart(index), stepStart(index + 1) - 1);
    }

    static core::TimestampNs stepStart(int index) { return static_cast<core::TimestampNs>(index) * kStepNs; }

    // A kernel on `stream` launched by a 5 µs cudaLaunchKernel call that starts `leadNs` before it.
    void launched(const std::string& name, core::TimestampNs startNs, core::TimestampNs endNs, int stream = 7,
                  core::DurationNs leadNs = 20'000, int device = 0) {
        const std::int64_t correlation = ++m_correlation;
        const core::TimestampNs launchAt = std::max<core::TimestampNs>(0, startNs - leadNs);
        m_b.apiCall("cudaLaunchKernel", launchAt, launchAt + 5'000, correlation);
        m_b.kernel(name, startNs, endNs, device, stream, correlation);
    }

    core::TraceModel build() { return m_b.build(); }

private:
    TraceBuilder m_b;
    std::int64_t m_correlation = 0;
};

inline const char* kFp32Gemm = "volta_sgemm_128x64_nn";
inline const char* kTensorCoreGemm =
    "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel";
inline const char* kElementwise =
    "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, at::detail::Array<char*, 3>)";
inline const char* kLayerNorm =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float "
    "const*, float const*, float const*, float*, float*, float*)";
inline const char* kNcclAllReduce = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)";
inline const char* kDataLoaderNext = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

// Data-bound: each step waits 4 ms in DataLoader.__next__ with the GPU idle, then 5.8 ms of GEMMs.
inline core::TraceModel dataBoundJob(int steps = 4) {
    SyntheticJob job;
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        job.builder().range(kDataLoaderNext, t + 50'000, t + 4'000'000);
        for (int k = 0; k < 6; ++k) {
            const core::TimestampNs start = t + 4'100'000 + k * 970'000;
            job.launched(kFp32Gemm, start, start + 960'000, 7, 60'000);
        }
    }
    return job.build();
}

// Compute-bound: back-to-back FP32 GEMMs fill 96 % of each step.
inline core::TraceModel computeBoundJob(int steps = 4, const char* gemm = kFp32Gemm) {
    SyntheticJob job("Tesla V100-SXM2-32GB", 80, 34'089'730'048);
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 8; ++k) {
            const core::TimestampNs start = t + 200'000 + k * 1'200'000;
            job.launched(gemm, start, start + 1'200'000, 7, 150'000);
        }
    }
    return job.build();
}

// Memory-bandwidth-bound: 65 % busy with elementwise and layer-norm kernels, gaps with no host activity.
inline core::TraceModel memoryBoundJob(int steps = 4) {
    SyntheticJob job;
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 10; ++k) {
            const core::TimestampNs start = t + 100'000 + k * 990'000;
            // Launched early (all at the step start): the gaps are not host launch gaps.
            job.launched(k % 3 == 2 ? kLayerNorm : kElementwise, start, start + 650'000, 7,
                         start - t - 10'000 * k);
        }
    }
    return job.build();
}

// Communication-bound: 3 ms of GEMMs then a 6 ms AllReduce on the NCCL stream, not overlapped.
inline core::TraceModel communicationBoundJob(int steps = 4) {
    SyntheticJob job;
    core::TraceModel& m = job.builder().model();
    m.distributed.present = true;
    m.distributed.rank = 0;
    m.distributed.worldSize = 8;
    m.distributed.backend = "nccl";
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 3; ++k) {
            const core::TimestampNs start = t + 200'000 + k * 1'000'000;
            job.launched(kTensorCoreGemm, start, start + 1'000'000, 7, 150'000);
        }
        job.launched(kNcclAllReduce, t + 3'300'000, t + 9'600'000, 13, 100'000);
    }
    return job.build();
}

// Launch-overhead-bound: 150 kernels of 4 µs per step, each launched from a 60 µs aten op.
inline core::TraceModel launchBoundJob(int steps = 4) {
    SyntheticJob job;
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 150; ++k) {
            const core::TimestampNs opStart = t + 100'000 + k * 64'000;
            job.builder().cpuOp("aten::add", opStart, opStart + 60'000);
            job.launched(kElementwise, opStart + 58'000, opStart + 62'000, 7, 8'000);
        }
    }
    return job.build();
}

// Memory-capacity-bound: the compute-bound job with an allocated-memory counter near the 32 GB capacity.
inline core::TraceModel capacityBoundJob(int steps = 4) {
    core::TraceModel m = computeBoundJob(steps);
    core::CounterTrack track;
    track.name = "GPU memory allocated";
    track.unit = "bytes";
    track.deviceIndex = 0;
    track.timesNs = {0, kStepNs, 2 * kStepNs};
    track.values = {20e9, 33.5e9, 33.9e9};
    m.counters.push_back(track);
    return m;
}

}  // namespace chokepoint::testutils

#pragma once
// A trace of one process driving two GPUs, for per-device accounting tests (core, CLI and GUI).

#include "tests/core/analysis/diagnosis/SyntheticTraces.h"

namespace chokepoint::testutils {

// GPU 0: back-to-back tensor-core GEMMs fill 96 % of each step. GPU 1: eight 200 µs elementwise
// kernels per step, idle 84 %. One host thread launches both (as a single process does with
// torch.cuda.set_device per stage). `gpu1Launches` elementwise kernels per step go to GPU 1.
inline core::TraceModel twoGpuProcess(int gpu1Launches = 8) {
    SyntheticJob job("NVIDIA A100-SXM4-80GB");
    job.builder().device(1, "NVIDIA A100-SXM4-80GB", 108, 80'000'000'000);
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.step(s);
        for (int k = 0; k < 8; ++k) {
            const core::TimestampNs start = t + 200'000 + k * 1'200'000;
            job.launched(kTensorCoreGemm, start, start + 1'200'000, 7, 150'000, 0);
        }
        for (int k = 0; k < gpu1Launches; ++k) {
            const core::TimestampNs start = t + 300'000 + k * 1'200'000;
            job.launched(kElementwise, start, start + 200'000, 7, 100'000, 1);
        }
    }
    return job.build();
}

}  // namespace chokepoint::testutils

#pragma once
// Small models for the shell and timeline tests: two streams of kernels launched from one thread
// (correlation ids join kernels to their launch calls), nested ranges and ops, and a counter.

#include <memory>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::testutils {

inline std::shared_ptr<const core::TraceModel> timelineTestModel() {
    TraceBuilder b;
    b.device(0, "NVIDIA H100 80GB HBM3", 132);
    for (int step = 0; step < 3; ++step) {
        const core::TimestampNs base = step * 1'000'000;
        b.range("ProfilerStep#" + std::to_string(step + 1), base, base + 900'000);
        b.cpuOp("aten::linear", base + 10'000, base + 400'000);
        for (int k = 0; k < 10; ++k) {
            const std::int64_t correlation = step * 100 + k + 1;
            const core::TimestampNs launch = base + 20'000 + k * 30'000;
            b.apiCall("cudaLaunchKernel", launch, launch + 5'000, correlation);
            b.kernel(k % 2 == 0 ? "ampere_sgemm_128x64_tn" : "vectorized_elementwise_relu", launch + 50'000,
                     launch + 70'000, 0, 7, correlation);
        }
        b.kernel("ncclDevKernel_AllReduce_Sum_bf16", base + 500'000, base + 800'000, 0, 13);
        b.memcpy(core::MemcpyKind::HostToDevice, 8 << 20, base + 5'000, base + 15'000, 0, 7);
    }
    core::CounterTrack counter;
    counter.name = "SM active";
    counter.unit = "%";
    counter.deviceIndex = 0;
    for (int i = 0; i < 30; ++i) {
        counter.timesNs.push_back(i * 100'000);
        counter.values.push_back((i * 37) % 100);
    }
    b.model().counters.push_back(counter);
    return std::make_shared<const core::TraceModel>(b.build());
}

}  // namespace chokepoint::testutils

// Property test: random small traces (overlaps, negative and zero durations, several devices and
// streams, random names, dangling correlations) must never crash the engine, and the accounting
// invariants must hold on every one.

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/analysis/metrics/TraceMetrics.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

core::TraceModel randomTrace(std::mt19937_64& rng) {
    std::uniform_int_distribution<int> count(0, 40);
    std::uniform_int_distribution<core::TimestampNs> time(-1000, 100'000);
    std::uniform_int_distribution<core::DurationNs> dur(-500, 20'000);
    std::uniform_int_distribution<int> small(0, 3);
    const char* kernelNames[] = {"ampere_sgemm_128x64_tn", "ncclKernel_AllReduce_RING_LL_Sum_float",
                                 "void at::native::vectorized_elementwise_kernel<4, add>", "x"};
    const char* opNames[] = {"aten::mm", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                             "c10d::allreduce_", "aten::item"};
    const char* shapes[] = {"[[8, 16], [16, 4]]", "[[8, 1024]", "",
                            "[[2, 3, 4, 5], [2, 3, 4, 5], [2, 3, 4, 5]]"};
    const char* apiNames[] = {"cudaLaunchKernel", "cudaStreamSynchronize", "cudaMemcpyAsync", "cudaMemcpy"};
    TraceBuilder b;
    int steps = small(rng);
    for (int i = 0; i < steps; ++i) {
        core::TimestampNs t = time(rng);
        b.range("ProfilerStep#" + std::to_string(i), t, t + dur(rng), 1 + small(rng) % 2);
    }
    for (int i = 0, n = count(rng); i < n; ++i) {
        core::TimestampNs t = time(rng);
        b.cpuOp(opNames[small(rng)], t, t + dur(rng), 1 + small(rng) % 2, shapes[small(rng)], "[\"float\"]");
    }
    for (int i = 0, n = count(rng); i < n; ++i) {
        core::TimestampNs t = time(rng);
        b.apiCall(apiNames[small(rng)], t, t + dur(rng) / 10, 1 + small(rng) * 3, 1 + small(rng) % 2);
    }
    for (int i = 0, n = count(rng); i < n; ++i) {
        core::TimestampNs t = time(rng);
        b.kernel(kernelNames[small(rng)], t, t + dur(rng), small(rng) % 2, 7 + small(rng),
                 1 + small(rng) * 3);
    }
    for (int i = 0, n = count(rng) / 4; i < n; ++i) {
        core::TimestampNs t = time(rng);
        b.memcpy(static_cast<core::MemcpyKind>(small(rng) + 1), 4096, t, t + dur(rng), small(rng) % 2, 9,
                 1 + small(rng) * 3, small(rng) == 0 ? core::MemoryKind::Pageable : core::MemoryKind::Pinned);
    }
    for (int i = 0, n = count(rng) / 4; i < n; ++i) {
        core::TimestampNs t = time(rng);
        b.memset(64, t, t + dur(rng), small(rng) % 2, 7);
    }
    return b.build();
}

TEST(RandomTraceInvariants, AccountingAddsUpOnRandomTraces) {
    std::mt19937_64 rng(20261121);
    for (int iteration = 0; iteration < 300; ++iteration) {
        core::TraceModel model = randomTrace(rng);
        core::Result<TraceMetrics> m = computeTraceMetrics(model, {}, nullptr);
        ASSERT_TRUE(m.ok());
        auto check = [&](const GpuTimeBreakdown& b) {
            EXPECT_GE(b.busyNs, 0);
            EXPECT_LE(b.busyNs, b.windowNs);
            EXPECT_LE(b.computeNs, b.busyNs);
            EXPECT_LE(b.communicationNs, b.busyNs);
            EXPECT_LE(b.exposedCommunicationNs, b.communicationNs);
            EXPECT_LE(b.exposedCopyNs, b.copyNs);
            EXPECT_EQ(b.idleNs, b.windowNs - b.busyNs);
            core::DurationNs causes = 0;
            for (core::DurationNs v : b.idleByCauseNs) {
                EXPECT_GE(v, 0);
                causes += v;
            }
            EXPECT_EQ(causes, b.idleNs) << "iteration " << iteration;
        };
        for (const GpuTimeBreakdown& b : m->accounting.perStep) {
            check(b);
        }
        for (const GpuTimeBreakdown& b : m->accounting.perDevice) {
            check(b);
        }
        for (const IdleInterval& idle : m->accounting.idleIntervals) {
            EXPECT_FALSE(idle.range.empty());
            EXPECT_GE(idle.coverage, 0.0);
            EXPECT_LE(idle.coverage, 1.0 + 1e-12);
        }
        const HtaBreakdown& hta = m->hta;
        if (hta.hasGpuWork) {
            EXPECT_GE(hta.idleNs, 0);
            EXPECT_GE(hta.nonComputeNs, 0);
            EXPECT_NEAR(hta.idlePercent() + hta.computePercent() + hta.nonComputePercent(),
                        hta.windowNs > 0 ? 100.0 : 0.0, 1e-9);
        }
        EXPECT_EQ(m->steps.kernelStep.size(), model.kernels.size());
        EXPECT_EQ(m->phases.kernelPhase.size(), model.kernels.size());
        EXPECT_EQ(m->opCosts.kernelFlops.size(), model.kernels.size());
    }
}

}  // namespace
}  // namespace chokepoint::analysis

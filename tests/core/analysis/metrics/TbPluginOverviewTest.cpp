// The TensorBoard plugin's Overview rules on small hand-made traces (the parity with the plugin's
// own output on the real ResNet-50 pair is in tests/samples/RealSamplesTest.cpp).

#include "core/analysis/metrics/TbPluginOverview.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;
constexpr core::DurationNs kUs = 1000;

core::DurationNs role(const TbStep& s, TbRole r) {
    return s.roleNs[static_cast<std::size_t>(r)];
}

TEST(TbPluginOverview, StepsStretchToTheirGpuWorkAndRolesClaimInPriorityOrder) {
    TraceBuilder b;
    b.device(0, "GPU", 10);
    b.range("ProfilerStep#1", 0, 100 * kUs);
    b.range("ProfilerStep#2", 100 * kUs, 200 * kUs);
    b.cpuOp("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 40 * kUs);
    b.cpuOp("aten::conv2d", 40 * kUs, 60 * kUs);
    b.apiCall("cudaLaunchKernel", 45 * kUs, 50 * kUs, 1);
    b.kernel("k1", 55 * kUs, 120 * kUs, 0, 7, 1);  // launched in step 1, ends inside step 2's host range
    b.cpuOp("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100 * kUs, 130 * kUs);
    b.apiCall("cudaLaunchKernel", 140 * kUs, 141 * kUs, 2);
    b.kernel("k2", 150 * kUs, 230 * kUs, 0, 7, 2);  // ends after step 2's host range
    TbPluginOverview o = computeTbPluginOverview(b.build());
    ASSERT_TRUE(o.available);
    ASSERT_EQ(o.steps.size(), 2u);
    EXPECT_EQ(o.steps[0].name, "1");
    EXPECT_EQ(o.steps[0].range, (core::TimeRange{0, 120 * kUs}));
    // Step 2 starts where step 1 ended and ends with its kernel.
    EXPECT_EQ(o.steps[1].range, (core::TimeRange{120 * kUs, 230 * kUs}));
    const TbStep& s1 = o.steps[0];
    EXPECT_EQ(role(s1, TbRole::Kernel), 65 * kUs);      // [55,120)
    EXPECT_EQ(role(s1, TbRole::Runtime), 5 * kUs);      // [45,50)
    EXPECT_EQ(role(s1, TbRole::DataLoader), 40 * kUs);  // [0,40); [100,120) is Kernel's
    EXPECT_EQ(role(s1, TbRole::CpuExec), 10 * kUs);     // [40,45) and [50,55) (never the ProfilerStep)
    EXPECT_EQ(role(s1, TbRole::Other), 0);
    const TbStep& s2 = o.steps[1];
    EXPECT_EQ(role(s2, TbRole::DataLoader), 10 * kUs);  // [120,130)
    EXPECT_EQ(role(s2, TbRole::Runtime), 1 * kUs);
    EXPECT_EQ(role(s2, TbRole::Kernel), 80 * kUs);
    EXPECT_EQ(role(s2, TbRole::Other), 19 * kUs);  // [130,140) and [141,150)
    EXPECT_DOUBLE_EQ(o.averageStepNs, 115.0 * kUs);
    EXPECT_DOUBLE_EQ(o.roleShare(TbRole::DataLoader), 25.0 / 115.0);
    ASSERT_EQ(o.gpus.size(), 1u);
    EXPECT_DOUBLE_EQ(o.gpus[0].utilization, 145.0 / 230.0);
}

TEST(TbPluginOverview, TrailingStepsWithoutOrWithTooLittleGpuWorkAreDropped) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100 * kUs);
    b.range("ProfilerStep#2", 100 * kUs, 200 * kUs);
    b.range("ProfilerStep#3", 200 * kUs, 300 * kUs);
    b.range("ProfilerStep#4", 300 * kUs, 400 * kUs);
    std::int64_t corr = 1;
    for (int step = 0; step < 3; ++step) {
        // Steps 1 and 2 launch five kernels, step 3 only three (< 0.8 x 5), step 4 none.
        const int kernels = step < 2 ? 5 : 3;
        for (int k = 0; k < kernels; ++k) {
            const core::TimestampNs t = (step * 100 + k * 10) * kUs;
            b.apiCall("cudaLaunchKernel", t, t + kUs, corr);
            b.kernel("k", t + 2 * kUs, t + 5 * kUs, 0, 7, corr);
            ++corr;
        }
    }
    TbPluginOverview o = computeTbPluginOverview(b.build());
    ASSERT_TRUE(o.available);
    ASSERT_EQ(o.steps.size(), 2u);
    EXPECT_EQ(o.steps[1].name, "2");
    EXPECT_EQ(o.steps[1].deviceOps, 5);
}

TEST(TbPluginOverview, SmEfficiencyCapsOverlappingKernelsAtOneAndCountsIdleAsZero) {
    TraceBuilder b;
    b.device(0, "GPU", 10);
    b.range("ProfilerStep#1", 0, 100 * kUs);
    b.apiCall("cudaLaunchKernel", 1 * kUs, 2 * kUs, 1);
    core::KernelId a = b.kernel("a", 10 * kUs, 50 * kUs, 0, 7, 1);
    b.model().kernels.gridX[a.index] = 5;  // 0.5 blocks per SM
    b.apiCall("cudaLaunchKernel", 3 * kUs, 4 * kUs, 2);
    core::KernelId c = b.kernel("c", 30 * kUs, 100 * kUs, 0, 8, 2);
    b.model().kernels.gridX[c.index] = 8;  // 0.8 blocks per SM
    TbPluginOverview o = computeTbPluginOverview(b.build());
    ASSERT_EQ(o.gpus.size(), 1u);
    ASSERT_TRUE(o.gpus[0].smEfficiency.has_value());
    // [10,30): 0.5; [30,50): min(1.3, 1) = 1; [50,100): 0.8; over a 100 us step.
    EXPECT_NEAR(*o.gpus[0].smEfficiency, (20 * 0.5 + 20 * 1.0 + 50 * 0.8) / 100.0, 1e-12);
    EXPECT_DOUBLE_EQ(o.gpus[0].utilization, 0.9);
    // No compute capability: no occupancy estimate rather than a made-up one.
    EXPECT_FALSE(o.gpus[0].achievedOccupancyPercent.has_value());
}

TEST(TbPluginOverview, WithoutProfilerStepsTheCpuSpanIsOneStep) {
    TraceBuilder b;
    b.cpuOp("aten::mm", 10 * kUs, 20 * kUs);
    b.apiCall("cudaLaunchKernel", 12 * kUs, 13 * kUs, 1);
    b.kernel("k", 15 * kUs, 40 * kUs, 0, 7, 1);
    TbPluginOverview o = computeTbPluginOverview(b.build());
    ASSERT_TRUE(o.available);
    ASSERT_EQ(o.steps.size(), 1u);
    EXPECT_EQ(o.steps[0].name, "0");
    EXPECT_EQ(o.steps[0].range, (core::TimeRange{10 * kUs, 40 * kUs}));
}

TEST(TbPluginOverview, NoCpuSideEventsMeansNotAvailable) {
    TraceBuilder b;
    b.kernel("k", 0, 10 * kUs);
    TbPluginOverview o = computeTbPluginOverview(b.build());
    EXPECT_FALSE(o.available);
    EXPECT_FALSE(o.note.empty());
}

TEST(KernelOccupancy, VoltaLimitsMatchLibkinetoOnKernelsOfTheResNetTrace) {
    // Launch shapes and libkineto's "est. achieved occupancy %" as recorded in
    // samples/real/resnet50-nw0.pt.trace.json.gz (Tesla V100, 80 SMs, 2048 threads per SM).
    core::DeviceInfo v100;
    v100.computeMajor = 7;
    v100.computeMinor = 0;
    v100.smCount = 80;
    v100.maxThreadsPerSm = 2048;
    // volta_scudnn_128x64_relu_medium_nn_v1: limited to 4 blocks by 128 registers per thread.
    EXPECT_EQ(maxResidentBlocksPerSm({3136, 128, 128, 16384}, 7, 0), 4);
    EXPECT_EQ(estimatedAchievedOccupancyPercent({3136, 128, 128, 16384}, v100), 25);
    // cask_cudnn::computeOffsetsKernel: 50 blocks on 80 SMs, below every resource limit.
    EXPECT_EQ(estimatedAchievedOccupancyPercent({50, 256, 38, 0}, v100), 8);
    // A one-block elementwise kernel rounds to 0 %.
    EXPECT_EQ(estimatedAchievedOccupancyPercent({1, 64, 24, 0}, v100), 0);
}

TEST(KernelOccupancy, ResourceLimitsAndUnknownArchitectures) {
    // 1024-thread blocks: 64 warps per SM allow two.
    EXPECT_EQ(maxResidentBlocksPerSm({1000, 1024, 16, 0}, 7, 0), 2);
    // 48 KiB of shared memory per block: two fit in V100's 96 KiB.
    EXPECT_EQ(maxResidentBlocksPerSm({1000, 64, 16, 48 * 1024}, 7, 0), 2);
    // From sm_80 on, 1 KiB is reserved per block: 82 KiB blocks fit twice in A100's 164 KiB.
    EXPECT_EQ(maxResidentBlocksPerSm({1000, 64, 16, 81 * 1024}, 8, 0), 2);
    EXPECT_EQ(maxResidentBlocksPerSm({1000, 64, 16, 82 * 1024}, 8, 0), 1);
    // Tiny blocks hit the blocks-per-SM limit (16 on sm_75).
    EXPECT_EQ(maxResidentBlocksPerSm({1000, 32, 16, 0}, 7, 5), 16);
    // Impossible launches fit zero times.
    EXPECT_EQ(maxResidentBlocksPerSm({1, 2048, 16, 0}, 9, 0), 0);
    EXPECT_EQ(maxResidentBlocksPerSm({1, 64, 300, 0}, 9, 0), 0);
    EXPECT_FALSE(maxResidentBlocksPerSm({1, 64, 16, 0}, 3, 5).has_value());
}

}  // namespace
}  // namespace chokepoint::analysis

#include "core/analysis/metrics/HtaBreakdown.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;
constexpr core::DurationNs kUs = 1000;

TEST(HtaBreakdown, DropsWorkLaunchedInTheLastStepAndUnlaunchedWork) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100 * kUs);
    b.range("ProfilerStep#2", 100 * kUs, 200 * kUs);
    b.apiCall("cudaLaunchKernel", 1 * kUs, 2 * kUs, 1);
    b.kernel("gemm", 10 * kUs, 50 * kUs, 0, 7, 1);
    b.apiCall("cudaLaunchKernel", 60 * kUs, 61 * kUs, 2);
    b.kernel("ncclKernel_AllReduce", 70 * kUs, 90 * kUs, 0, 20, 2);
    b.apiCall("cudaMemcpyAsync", 62 * kUs, 63 * kUs, 3);
    b.memcpy(core::MemcpyKind::DeviceToDevice, 64, 85 * kUs, 110 * kUs, 0, 7, 3);
    b.apiCall("cudaLaunchKernel", 120 * kUs, 121 * kUs, 4);  // launched in the last step: dropped
    b.kernel("gemm", 130 * kUs, 190 * kUs, 0, 7, 4);
    b.kernel("orphan", 95 * kUs, 96 * kUs);  // no launch call: dropped
    core::TraceModel model = b.build();
    HtaBreakdown hta = computeHtaBreakdown(model);
    ASSERT_TRUE(hta.hasGpuWork);
    EXPECT_TRUE(hta.droppedLastStep);
    EXPECT_EQ(hta.window, (core::TimeRange{10 * kUs, 110 * kUs}));
    EXPECT_EQ(hta.idleNs, 20 * kUs);     // [50,70)
    EXPECT_EQ(hta.computeNs, 40 * kUs);  // gemm
    EXPECT_EQ(hta.nonComputeNs, 40 * kUs);
    EXPECT_DOUBLE_EQ(hta.idlePercent(), 20.0);
    EXPECT_DOUBLE_EQ(hta.computePercent() + hta.nonComputePercent() + hta.idlePercent(), 100.0);
}

TEST(HtaBreakdown, WithoutTwoStepsEverythingIsKept) {
    TraceBuilder b;
    b.kernel("a", 0, 10 * kUs);
    b.kernel("b", 20 * kUs, 30 * kUs);
    core::TraceModel model = b.build();
    HtaBreakdown hta = computeHtaBreakdown(model);
    EXPECT_FALSE(hta.droppedLastStep);
    EXPECT_EQ(hta.windowNs, 30 * kUs);
    EXPECT_EQ(hta.idleNs, 10 * kUs);
}

TEST(HtaBreakdown, StreamIdleSplitHostWaitKernelWaitOther) {
    TraceBuilder b;
    b.apiCall("cudaLaunchKernel", 0, 1 * kUs, 1);
    b.kernel("k1", 2 * kUs, 10 * kUs, 0, 7, 1);
    b.apiCall("cudaLaunchKernel", 2 * kUs, 3 * kUs, 2);
    b.kernel("k2", 15 * kUs, 20 * kUs, 0, 7, 2);  // gap 5 us < 30 us, launched early: kernel_wait
    b.apiCall("cudaLaunchKernel", 4 * kUs, 5 * kUs, 3);
    b.kernel("k3", 120 * kUs, 130 * kUs, 0, 7, 3);  // gap 100 us, launched early: other
    b.apiCall("cudaLaunchKernel", 200 * kUs, 201 * kUs, 4);
    b.kernel("k4", 205 * kUs, 210 * kUs, 0, 7, 4);  // launched after k3 ended: host_wait (75 us)
    core::TraceModel model = b.build();
    HtaBreakdown hta = computeHtaBreakdown(model);
    ASSERT_EQ(hta.streams.size(), 1u);
    const HtaStreamIdle& s = hta.streams[0];
    EXPECT_EQ(s.streamId, 7);
    EXPECT_EQ(s.opCount, 4);
    EXPECT_EQ(s.kernelWaitNs, 5 * kUs);
    EXPECT_EQ(s.otherNs, 100 * kUs);
    EXPECT_EQ(s.hostWaitNs, 75 * kUs);
    EXPECT_EQ(hta.busiestStream, 0);
}

TEST(HtaBreakdown, TimesAreWholeMicrosecondsLikeHta) {
    TraceBuilder b;
    b.kernel("k", 1'500, 4'700);  // [1.5 us, 4.7 us) -> [2 us, 4 us)
    b.kernel("k", 10'000, 12'000);
    core::TraceModel model = b.build();
    HtaBreakdown hta = computeHtaBreakdown(model);
    EXPECT_EQ(hta.window, (core::TimeRange{2'000, 12'000}));
    EXPECT_EQ(hta.computeNs, 4'000);
    HtaOptions exact;
    exact.truncateToMicroseconds = false;
    HtaBreakdown precise = computeHtaBreakdown(model, exact);
    EXPECT_EQ(precise.computeNs, 3'200 + 2'000);
}

TEST(HtaBreakdown, NoGpuWork) {
    TraceBuilder b;
    b.cpuOp("aten::add", 0, 10);
    core::TraceModel model = b.build();
    HtaBreakdown hta = computeHtaBreakdown(model);
    EXPECT_FALSE(hta.hasGpuWork);
    EXPECT_EQ(hta.idlePercent(), 0.0);
    EXPECT_EQ(hta.busiestStream, -1);
}

}  // namespace
}  // namespace chokepoint::analysis

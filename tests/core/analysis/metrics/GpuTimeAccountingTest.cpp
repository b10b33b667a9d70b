#include "core/analysis/metrics/GpuTimeAccounting.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

GpuTimeAccountingResult account(const core::TraceModel& model, const AccountingOptions& options = {}) {
    StepsResult steps = detectSteps(model);
    KernelStatsResult kernels = computeKernelStats(model);
    return computeGpuTimeAccounting(model, steps, kernels, options);
}

TEST(GpuTimeAccounting, OverlappingStreamsComputeCommunicationCopiesAndMemsets) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 400);
    b.kernel("ampere_sgemm", 0, 100, 0, 7);
    b.kernel("ampere_sgemm", 150, 200, 0, 7);
    b.kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 50, 180, 0, 20);
    b.memcpy(core::MemcpyKind::HostToDevice, 4096, 220, 260, 0, 8);
    b.memcpy(core::MemcpyKind::DeviceToHost, 4096, 250, 270, 0, 9);
    b.memset(1024, 300, 310, 0, 7);
    core::TraceModel model = b.build();
    GpuTimeAccountingResult r = account(model);
    ASSERT_EQ(r.perStep.size(), 1u);
    const GpuTimeBreakdown& s = r.perStep[0];
    EXPECT_EQ(s.windowNs, 400);
    EXPECT_EQ(s.busyNs, 200 + 50 + 10);  // [0,200) + [220,270) + [300,310)
    EXPECT_EQ(s.computeNs, 150);
    EXPECT_EQ(s.communicationNs, 130);
    EXPECT_EQ(s.exposedCommunicationNs, 50);  // [100,150)
    EXPECT_EQ(s.copyNs, 50);
    EXPECT_EQ(s.copyByKindNs[static_cast<std::size_t>(core::MemcpyKind::HostToDevice)], 40);
    EXPECT_EQ(s.copyByKindNs[static_cast<std::size_t>(core::MemcpyKind::DeviceToHost)], 20);
    EXPECT_EQ(s.exposedCopyNs, 50);
    EXPECT_EQ(s.memsetNs, 10);
    EXPECT_EQ(s.idleNs, 400 - 260);
    EXPECT_EQ(s.kernelCount, 3);
    EXPECT_EQ(s.memcpyCount, 2);
    EXPECT_EQ(s.memsetCount, 1);
    EXPECT_DOUBLE_EQ(s.busyFraction(), 260.0 / 400.0);
    // Every idle nanosecond has a cause.
    core::DurationNs causes = 0;
    for (core::DurationNs v : s.idleByCauseNs) {
        causes += v;
    }
    EXPECT_EQ(causes, s.idleNs);
    ASSERT_EQ(r.perDevice.size(), 1u);
    EXPECT_EQ(r.perDevice[0].busyNs, 260);
    ASSERT_EQ(r.perDeviceGpuSpan.size(), 1u);
    EXPECT_EQ(r.perDeviceGpuSpan[0].windowNs, 310);
}

TEST(GpuTimeAccounting, NegativeAndZeroDurationsCountAsZero) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.kernel("k", 10, 30);
    b.kernel("broken", 50, 40);  // negative duration
    b.kernel("zero", 60, 60);
    core::TraceModel model = b.build();
    GpuTimeAccountingResult r = account(model);
    ASSERT_EQ(r.perStep.size(), 1u);
    EXPECT_EQ(r.perStep[0].busyNs, 20);
    EXPECT_EQ(r.perStep[0].idleNs, 80);
    EXPECT_EQ(r.perStep[0].kernelCount, 3);
}

TEST(GpuTimeAccounting, SeveralDevicesGetTheirOwnRows) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.range("ProfilerStep#2", 100, 200);
    b.kernel("k", 0, 90, 0);
    b.kernel("k", 100, 150, 0);
    b.kernel("k", 10, 20, 1);
    core::TraceModel model = b.build();
    GpuTimeAccountingResult r = account(model);
    ASSERT_EQ(r.devices.size(), 2u);
    ASSERT_EQ(r.perStep.size(), 4u);  // 2 devices x 2 steps
    ASSERT_EQ(r.perDevice.size(), 2u);
    EXPECT_EQ(r.perDevice[0].deviceIndex, 0);
    EXPECT_EQ(r.perDevice[0].busyNs, 140);
    EXPECT_EQ(r.perDevice[1].deviceIndex, 1);
    EXPECT_EQ(r.perDevice[1].busyNs, 10);
    EXPECT_EQ(r.perDevice[1].idleNs, 190);
    for (const IdleInterval& idle : r.idleIntervals) {
        EXPECT_TRUE(idle.deviceIndex == 0 || idle.deviceIndex == 1);
    }
}

TEST(GpuTimeAccounting, NoGpuEventsGivesNoRows) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.cpuOp("aten::add", 0, 50);
    core::TraceModel model = b.build();
    GpuTimeAccountingResult r = account(model);
    EXPECT_TRUE(r.devices.empty());
    EXPECT_TRUE(r.perStep.empty());
    EXPECT_TRUE(r.idleIntervals.empty());
}

TEST(GpuTimeAccounting, OneStepWholeTraceFallback) {
    TraceBuilder b;
    b.kernel("a", 0, 10);
    b.kernel("b", 30, 40);
    core::TraceModel model = b.build();
    GpuTimeAccountingResult r = account(model);
    ASSERT_EQ(r.perStep.size(), 1u);
    EXPECT_EQ(r.perStep[0].windowNs, 40);
    EXPECT_EQ(r.perStep[0].idleNs, 20);
    ASSERT_EQ(r.idleIntervals.size(), 1u);
    EXPECT_EQ(r.idleIntervals[0].range, (core::TimeRange{10, 30}));
    EXPECT_EQ(r.idleIntervals[0].cause, IdleCause::Unexplained);
}

TEST(GpuTimeAccounting, ShortGapsAreCountedButNotListed) {
    TraceBuilder b;
    b.kernel("a", 0, 10);
    b.kernel("b", 12, 20);
    b.kernel("c", 100, 110);
    core::TraceModel model = b.build();
    AccountingOptions options;
    options.minIdleNs = 5;
    GpuTimeAccountingResult r = account(model, options);
    ASSERT_EQ(r.idleIntervals.size(), 1u);
    EXPECT_EQ(r.idleIntervals[0].range, (core::TimeRange{20, 100}));
    EXPECT_EQ(r.perStep[0].idleNs, 82);
    EXPECT_EQ(r.perStep[0].idleByCauseNs[static_cast<std::size_t>(IdleCause::Unexplained)], 82);
}

}  // namespace
}  // namespace chokepoint::analysis

#include "core/analysis/metrics/TraceMetrics.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

core::TraceModel smallTrainingTrace() {
    TraceBuilder b;
    for (int step = 0; step < 3; ++step) {
        core::TimestampNs t = step * 1000;
        b.range("ProfilerStep#" + std::to_string(step), t, t + 1000);
        b.range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, t + 300);
        b.cpuOp("aten::mm", t + 300, t + 400, 1, "[[64, 64], [64, 64]]", R"(["float", "float"])");
        b.apiCall("cudaLaunchKernel", t + 310, t + 320, step + 1);
        b.kernel("ampere_sgemm_64x64_nn", t + 330, t + 900, 0, 7, step + 1);
    }
    return b.build();
}

TEST(TraceMetrics, BundlesEveryStage) {
    core::TraceModel model = smallTrainingTrace();
    core::Result<TraceMetrics> m = computeTraceMetrics(model, {}, nullptr);
    ASSERT_TRUE(m.ok());
    EXPECT_TRUE(m->hasGpuWork);
    EXPECT_EQ(m->steps.source, StepSource::ProfilerStep);
    EXPECT_EQ(m->steps.steps.size(), 3u);
    ASSERT_EQ(m->accounting.perStep.size(), 3u);
    EXPECT_EQ(m->accounting.perStep[1].busyNs, 570);
    // The data-loading gaps at the start of steps 1 and 2 are waits for data.
    EXPECT_GE(m->accounting.perStep[1].idleByCauseNs[static_cast<std::size_t>(IdleCause::DataWait)], 300);
    EXPECT_TRUE(m->hta.hasGpuWork);
    EXPECT_EQ(m->kernels.kernels.size(), 1u);
    EXPECT_EQ(m->opCosts.opsCosted, 3);
    EXPECT_FALSE(m->roofline.points.empty());
    EXPECT_TRUE(m->phases.seen[static_cast<std::size_t>(PhaseKind::DataLoading)]);
}

TEST(TraceMetrics, ProgressCanCancel) {
    core::TraceModel model = smallTrainingTrace();
    int calls = 0;
    core::Result<TraceMetrics> m = computeTraceMetrics(model, {}, nullptr, [&](double fraction) {
        ++calls;
        EXPECT_GE(fraction, 0.0);
        EXPECT_LE(fraction, 1.0);
        return calls < 3;
    });
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().message, core::kCancelledMessage);
    EXPECT_EQ(calls, 3);
}

TEST(TraceMetrics, EmptyTraceIsHandled) {
    TraceBuilder b;
    core::TraceModel model = b.build();
    core::Result<TraceMetrics> m = computeTraceMetrics(model, {}, nullptr);
    ASSERT_TRUE(m.ok());
    EXPECT_FALSE(m->hasGpuWork);
    EXPECT_TRUE(m->steps.steps.empty());
    EXPECT_TRUE(m->accounting.perStep.empty());
    EXPECT_FALSE(m->hta.hasGpuWork);
}

}  // namespace
}  // namespace chokepoint::analysis

// On real traces, the range statistics of every step agree with the analyzer's figures for that
// step (busy, idle and idle by cause, per device): the bundled ResNet-50 sample and, when present,
// public traces of ../shared/traces.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "core/analysis/metrics/RangeStats.h"
#include "core/analysis/metrics/TraceMetrics.h"
#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"

namespace chokepoint::analysis {
namespace {

void expectStepsAgree(const std::string& path) {
    core::Result<core::TraceModel> model = core::loadTrace(path);
    ASSERT_TRUE(model.ok()) << model.error().message;
    core::Result<TraceMetrics> metrics = computeTraceMetrics(*model, {}, nullptr);
    ASSERT_TRUE(metrics.ok());
    const RangeStatsInputs inputs{&metrics->accounting, &metrics->kernels};
    ASSERT_FALSE(metrics->accounting.perStep.empty()) << path;
    for (const GpuTimeBreakdown& row : metrics->accounting.perStep) {
        const Step& step = metrics->steps.steps.at(static_cast<std::size_t>(row.stepIndex));
        RangeStatsOptions options;
        options.deviceIndex = row.deviceIndex;
        const RangeStats s = computeRangeStats(*model, step.range, inputs, options);
        ASSERT_EQ(s.devices.size(), 1u);
        const RangeDeviceStats& d = s.devices[0];
        EXPECT_EQ(d.busyNs, row.busyNs) << path << " " << step.name;
        EXPECT_EQ(d.idleNs, row.idleNs) << path << " " << step.name;
        EXPECT_EQ(d.kernelCount > 0, row.kernelCount > 0) << path << " " << step.name;
        for (std::size_t c = 0; c < kIdleCauseCount; ++c) {
            EXPECT_EQ(d.idleByCauseNs[c], row.idleByCauseNs[c])
                << path << " " << step.name << " " << toString(static_cast<IdleCause>(c));
        }
        EXPECT_EQ(d.idleUnclassifiedNs, 0) << path << " " << step.name;
    }
    // The whole trace as one range: what a Shift+drag over everything costs.
    const auto start = std::chrono::steady_clock::now();
    const RangeStats whole = computeRangeStats(*model, model->timeSpan(), inputs);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: whole-trace range statistics of %zu GPU and %zu CPU op records in %.1f ms\n",
                path.c_str(), model->gpuEventCount(), model->cpuOps.size(), ms);
    ASSERT_FALSE(whole.devices.empty());
    EXPECT_EQ(whole.durationNs, model->timeSpan().durationNs());
}

TEST(RangeStatsRealTrace, BundledResnetStepsAgreeWithTheAnalyzer) {
    expectStepsAgree(CHOKEPOINT_SOURCE_DIR "/samples/real/resnet50-nw0.pt.trace.json.gz");
}

class RangeStatsSharedTrace : public ::testing::TestWithParam<const char*> {};

TEST_P(RangeStatsSharedTrace, StepsAgreeWithTheAnalyzer) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, GetParam());
    expectStepsAgree(path);
}

INSTANTIATE_TEST_SUITE_P(Traces, RangeStatsSharedTrace,
                         ::testing::Values("hta-trace-diff-control__control.json.gz",
                                           "hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                           "kineto-rn50-nw4__worker0.1623212756351.pt.trace.json.gz"));

}  // namespace
}  // namespace chokepoint::analysis

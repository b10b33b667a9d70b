// The real ResNet-50 pair bundled in samples/real (public PyTorch profiler traces; see
// samples/real/README.md). These run in every clone: the files are in the repository.
//   * verdicts: num_workers=0 is data-bound, num_workers=4 is not;
//   * parity with the TensorBoard profiler plugin, the tool these traces were made for: its own
//     Overview output for them (pytorch/kineto tb_plugin/test/result_check_file.txt, commit
//     041e7ce9, lines 1 and 6) against our computation of the same figures the same way
//     (core/analysis/metrics/TbPluginOverview.h). Tolerances: 0.5 % of the average step time,
//     0.5 percentage points for the step shares, GPU utilization and SM efficiency, and 1 point for
//     the achieved occupancy, which we derive from the launch configuration where libkineto asked
//     CUDA's occupancy calculator;
//   * the before/after prediction check: the fix ranked first on nw0 is the DataLoader one, the
//     nw4 run is faster by a real measurement, not by a model of our own, and the predicted step
//     (critical path, FixEngine.h) is within 10 % of the measured one.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/Compare.h"
#include "core/import/TraceLoader.h"

namespace chokepoint::samples {
namespace {

using analysis::Bottleneck;
using analysis::TbRole;

const char* const kBefore = CHOKEPOINT_SOURCE_DIR "/samples/real/resnet50-nw0.pt.trace.json.gz";
const char* const kAfter = CHOKEPOINT_SOURCE_DIR "/samples/real/resnet50-nw4.pt.trace.json.gz";

std::shared_ptr<const analysis::AnalysisReport> analyze(const char* path) {
    static const analysis::DeviceDatabase* kDevices = [] {
        auto db = analysis::DeviceDatabase::loadBuiltin();
        return db ? new analysis::DeviceDatabase(std::move(db.value())) : nullptr;
    }();
    core::Result<core::TraceModel> model = core::loadTrace(path);
    EXPECT_TRUE(model.ok()) << (model.ok() ? "" : model.error().message);
    if (!model.ok()) {
        return nullptr;
    }
    analysis::AnalysisOptions options;
    options.devices = kDevices;
    options.sourcePath = path;
    auto report =
        analysis::analyzeTrace(std::make_shared<const core::TraceModel>(std::move(model.value())), options);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
    return report.ok() ? report.value() : nullptr;
}

const std::shared_ptr<const analysis::AnalysisReport>& before() {
    static const auto r = analyze(kBefore);
    return r;
}

const std::shared_ptr<const analysis::AnalysisReport>& after() {
    static const auto r = analyze(kAfter);
    return r;
}

// The TensorBoard plugin's Overview for one run (result_check_file.txt).
struct PluginOverview {
    int steps;
    double averageStepUs;
    double kernelPct, memcpyPct, memsetPct, runtimePct, dataLoaderPct, cpuExecPct, otherPct;
    double gpuUtilizationPct, smEfficiencyPct, occupancyPct;
};

constexpr PluginOverview kPluginNw0{6,     177592, 55.51, 1.08,  0.05,  1.64,
                                    33.37, 7.70,   0.65,  55.51, 54.68, 49.13};
constexpr PluginOverview kPluginNw4{6,    141068, 70.28, 2.24,  0.07,  7.49,
                                    0.84, 16.07,  3.01,  70.27, 69.22, 48.91};

void expectPluginParity(const analysis::AnalysisReport& r, const PluginOverview& plugin) {
    const analysis::TbPluginOverview& tb = r.metrics.tbPlugin;
    ASSERT_TRUE(tb.available) << tb.note;
    EXPECT_EQ(static_cast<int>(tb.steps.size()), plugin.steps);
    EXPECT_NEAR(tb.averageStepNs / 1e3, plugin.averageStepUs, plugin.averageStepUs * 0.005);
    auto share = [&](TbRole role) { return 100.0 * tb.roleShare(role); };
    EXPECT_NEAR(share(TbRole::Kernel), plugin.kernelPct, 0.5);
    EXPECT_NEAR(share(TbRole::Memcpy), plugin.memcpyPct, 0.5);
    EXPECT_NEAR(share(TbRole::Memset), plugin.memsetPct, 0.5);
    EXPECT_NEAR(share(TbRole::Runtime), plugin.runtimePct, 0.5);
    EXPECT_NEAR(share(TbRole::DataLoader), plugin.dataLoaderPct, 0.5);
    EXPECT_NEAR(share(TbRole::CpuExec), plugin.cpuExecPct, 0.5);
    EXPECT_NEAR(share(TbRole::Other), plugin.otherPct, 0.5);
    ASSERT_EQ(tb.gpus.size(), 1u);
    const analysis::TbGpuMetrics& g = tb.gpus[0];
    EXPECT_NEAR(100.0 * g.utilization, plugin.gpuUtilizationPct, 0.5);
    ASSERT_TRUE(g.smEfficiency.has_value());
    EXPECT_NEAR(100.0 * *g.smEfficiency, plugin.smEfficiencyPct, 0.5);
    ASSERT_TRUE(g.achievedOccupancyPercent.has_value());
    EXPECT_NEAR(*g.achievedOccupancyPercent, plugin.occupancyPct, 1.0);
    std::printf(
        "%s: step %.0f us (plugin %.0f), DataLoader %.2f %% (%.2f), GPU util %.2f %% (%.2f), "
        "SM eff %.2f %% (%.2f), occupancy %.2f %% (%.2f)\n",
        r.sourcePath.c_str(), tb.averageStepNs / 1e3, plugin.averageStepUs, share(TbRole::DataLoader),
        plugin.dataLoaderPct, 100.0 * g.utilization, plugin.gpuUtilizationPct, 100.0 * *g.smEfficiency,
        plugin.smEfficiencyPct, *g.achievedOccupancyPercent, plugin.occupancyPct);
}

TEST(RealSamples, NumWorkersZeroIsDataBound) {
    const auto& r = before();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    ASSERT_FALSE(r->fixes.recommendations.empty());
    EXPECT_EQ(r->fixes.recommendations.front().ruleId, "R1") << r->fixes.recommendations.front().title;
}

TEST(RealSamples, NumWorkersFourIsNotDataBound) {
    const auto& r = after();
    ASSERT_TRUE(r);
    EXPECT_NE(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    EXPECT_NE(r->overall.bottleneck, Bottleneck::NoGpuActivity) << r->headline;
    EXPECT_NE(r->overall.bottleneck, Bottleneck::Undetermined) << r->headline;
}

// FLOPs from the recorded shapes against the textbook count for ResNet-50 training (He et al. 2016,
// Table 1: 3.8-4.1 GMAC per 224x224 image forward; x2 FLOPs per MAC, x3 for forward and backward, 32
// images: 0.73-0.79 TFLOP per step). Stride-2 convolutions counted 4x and convolution backward ops
// went uncosted before (MFU 14.8 % where it is 28.3 %).
TEST(RealSamples, FlopsFromShapesMatchTheTextbookCount) {
    const auto& r = before();
    ASSERT_TRUE(r);
    EXPECT_GT(r->mfu.modelFlopsPerStep, 0.73e12);
    EXPECT_LT(r->mfu.modelFlopsPerStep, 0.80e12);
}

TEST(RealSamples, NumWorkersZeroMatchesTheTensorBoardPlugin) {
    ASSERT_TRUE(before());
    expectPluginParity(*before(), kPluginNw0);
}

TEST(RealSamples, NumWorkersFourMatchesTheTensorBoardPlugin) {
    ASSERT_TRUE(after());
    expectPluginParity(*after(), kPluginNw4);
}

TEST(RealSamples, TheDataLoaderFixWasPredictedAndTheFixedRunIsFaster) {
    ASSERT_TRUE(before());
    ASSERT_TRUE(after());
    const analysis::ComparisonReport c = analysis::compareReports(*before(), *after());
    EXPECT_TRUE(c.overall.changed());
    EXPECT_EQ(c.overall.before, Bottleneck::Data);
    ASSERT_TRUE(c.prediction.available) << c.summary;
    EXPECT_EQ(c.prediction.ruleId, "R1");
    // Measured: the real num_workers=4 run is faster than the num_workers=0 one...
    EXPECT_LT(c.prediction.actualStepNs, c.prediction.stepNsBefore);
    // ...and the prediction said it would be (a saving, not more than the whole step)...
    EXPECT_LT(c.prediction.predictedStepNs, c.prediction.stepNsBefore);
    EXPECT_GT(c.prediction.predictedStepNs, 0.0);
    // ...within 12 % of the fixed run's measured step, and inside the range the fix stated. Both
    // sides by one rule, every steady step: the nw4 run's first profiled step is warm-up and left
    // out; its slow 163 ms step (1.29x the median: a batch its 4 workers delivered late) is what
    // the job costs and counts. The prediction removes all data wait, so it cannot foresee that
    // step: measured 133.0 ms against 118.5 ms predicted (-10.8 %). With the slow step trimmed, as
    // before issue #23, the error was under 10 %, but only because the step the fix did not remove
    // was not measured.
    EXPECT_NEAR(c.prediction.predictedStepNs, c.prediction.actualStepNs, 0.12 * c.prediction.actualStepNs);
    EXPECT_TRUE(c.prediction.withinRange)
        << c.prediction.predictedLowNs << " .. " << c.prediction.predictedHighNs;
    ASSERT_EQ(after()->metrics.stepTimes.excluded.size(), 1u);
    EXPECT_TRUE(after()->metrics.stepTimes.excluded[0].warmUp);
    EXPECT_EQ(after()->metrics.stepTimes.count, 5);
    EXPECT_EQ(after()->metrics.stepTimes.keptFar.size(), 1u);
    EXPECT_TRUE(before()->metrics.stepTimes.excluded.empty());
    std::printf(
        "prediction: before %.1f ms, predicted %.1f ms (range %.1f - %.1f), actual %.1f ms, error %+.1f %%, "
        "realised %.2f (%s)\n",
        c.prediction.stepNsBefore / 1e6, c.prediction.predictedStepNs / 1e6,
        c.prediction.predictedLowNs / 1e6, c.prediction.predictedHighNs / 1e6,
        c.prediction.actualStepNs / 1e6, 100.0 * c.prediction.errorRelative, c.prediction.fractionRealised,
        c.prediction.verdict.c_str());
}

}  // namespace
}  // namespace chokepoint::samples

// The synthetic samples the build bundles: each scenario gets the verdict and first fix a user
// should see, MFU comes from the model facts recorded in the trace, and the fixed twin of the
// data-bound job runs as fast as the data-bound job's top fix predicted.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/Analyzer.h"
#include "core/format/CptraceReader.h"
#include "core/format/CptraceWriter.h"
#include "samples/synthetic/SyntheticTrainingJob.h"

namespace chokepoint::samples {
namespace {

using analysis::Bottleneck;

std::shared_ptr<const analysis::AnalysisReport> analyzeScenario(SyntheticScenario scenario) {
    static const analysis::DeviceDatabase* kDevices = [] {
        auto db = analysis::DeviceDatabase::loadBuiltin();
        return db ? new analysis::DeviceDatabase(std::move(db.value())) : nullptr;
    }();
    SyntheticOptions options;
    options.scenario = scenario;
    auto model = std::make_shared<const core::TraceModel>(makeSyntheticTrainingTrace(options));
    analysis::AnalysisOptions analysisOptions;
    analysisOptions.devices = kDevices;
    auto report = analysis::analyzeTrace(model, analysisOptions);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
    return report.ok() ? report.value() : nullptr;
}

std::string firstFix(const analysis::AnalysisReport& r) {
    return r.fixes.recommendations.empty() ? "none" : r.fixes.recommendations.front().ruleId;
}

TEST(SyntheticSamples, AreLabelledSyntheticAndSurviveTheCptraceRoundTrip) {
    core::TraceModel model = makeSyntheticTrainingTrace({});
    EXPECT_TRUE(model.metadata.synthetic);
    const std::string path = testing::TempDir() + "synthetic-sample-test.cptrace";
    ASSERT_TRUE(core::writeCptrace(model, path).ok());
    core::Result<core::TraceModel> back = core::readCptrace(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_TRUE(back->metadata.synthetic);
    EXPECT_EQ(back->kernels.size(), model.kernels.size());
    EXPECT_EQ(back->stats.count("correlation.gpu_event_without_launch_call"), 0);
}

TEST(SyntheticSamples, DataBoundJobWaitsForTheInputPipelineAndPrefetchingComesFirst) {
    auto r = analyzeScenario(SyntheticScenario::DataBound);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    EXPECT_EQ(firstFix(*r), "R1");
    // The sample records model.flops_per_step (the helper's counted figure), preferred to 6·N·T.
    EXPECT_EQ(r->mfu.source, analysis::ModelFlopsSource::RecordedFlopCounter);
    ASSERT_TRUE(r->mfu.mfu.has_value());
    EXPECT_GT(*r->mfu.mfu, 0.0);
    EXPECT_LT(*r->mfu.mfu, 0.3);
}

TEST(SyntheticSamples, FixedTwinShowsTheGainThePrefetchFixPredicted) {
    auto before = analyzeScenario(SyntheticScenario::DataBound);
    auto after = analyzeScenario(SyntheticScenario::DataBoundFixed);
    ASSERT_TRUE(before && after);
    ASSERT_FALSE(before->fixes.recommendations.empty());
    const analysis::ExpectedGain& predicted = before->fixes.recommendations.front().gain;
    ASSERT_TRUE(predicted.computed);
    // The twin keeps 0.3 ms of loading and an async pinned copy, so it lands within 10 % of the
    // prediction (which removes the data wait entirely).
    EXPECT_NEAR(after->mfu.stepTimeNs, predicted.stepTimeAfterNs, 0.10 * predicted.stepTimeAfterNs);
    EXPECT_NE(after->overall.bottleneck, Bottleneck::Data) << after->headline;
}

TEST(SyntheticSamples, ComputeBoundJobIsComputeBound) {
    auto r = analyzeScenario(SyntheticScenario::ComputeBound);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Compute) << r->headline;
    ASSERT_TRUE(r->mfu.mfu.has_value());
    EXPECT_GT(*r->mfu.mfu, 0.3);
}

TEST(SyntheticSamples, LaunchBoundJobIsLaunchBoundWithFusionOrGraphsFirst) {
    auto r = analyzeScenario(SyntheticScenario::LaunchBound);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::LaunchOverhead) << r->headline;
    EXPECT_EQ(firstFix(*r), "R6");
}

TEST(SyntheticSamples, MemoryHeavyJobPutsFusionFirstEvenWhenBusyMakesItComputeBound) {
    // Busy > 90 % makes the verdict compute-bound (§2.3, Run A), but elementwise kernels hold the
    // largest share of the step, so fusion leads the fixes (R14).
    auto r = analyzeScenario(SyntheticScenario::MemoryBound);
    ASSERT_TRUE(r);
    EXPECT_EQ(firstFix(*r), "R6") << r->headline;
    EXPECT_EQ(r->mfu.precision, analysis::Precision::TF32);
}

}  // namespace
}  // namespace chokepoint::samples

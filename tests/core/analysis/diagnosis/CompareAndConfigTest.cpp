// Compare (before/after) and the thresholds config file.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/Compare.h"
#include "core/analysis/diagnosis/DamClassifier.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"

using namespace chokepoint;
using namespace chokepoint::analysis;
using chokepoint::testutils::SyntheticJob;

namespace {

std::shared_ptr<const AnalysisReport> analyze(const core::TraceModel& model, const std::string& label) {
    AnalysisOptions o;
    o.modelFlopsPerStep = 2e11;  // 20 % MFU on the 10 ms data-bound step (FP32 kernels)
    o.device = DeviceSpec{};
    o.device->id = "test-gpu";
    o.device->name = "Test GPU";
    o.device->peaks = {{Precision::FP32, 100e12, false}, {Precision::BF16, 400e12, true}};
    o.device->memoryBandwidthBytesPerSecond = 2e12;
    core::Result<std::shared_ptr<const AnalysisReport>> r = analyzeTrace(model, o);
    EXPECT_TRUE(r.ok());
    if (!r.ok()) {
        return nullptr;
    }
    auto copy = std::make_shared<AnalysisReport>(*r.value());
    copy->sourcePath = label;
    copy->model = nullptr;
    return copy;
}

// The data-bound job after "prefetching": the same GEMMs, no data wait, so steps are 6 ms.
core::TraceModel prefetchedJob(int steps = 4, core::DurationNs gemmNs = 960'000) {
    SyntheticJob job;
    for (int s = 0; s < steps; ++s) {
        const core::TimestampNs t = s * 6'000'000;
        job.builder().range("ProfilerStep#" + std::to_string(s), t, t + 6'000'000 - 1);
        for (int k = 0; k < 6; ++k) {
            const core::TimestampNs start = t + 100'000 + k * 970'000;
            job.launched(testutils::kFp32Gemm, start, start + gemmNs, 7, 60'000);
        }
    }
    return job.build();
}

std::string tempPath(const char* name) {
    return (std::filesystem::temp_directory_path() / name).string();
}

}  // namespace

TEST(Compare, PrefetchFixMaterialisesAndVerdictChanges) {
    const core::TraceModel beforeModel = testutils::dataBoundJob();
    const core::TraceModel afterModel = prefetchedJob();
    auto before = analyze(beforeModel, "before.json");
    auto after = analyze(afterModel, "after.json");
    ASSERT_TRUE(before && after);
    ASSERT_EQ(before->overall.bottleneck, Bottleneck::Data);
    const ComparisonReport c = compareReports(*before, *after);
    const MetricDelta* step = c.metric("stepTimeNs");
    ASSERT_NE(step, nullptr);
    EXPECT_LT(step->delta, 0);
    EXPECT_TRUE(step->improved);
    const MetricDelta* dataWait = c.metric("idle.dataWait");
    ASSERT_NE(dataWait, nullptr);
    EXPECT_TRUE(dataWait->improved);
    const MetricDelta* mfu = c.metric("mfu");
    ASSERT_NE(mfu, nullptr);
    EXPECT_GT(mfu->delta, 0);
    EXPECT_TRUE(c.overall.changed());
    EXPECT_EQ(c.overall.before, Bottleneck::Data);
    ASSERT_TRUE(c.prediction.available);
    EXPECT_EQ(c.prediction.ruleId, "R1");
    EXPECT_EQ(c.prediction.verdict, "materialised") << c.prediction.summary;
    // Same kernels, same speed: none slower or faster.
    EXPECT_TRUE(c.slower.empty());
    EXPECT_TRUE(c.faster.empty());
    EXPECT_EQ(c.metric("kernelCount"), nullptr);
}

TEST(Compare, TwoCapturesOfAnUnchangedJobAreNoTestOfTheFix) {
    // The same data-bound job twice (two profilers, or before the fix): the prediction is not
    // judged "did not materialise", it is said not to be applied yet, with what to check later.
    auto first = analyze(testutils::dataBoundJob(), "first");
    auto second = analyze(testutils::dataBoundJob(), "second");
    ASSERT_TRUE(first && second);
    const ComparisonReport same = compareReports(*first, *second);
    ASSERT_TRUE(same.prediction.available);
    EXPECT_EQ(same.prediction.verdict, "not applied") << same.prediction.summary;
    EXPECT_NE(same.prediction.summary.find("does not look applied"), std::string::npos);
    EXPECT_NE(same.prediction.summary.find("R1"), std::string::npos) << same.prediction.summary;
    // A real change is still judged: the prefetched run materialises R1 (above), and a run whose
    // kernels changed but whose step did not is a fix that did not materialise.
    auto slowerGemms = analyze(prefetchedJob(4, 990'000), "slower");
    auto fasterGemms = analyze(prefetchedJob(4, 600'000), "faster");
    ASSERT_TRUE(slowerGemms && fasterGemms);
    const ComparisonReport changed = compareReports(*slowerGemms, *fasterGemms);
    ASSERT_TRUE(changed.prediction.available);
    ASSERT_FALSE(changed.faster.empty());
    EXPECT_NE(changed.prediction.verdict, "not applied") << changed.prediction.summary;
}

// The constraint the top fix targets holds the same share after: the fix was not applied, even
// though other things changed (a kernel renamed, as a second profiler or a library update does).
// Captures of one ResNet job by our agent and by torch.profiler read "did not materialise" with the
// data wait at 84.9 % and 85.0 %. Two ranks of one job are not a before and an after at all.
TEST(Compare, AFixWhoseTargetDidNotMoveIsNotApplied) {
    core::TraceModel renamed = testutils::dataBoundJob();
    const core::StringId other = renamed.intern("ampere_sgemm_128x64_nn");
    for (std::size_t i = 0; i < renamed.kernels.size(); i += 6) {
        renamed.kernels.name[i] = other;
    }
    auto before = analyze(testutils::dataBoundJob(), "before");
    auto after = analyze(renamed, "after");
    ASSERT_TRUE(before && after);
    const ComparisonReport c = compareReports(*before, *after);
    ASSERT_FALSE(c.appeared.empty());  // something changed
    ASSERT_TRUE(c.prediction.available);
    EXPECT_EQ(c.prediction.verdict, "not applied") << c.prediction.summary;
    EXPECT_NE(c.prediction.summary.find("the constraint it targets (data-bound)"), std::string::npos)
        << c.prediction.summary;

    auto rank0 = std::make_shared<AnalysisReport>(*before);
    auto rank1 = std::make_shared<AnalysisReport>(*analyze(prefetchedJob(), "rank1"));
    for (auto& [report, rank] : {std::pair{rank0, 0}, std::pair{rank1, 1}}) {
        report->distributed.present = true;
        report->distributed.rank = rank;
        report->distributed.worldSize = 2;
    }
    const ComparisonReport ranks = compareReports(*rank0, *rank1);
    ASSERT_TRUE(ranks.prediction.available);
    EXPECT_EQ(ranks.prediction.verdict, "not checked") << ranks.prediction.summary;
    EXPECT_NE(ranks.prediction.summary.find("two ranks of one job"), std::string::npos)
        << ranks.prediction.summary;
}

TEST(Compare, KernelsPerStepLeaveOutTheWarmUpStepAsTheStepTimeDoes) {
    // A first step of autotuning (a kernel variant tried 20 times and never again), then 5 steady
    // steps of 6 GEMMs; the other run has no such step and slower GEMMs.
    SyntheticJob tuned;
    tuned.builder().range("ProfilerStep#0", 0, 30'000'000 - 1);
    for (int k = 0; k < 20; ++k) {
        const core::TimestampNs start = 100'000 + k * 1'400'000;
        tuned.launched("autotune_candidate_kernel", start, start + 1'000'000, 7, 60'000);
    }
    for (int s = 1; s <= 5; ++s) {
        const core::TimestampNs t = 30'000'000 + (s - 1) * 6'000'000;
        tuned.builder().range("ProfilerStep#" + std::to_string(s), t, t + 6'000'000 - 1);
        for (int k = 0; k < 6; ++k) {
            const core::TimestampNs start = t + 100'000 + k * 970'000;
            tuned.launched(testutils::kFp32Gemm, start, start + 700'000, 7, 60'000);
        }
    }
    auto before = analyze(tuned.build(), "tuned");
    auto after = analyze(prefetchedJob(5, 900'000), "after");
    ASSERT_TRUE(before && after);
    ASSERT_EQ(before->metrics.stepTimes.count, 5);  // the autotuning step is left out of the step time
    const ComparisonReport c = compareReports(*before, *after);
    // The autotuning kernel ran in no steady step: not a kernel that vanished.
    for (const KernelDelta& d : c.vanished) {
        EXPECT_NE(d.name, "autotune_candidate_kernel");
    }
    ASSERT_EQ(c.slower.size(), 1u);
    EXPECT_EQ(c.slower[0].name, testutils::kFp32Gemm);
    // 6 calls in each steady step, not 30 calls over 6 steps.
    EXPECT_DOUBLE_EQ(c.slower[0].callsPerStepBefore, 6.0);
    EXPECT_DOUBLE_EQ(c.slower[0].callsPerStepAfter, 6.0);
    EXPECT_NEAR(c.slower[0].totalNsBefore, 6 * 700'000.0, 1.0);
    EXPECT_NEAR(c.slower[0].perStepRatio, 900.0 / 700.0, 0.01);
}

TEST(Compare, KernelsAreCountedPerStepWhateverTheStepsEachSideHolds) {
    // The same job captured over 8 steps and over 4: as many kernels per step, not twice as many.
    auto eight = analyze(prefetchedJob(8), "eight");
    auto four = analyze(prefetchedJob(4), "four");
    ASSERT_TRUE(eight && four);
    const ComparisonReport c = compareReports(*eight, *four);
    const MetricDelta* kernels = c.metric("kernelsPerStep");
    ASSERT_NE(kernels, nullptr);
    EXPECT_DOUBLE_EQ(kernels->before, kernels->after);
    EXPECT_GT(kernels->before, 0);
    EXPECT_FALSE(kernels->improved);
    EXPECT_FALSE(kernels->regressed);
}

TEST(Compare, KernelsMatchedByNameSlowerAndFaster) {
    const core::TraceModel a = prefetchedJob(4, 900'000);
    const core::TraceModel b = prefetchedJob(4, 450'000);
    auto before = analyze(a, "a");
    auto after = analyze(b, "b");
    ASSERT_TRUE(before && after);
    const ComparisonReport faster = compareReports(*before, *after);
    ASSERT_EQ(faster.faster.size(), 1u);
    EXPECT_EQ(faster.faster[0].name, testutils::kFp32Gemm);
    EXPECT_NEAR(faster.faster[0].meanRatio, 0.5, 0.01);
    EXPECT_TRUE(faster.slower.empty());
    const ComparisonReport slower = compareReports(*after, *before);
    ASSERT_EQ(slower.slower.size(), 1u);
    EXPECT_NEAR(slower.slower[0].meanRatio, 2.0, 0.02);
}

TEST(Compare, KernelsAreClassifiedByTheTimePerStepTheyPrint) {
    // B runs the GEMM twice as often, each call a third faster: less time per call, more per step.
    SyntheticJob twice;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = s * 12'000'000;
        twice.builder().range("ProfilerStep#" + std::to_string(s), t, t + 12'000'000 - 1);
        for (int k = 0; k < 12; ++k) {
            const core::TimestampNs start = t + 100'000 + k * 970'000;
            twice.launched(testutils::kFp32Gemm, start, start + 600'000, 7, 60'000);
        }
    }
    auto before = analyze(prefetchedJob(4, 900'000), "a");
    auto after = analyze(twice.build(), "b");
    ASSERT_TRUE(before && after);
    const ComparisonReport c = compareReports(*before, *after);
    ASSERT_EQ(c.slower.size(), 1u);
    EXPECT_TRUE(c.faster.empty());
    EXPECT_NEAR(c.slower[0].perStepRatio, 12.0 * 600 / (6.0 * 900), 0.02);
    EXPECT_LT(c.slower[0].meanRatio, 1.0);
    const std::string text = writeTextComparison(c);
    EXPECT_NE(text.find("KERNELS SLOWER (more time per step)"), std::string::npos) << text;
    EXPECT_NE(text.find(" per step; "), std::string::npos) << text;
    EXPECT_NE(text.find(" per call ("), std::string::npos) << text;
    // Calls are counted per step too, like the time: 6 GEMMs a step before, 12 after.
    EXPECT_DOUBLE_EQ(c.slower[0].callsPerStepBefore, 6.0);
    EXPECT_DOUBLE_EQ(c.slower[0].callsPerStepAfter, 12.0);
    EXPECT_NE(text.find("(6 -> 12 calls per step)"), std::string::npos) << text;
    // Same job: no warning that the traces differ.
    EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
}

TEST(Compare, WarnsWhenTheTracesAreNotRunsOfOneJob) {
    auto before = analyze(testutils::computeBoundJob(), "v100.json");  // a V100 running GEMMs
    auto after = analyze(prefetchedJob(), "a100.json");                // an A100
    ASSERT_TRUE(before && after);
    auto multi = std::make_shared<AnalysisReport>(*after);
    multi->distributed = core::DistributedInfo{true, 0, 8, "nccl"};
    const ComparisonReport c = compareReports(*before, *multi);
    ASSERT_GE(c.warnings.size(), 2u);
    EXPECT_NE(c.warnings[0].find("different devices"), std::string::npos) << c.warnings[0];
    EXPECT_NE(c.warnings[1].find("world sizes (1 and 8"), std::string::npos) << c.warnings[1];
    EXPECT_NE(c.summary.find("CAUTION"), std::string::npos);
    EXPECT_EQ(c.headline.find("CAUTION"), std::string::npos) << c.headline;  // the GUI lists warnings itself
    EXPECT_EQ(c.summary.rfind(c.headline, 0), 0u) << c.summary;
    EXPECT_NE(writeTextComparison(c).find("WARNINGS"), std::string::npos);
    const ComparisonReport models = compareReports(*analyze(testutils::computeBoundJob(), "a"),
                                                   *analyze(testutils::communicationBoundJob(), "b"));
    bool kernelWarning = false;
    for (const std::string& w : models.warnings) {
        kernelWarning = kernelWarning || w.find("different kernels") != std::string::npos;
    }
    EXPECT_TRUE(kernelWarning);
    // A predicted gain is not checked across jobs (it read "-675 % of the predicted gain" between an
    // A100 and a V100 job).
    auto dataBound = analyze(testutils::dataBoundJob(), "v100.json");
    auto elsewhere = std::make_shared<AnalysisReport>(*analyze(prefetchedJob(), "a100.json"));
    elsewhere->distributed = core::DistributedInfo{true, 0, 8, "nccl"};
    ASSERT_TRUE(dataBound && !dataBound->fixes.recommendations.empty());
    const ComparisonReport across = compareReports(*dataBound, *elsewhere);
    ASSERT_TRUE(across.prediction.available);
    EXPECT_EQ(across.prediction.verdict, "not checked") << across.prediction.summary;
    EXPECT_NE(across.prediction.summary.find("do not look like two runs of one job"), std::string::npos)
        << across.prediction.summary;
}

// A CPU-only side reads zeros for every GPU figure: it is said, and no figure is called better.
TEST(Compare, ASideWithoutGpuWorkIsNoImprovement) {
    auto gpu = analyze(testutils::dataBoundJob(), "gpu.json");
    testutils::TraceBuilder b;
    b.range("ProfilerStep#0", 0, 10'000'000);
    b.range("ProfilerStep#1", 10'000'000, 20'000'000);
    auto cpu = analyze(b.build(), "cpu.json");
    ASSERT_TRUE(gpu && cpu);
    const ComparisonReport c = compareReports(*gpu, *cpu);
    bool said = false;
    for (const std::string& w : c.warnings) {
        said = said || w.find("B has no GPU work") != std::string::npos;
    }
    EXPECT_TRUE(said);
    for (const MetricDelta& m : c.metrics) {
        if (m.name != "stepTimeNs") {
            EXPECT_FALSE(m.improved || m.regressed) << m.name;
        }
    }
    EXPECT_NE(c.prediction.verdict, "materialised");
}

namespace {

// The data-bound job without its step markers: one whole-trace window (its GEMMs, all one name, do not
// repeat into steps either).
core::TraceModel dataBoundJobWithoutSteps() {
    SyntheticJob job;
    for (int s = 0; s < 4; ++s) {
        const core::TimestampNs t = SyntheticJob::stepStart(s);
        job.builder().range(testutils::kDataLoaderNext, t + 50'000, t + 4'000'000);
        for (int k = 0; k < 6; ++k) {
            const core::TimestampNs start = t + 4'100'000 + k * 970'000;
            job.launched(testutils::kFp32Gemm, start, start + 960'000, 7, 60'000);
        }
    }
    return job.build();
}

// A torch.profiler trace's MFU from shapes against a capture's from the helper's 6·N·T: the two
// differ by their method, so diff does not call the change better or worse (gpt-kineto vs
// gpt-attach read "mfu 29.8 % -> 32.7 % better" on a step 0.9 % apart).
TEST(Compare, AnMfuFromAnotherSourceIsNotJudged) {
    AnalysisReport a;
    AnalysisReport b;
    a.mfu.mfu = 0.298;
    a.mfu.source = ModelFlopsSource::ShapeEstimate;
    b.mfu.mfu = 0.327;
    b.mfu.source = ModelFlopsSource::RecordedInTrace;
    a.mfu.stepTimeNs = b.mfu.stepTimeNs = 66e6;
    const ComparisonReport c = compareReports(a, b);
    const auto mfu = std::find_if(c.metrics.begin(), c.metrics.end(),
                                  [](const MetricDelta& m) { return m.name == "mfu"; });
    ASSERT_NE(mfu, c.metrics.end());
    EXPECT_FALSE(mfu->improved);
    EXPECT_FALSE(mfu->regressed);
    EXPECT_NE(mfu->notComparable.find("shape-estimate vs recorded-in-trace"), std::string::npos)
        << mfu->notComparable;
    EXPECT_NE(writeTextComparison(c).find("not compared: model FLOPs from different sources"),
              std::string::npos);
    // The same source is judged as before.
    b.mfu.source = ModelFlopsSource::ShapeEstimate;
    const ComparisonReport same = compareReports(a, b);
    const auto judged = std::find_if(same.metrics.begin(), same.metrics.end(),
                                     [](const MetricDelta& m) { return m.name == "mfu"; });
    ASSERT_NE(judged, same.metrics.end());
    EXPECT_TRUE(judged->improved);
    EXPECT_EQ(judged->notComparable, "");
}

}  // namespace

// Compare of a whole-trace window against a step reads "19.4 s -> 55.8 ms": it warns first, calls the
// step time neither better nor worse, and checks no prediction.
TEST(Compare, WarnsWhenOneSideHasNoSteps) {
    const core::TraceModel wholeModel = dataBoundJobWithoutSteps();
    const core::TraceModel afterModel = prefetchedJob();
    auto whole = analyze(wholeModel, "nw0.cptrace");
    auto after = analyze(afterModel, "nw12.cptrace");
    ASSERT_TRUE(whole && after);
    ASSERT_EQ(whole->metrics.steps.source, StepSource::WholeTrace);
    ASSERT_NE(after->metrics.steps.source, StepSource::WholeTrace);
    const ComparisonReport c = compareReports(*whole, *after);
    ASSERT_FALSE(c.warnings.empty());
    EXPECT_NE(c.warnings.front().find("the first trace (nw0.cptrace) has no training steps"),
              std::string::npos)
        << c.warnings.front();
    EXPECT_NE(c.summary.find("CAUTION"), std::string::npos) << c.summary;
    const MetricDelta* step = c.metric("stepTimeNs");
    ASSERT_NE(step, nullptr);
    EXPECT_FALSE(step->improved);
    EXPECT_FALSE(c.prediction.available);
    // The other way round names the second trace.
    const ComparisonReport back = compareReports(*after, *whole);
    ASSERT_FALSE(back.warnings.empty());
    EXPECT_NE(back.warnings.front().find("the second trace"), std::string::npos) << back.warnings.front();
    // Steps on both sides: no such warning.
    auto before = analyze(testutils::dataBoundJob(), "before.json");
    for (const std::string& w : compareReports(*before, *after).warnings) {
        EXPECT_EQ(w.find("no training steps"), std::string::npos) << w;
    }
}

TEST(Compare, KernelsOnlyOnOneSideAndWriters) {
    const core::TraceModel a = testutils::computeBoundJob();
    const core::TraceModel b = testutils::communicationBoundJob();
    auto before = analyze(a, "a");
    auto after = analyze(b, "b");
    ASSERT_TRUE(before && after);
    const ComparisonReport c = compareReports(*before, *after);
    EXPECT_FALSE(c.appeared.empty());
    EXPECT_FALSE(c.vanished.empty());
    EXPECT_NE(writeTextComparison(c).find("KERNELS ONLY IN B"), std::string::npos);
    EXPECT_NE(writeMarkdownComparison(c).find("# Chokepoint diff"), std::string::npos);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    const std::string json = writeJsonComparison(c);
    ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
    EXPECT_EQ(std::string_view(doc["schema"]), "chokepoint.diff");
    EXPECT_TRUE(doc["metrics"].is_array());
    EXPECT_TRUE(doc["verdicts"].is_array());
    EXPECT_TRUE(doc["kernelsOnlyInAfter"].is_array());
}

TEST(DiagnosisConfig, KeyValueOverrides) {
    DiagnosisConfig c;
    const core::Status s = applyDiagnosisConfigText(
        c, "# comment\ncomputeBoundMinBusy = 0.95\n\ndataWaitMinFraction=0.2 # x\n", "t.conf");
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_DOUBLE_EQ(c.computeBoundMinBusy, 0.95);
    EXPECT_DOUBLE_EQ(c.dataWaitMinFraction, 0.2);
}

TEST(DiagnosisConfig, JsonOverridesChangeTheVerdict) {
    DiagnosisSignals s;
    s.hasGpuActivity = true;
    s.windowNs = 1e7;
    s.busyFraction = 0.93;
    s.computeFraction = 0.93;
    s.idleCausesKnown = true;
    DiagnosisConfig c;
    EXPECT_EQ(classifyWindow(s, c).bottleneck, Bottleneck::Compute);
    ASSERT_TRUE(
        applyDiagnosisConfigText(c, R"({"computeBoundMinBusy": 0.95, "upperBandMinBusy": 0.94})", "t.json")
            .ok());
    s.memoryBoundBusyShare = 0.8;
    EXPECT_EQ(classifyWindow(s, c).bottleneck, Bottleneck::MemoryBandwidth);
}

TEST(DiagnosisConfig, ErrorsNameTheFileAndPlace) {
    DiagnosisConfig c;
    core::Status unknown =
        applyDiagnosisConfigText(c, "computeBoundMinBusy = 0.9\nnoSuchKey = 1\n", "my.conf");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("my.conf: line 2"), std::string::npos) << unknown.error().message;
    EXPECT_NE(unknown.error().message.find("noSuchKey"), std::string::npos);
    core::Status notNumber = applyDiagnosisConfigText(c, "lowMfu = high\n", "my.conf");
    ASSERT_FALSE(notNumber.ok());
    EXPECT_NE(notNumber.error().message.find("line 1"), std::string::npos);
    core::Status negative = applyDiagnosisConfigText(c, "lowMfu = -1\n", "my.conf");
    EXPECT_FALSE(negative.ok());
    core::Status badJson = applyDiagnosisConfigText(c, R"({"lowMfu": "x"})", "j.json");
    ASSERT_FALSE(badJson.ok());
    EXPECT_NE(badJson.error().message.find("lowMfu"), std::string::npos);
    core::Status brokenJson = applyDiagnosisConfigText(c, R"({"lowMfu": 0.3,)", "j.json");
    EXPECT_FALSE(brokenJson.ok());
    // A failed file leaves the config untouched.
    EXPECT_DOUBLE_EQ(c.lowMfu, DiagnosisConfig{}.lowMfu);
    EXPECT_FALSE(loadDiagnosisConfig(tempPath("chokepoint-no-such-config.conf")).ok());
}

TEST(DiagnosisConfig, DescribedConfigRoundTrips) {
    DiagnosisConfig changed;
    changed.hbmHighFraction = 0.7;
    const std::string path = tempPath("chokepoint-d2-config-test.conf");
    {
        std::ofstream out(path);
        out << describeDiagnosisConfig(changed);
    }
    core::Result<DiagnosisConfig> loaded = loadDiagnosisConfig(path);
    std::remove(path.c_str());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_DOUBLE_EQ(loaded.value().hbmHighFraction, 0.7);
    EXPECT_DOUBLE_EQ(loaded.value().computeBoundMinBusy, 0.9);
}

// The real H100 captures in ../shared/traces/h100 (README there: how each was made and the true
// figures of each job). Each test skips when the folder is absent (a user's clone has no ../shared).
//   rn50-nw0      ResNet-50, DataLoader in the main process: data-bound; 14 helper steps, step 0 is
//                 cuDNN benchmarking (14.6 s); steps 1-13 take 219-346 ms, median 255 ms, of which
//                 the wait for the next batch (chokepoint:data) is 180-300 ms
//   gpt-attach    GPT, bf16 autocast, 6·N·T = 21.56 TFLOP per 65.7 ms step: 33 % of the 989 TFLOP/s
//                 dense BF16 peak
//   gpt-nohelper  the same GPT with no markers: process start, model build, then identical steps

#include <gtest/gtest.h>

#include <filesystem>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"

namespace chokepoint::analysis {
namespace {

std::shared_ptr<const AnalysisReport> analyzeFile(const std::string& path) {
    static const DeviceDatabase* kDevices = [] {
        auto db = DeviceDatabase::loadBuiltin();
        return db ? new DeviceDatabase(std::move(db.value())) : nullptr;
    }();
    core::Result<core::TraceModel> model = core::loadTrace(path);
    EXPECT_TRUE(model.ok()) << path << ": " << (model.ok() ? "" : model.error().message);
    if (!model.ok()) {
        return nullptr;
    }
    auto shared = std::make_shared<const core::TraceModel>(std::move(model.value()));
    AnalysisOptions options;
    options.devices = kDevices;
    core::Result<std::shared_ptr<const AnalysisReport>> r = analyzeTrace(shared, options);
    EXPECT_TRUE(r.ok()) << path << ": " << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : nullptr;
}

TEST(H100Captures, Rn50IsDataBoundFromTheHelpersMarkers) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "h100/rn50-nw0.cptrace");
    auto r = analyzeFile(path);
    ASSERT_TRUE(r);
    const TraceMetrics& m = r->metrics;
    EXPECT_EQ(m.steps.source, StepSource::StepMarker) << m.steps.note;
    ASSERT_EQ(m.steps.steps.size(), 14u);
    EXPECT_EQ(m.steps.steps.front().name, "chokepoint:step#0");
    EXPECT_EQ(m.stepTimes.count, 13);  // step 0 (cuDNN benchmarking) left out as warm-up
    ASSERT_EQ(m.stepTimes.excluded.size(), 1u);
    EXPECT_EQ(m.stepTimes.excluded.front().stepIndex, 0);
    // Each step starts at its wait for the batch: the median step is the job's 255 ms, not the
    // 40 ms step range alone.
    EXPECT_NEAR(m.stepTimes.medianNs / 1e6, 255, 255 * 0.1);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    // The job waits 180-300 ms of each ~255 ms step for its batch (helper's chokepoint:data).
    EXPECT_GT(r->overallSignals.idleDataWaitFraction, 0.70);
    EXPECT_LT(r->overallSignals.idleDataWaitFraction, 0.92);
    ASSERT_FALSE(r->fixes.recommendations.empty());
    EXPECT_EQ(r->fixes.recommendations.front().ruleId, "R1");
    EXPECT_FALSE(r->startUpOnly);
    // The helper's 6·N·T with 128 images as tokens reads 0.0 % for this CNN: not shown as a result.
    EXPECT_FALSE(r->mfu.mfu.has_value());
    EXPECT_NE(r->mfu.impossibleReason.find("convolutional"), std::string::npos) << r->mfu.impossibleReason;
}

TEST(H100Captures, GptMfuFromTheHelpersFactsWithThePrecisionNamed) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "h100/gpt-attach.cptrace");
    auto r = analyzeFile(path);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->mfu.source, ModelFlopsSource::RecordedInTrace);  // 6·N·T from the helper's counts
    EXPECT_NEAR(r->mfu.modelFlopsPerStep, 21.56e12, 0.01e12);
    EXPECT_EQ(r->mfu.precision, Precision::BF16);
    EXPECT_EQ(r->mfu.precisionSource, "kernel-names");  // the old capture has no autocast fact
    EXPECT_NE(r->mfu.precisionReason.find("nvjet"), std::string::npos) << r->mfu.precisionReason;
    ASSERT_TRUE(r->mfu.mfu.has_value()) << r->mfu.impossibleReason;
    EXPECT_GT(*r->mfu.mfu, 0.25);
    EXPECT_LT(*r->mfu.mfu, 0.40);
    EXPECT_NEAR(r->mfu.stepTimeNs / 1e6, 65.7, 65.7 * 0.05);
    // 33 % is the typical production band: never the desired end state.
    EXPECT_FALSE(r->overall.desiredEndState);
    EXPECT_EQ(r->headline.find("desired end state"), std::string::npos) << r->headline;
}

TEST(H100Captures, GptStepsFromRepeatingKernelsAfterStartUp) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "h100/gpt-nohelper.cptrace");
    auto r = analyzeFile(path);
    ASSERT_TRUE(r);
    const TraceMetrics& m = r->metrics;
    ASSERT_EQ(m.steps.source, StepSource::RepeatingKernels) << m.steps.note;
    // The 6 s window holds 4.6 s of process start and model build, then the steps: its 12,192
    // kernels are 16 iterations of ~730 (a capture of `run --duration 6`, not 60 steps).
    EXPECT_GE(m.steps.steps.size(), 15u);
    EXPECT_GT(m.steps.leadingKernels, 0);
    EXPECT_NEAR(m.stepTimes.medianNs / 1e6, 65.7, 65.7 * 0.05);
    EXPECT_FALSE(r->startUpOnly);
}

// One job, one story: the capture and the torch.profiler trace of the same job get one verdict class.
TEST(H100Captures, EachPairGetsOneVerdictClass) {
    const std::pair<const char*, const char*> pairs[] = {
        {"h100/gpt-attach.cptrace", "h100/gpt-kineto.pt.trace.json.gz"},
        {"h100/rn50-nw0.cptrace", "h100/rn50-nw0-kineto.pt.trace.json.gz"},
    };
    for (const auto& [capture, kineto] : pairs) {
        CHOKEPOINT_REQUIRE_SHARED_TRACE(capturePath, capture);
        CHOKEPOINT_REQUIRE_SHARED_TRACE(kinetoPath, kineto);
        auto a = analyzeFile(capturePath);
        auto b = analyzeFile(kinetoPath);
        ASSERT_TRUE(a && b);
        EXPECT_EQ(a->overall.bottleneck, b->overall.bottleneck) << capture << ": " << a->headline << "\n"
                                                                << kineto << ": " << b->headline;
    }
    // GPT's kernel time sits on the ridge (46 % above, 45-53 % below): mixed, with both shares.
    auto gpt = analyzeFile(testutils::sharedTracePath("h100/gpt-kineto.pt.trace.json.gz"));
    ASSERT_TRUE(gpt);
    EXPECT_EQ(gpt->overall.bottleneck, Bottleneck::ComputeMemoryMixed) << gpt->headline;
    EXPECT_NE(gpt->headline.find("above the ridge"), std::string::npos) << gpt->headline;
    EXPECT_NE(gpt->headline.find("below it"), std::string::npos) << gpt->headline;
}

// No file in ../shared/traces shows an MFU of 100 % or more.
TEST(H100Captures, NoSharedTraceShowsAnImpossibleMfu) {
    const std::filesystem::path root(CHOKEPOINT_SHARED_TRACES_DIR);
    std::error_code ec;
    if (!std::filesystem::is_directory(root, ec)) {
        CHOKEPOINT_SHARED_TRACE_ABSENT("no shared traces in " << root.string());
    }
    int analysed = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root, ec)) {
        const std::string name = entry.path().filename().string();
        const bool trace = name.ends_with(".cptrace") || name.ends_with(".json") ||
                           name.ends_with(".json.gz") || name.ends_with(".sqlite");
        const std::string folder = entry.path().parent_path().filename().string();
        if (!entry.is_regular_file() || !trace || name == "h100-calibration.json" || folder == "licenses" ||
            folder == "logs") {
            continue;
        }
        auto r = analyzeFile(entry.path().string());
        if (!r) {
            continue;  // not a trace (the loader said why)
        }
        ++analysed;
        if (r->mfu.mfu) {
            EXPECT_LT(*r->mfu.mfu, 1.0) << entry.path();
        }
        if (r->mfu.impossibleMfu) {
            EXPECT_FALSE(r->mfu.impossibleReason.empty()) << entry.path();
        }
    }
    EXPECT_GT(analysed, 10);
}

// --- The agent's own H100 captures of 2026-11-26, in the repository (tests/data/h100-agent-2026-11-26:
// how each was made and what is true about it). These run in every clone.

std::string agentCapture(const char* name) {
    return std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/data/h100-agent-2026-11-26/" + name;
}

std::int64_t statCount(const core::TraceModel& m, const char* name) {
    return m.stats.count(name);
}

TEST(AgentCapturesOnH100, AttachJoinsEveryLaunchAndLosesNothingAtTheEnd) {
    auto model = core::loadTrace(agentCapture("gpt-attach.cptrace"));
    ASSERT_TRUE(model.ok()) << model.error().message;
    const std::int64_t gpu =
        static_cast<std::int64_t>(model->kernels.size() + model->memcpys.size() + model->memsets.size());
    ASSERT_GT(gpu, 20000);
    EXPECT_LE(statCount(*model, "correlation.gpu_event_without_launch_call") * 100, gpu);  // >= 99 % joined
    EXPECT_EQ(statCount(*model, "agent.still_running_at_stop"), 0);
    EXPECT_EQ(statCount(*model, "agent.gpu_records_missing"), 0);
    EXPECT_EQ(statCount(*model, "agent.dropped_records"), 0);
}

TEST(AgentCapturesOnH100, TheOldRuntimeEnablesLostTheRuntimeLaunches) {
    // The failure the fix answers, recorded on the same GPU the same day.
    auto model = core::loadTrace(agentCapture("gpt-attach-allowlist.cptrace"));
    ASSERT_TRUE(model.ok()) << model.error().message;
    const std::int64_t gpu =
        static_cast<std::int64_t>(model->kernels.size() + model->memcpys.size() + model->memsets.size());
    EXPECT_GT(statCount(*model, "correlation.gpu_event_without_launch_call") * 100, gpu * 70);
}

TEST(AgentCapturesOnH100, CountedFlopsGiveTheMfuWithThePrecisionMeasured) {
    auto r = analyzeFile(agentCapture("gpt-attach.cptrace"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->mfu.source, ModelFlopsSource::RecordedFlopCounter);
    EXPECT_NEAR(r->mfu.modelFlopsPerStep, 21.03e12, 0.01e12);  // FlopCounterMode, not 6·N·T (21.56)
    EXPECT_EQ(r->mfu.precision, Precision::BF16);
    EXPECT_EQ(r->mfu.precisionSource, "helper-op-dtypes");
    ASSERT_TRUE(r->mfu.mfu.has_value()) << r->mfu.impossibleReason;
    EXPECT_GT(*r->mfu.mfu, 0.25);
    EXPECT_LT(*r->mfu.mfu, 0.40);
    EXPECT_EQ(r->metrics.steps.steps.size(), 30u);
}

TEST(AgentCapturesOnH100, FortyStepsWithoutMarkersAfterADelay) {
    auto r = analyzeFile(agentCapture("gpt-nohelper-delay.cptrace"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->metrics.steps.source, StepSource::RepeatingKernels) << r->metrics.steps.note;
    EXPECT_GE(r->metrics.steps.steps.size(), 40u);
    EXPECT_NEAR(r->metrics.stepTimes.medianNs / 1e6, 66.4, 66.4 * 0.05);
    EXPECT_FALSE(r->startUpOnly);
}

TEST(AgentCapturesOnH100, AfterStepsLeavesTheAutotunedStartOutOfADataBoundJob) {
    auto r = analyzeFile(agentCapture("rn50-nw0-after-steps.cptrace"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->metrics.steps.source, StepSource::StepMarker) << r->metrics.steps.note;
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    for (const auto& step : r->metrics.steps.steps) {
        EXPECT_NE(step.name, "chokepoint:step#0");  // the 14 s cudnn benchmark step is not in it
    }
}

}  // namespace
}  // namespace chokepoint::analysis

// The real H100 captures in ../shared/traces/h100 (README there: how each was made and the true
// figures of each job). Each test skips when the folder is absent (a user's clone has no ../shared).
//   rn50-nw0      ResNet-50, DataLoader in the main process: data-bound; 14 helper steps, step 0 is
//                 cuDNN benchmarking (14.6 s); steps 1-13 take 219-346 ms, median 255 ms, of which
//                 the wait for the next batch (chokepoint:data) is 180-300 ms
//   gpt-attach    GPT, bf16 autocast, 6·N·T = 21.56 TFLOP per 65.7 ms step: 33 % of the 989 TFLOP/s
//                 dense BF16 peak
//   gpt-nohelper  the same GPT with no markers: process start, model build, then identical steps

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/analysis/metrics/OpCost.h"
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
    // The helper's 6·N·T with 128 images as tokens reads 0.0072 % for this CNN: not shown as a
    // result, and not called impossible (the figure is far too low, not too high).
    EXPECT_FALSE(r->mfu.mfu.has_value());
    EXPECT_EQ(r->mfu.withheld, MfuWithheld::SixNtOnAConvolutionNet);
    EXPECT_NE(r->mfu.impossibleReason.find("convolutional"), std::string::npos) << r->mfu.impossibleReason;
    // Two significant digits, not "0.0 %".
    EXPECT_NE(r->mfu.impossibleReason.find("would read 0.0072 %"), std::string::npos)
        << r->mfu.impossibleReason;
    EXPECT_EQ(shortLabel(r->mfu.withheld).find("impossible"), std::string_view::npos);
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
    // The attach capture lost the runtime API's launches: by their launch calls the phases held
    // 53.5 % of the busy time; placed by stream order as well, 80.9 %. The kernels at the edge of
    // forward and backward (the vocabulary softmax among them) stay in none, and the report says so
    // rather than let forward + backward read as the whole step.
    const std::string text = writeTextReport(*r);
    EXPECT_NE(text.find("(the phases hold 8"), std::string::npos) << text;
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
    // The window closed 486 kernels into a 734-kernel iteration: that part is no step (it read as
    // a 50.8 ms step, far from the median, and pulled the mean below every whole step).
    EXPECT_EQ(m.steps.steps.size(), 15u);
    EXPECT_NE(m.steps.note.find("cut by the trace's end after 486 of 734 kernels"), std::string::npos)
        << m.steps.note;
    EXPECT_GT(m.stepTimes.minNs / 1e6, 65.7 * 0.95);
    EXPECT_TRUE(m.stepTimes.keptFar.empty());
    // The step table's names ("iteration 14 (kernel period)") stand apart from their durations.
    const std::string text = writeTextReport(*r);
    EXPECT_NE(text.find("iteration 1 (kernel period)  66."), std::string::npos) << text.substr(0, 3000);
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
    // GPT's kernel time: 44.7 % above the ridge, 55.0 % below (casts to bf16, the fp32 softmax over the
    // vocabulary, norms, attention backward's dO·O reduction and dQ conversion): memory-bound, medium.
    // It read mixed (46 % / 53 %) while cuDNN's convert_dq_to_16bits counted as a convolution and
    // compute_dot_do_o as a GEMM (names, 2026-11-27).
    auto gpt = analyzeFile(testutils::sharedTracePath("h100/gpt-kineto.pt.trace.json.gz"));
    ASSERT_TRUE(gpt);
    EXPECT_EQ(gpt->overall.bottleneck, Bottleneck::MemoryBandwidth) << gpt->headline;
    EXPECT_LT(gpt->overall.confidence, 0.75) << gpt->headline;  // the margin is small: medium
    EXPECT_LT(gpt->headline.size(), 180u) << gpt->headline;
}

// gpt-kineto's attention is causal (is_causal "True" in its Concrete Inputs): per step 12 layers of
// forward 4·B·H·D·S(S+1)/2 = 34.4 GFLOP and backward twice that, 1.24 TFLOP in all. Counted as full
// S² attention with the backward at 1x, the step read 19.8 TFLOP (MFU 29.8 %). The GEMMs are 6·N·T
// less the embedding's 6·33.5M·T (a lookup, not a matmul): 21.56 - 3.30 = 18.26 TFLOP.
TEST(H100Captures, GptAttentionIsCountedCausalWithItsBackward) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "h100/gpt-kineto.pt.trace.json.gz");
    core::Result<core::TraceModel> model = core::loadTrace(path);
    ASSERT_TRUE(model.ok());
    const KernelStatsResult stats = computeKernelStats(model.value());
    const OpCostResult costs = attributeOpCosts(model.value(), &stats.kernelClass);
    double attentionFlops = 0;
    for (std::size_t k = 0; k < model.value().kernels.size(); ++k) {
        if (model.value().text(model.value().kernels.name[k]).find("_sdpa_") != std::string_view::npos) {
            attentionFlops += costs.kernelFlops[k];
        }
    }
    const double perLayerForward = 4.0 * 16 * 16 * (1024.0 * 1025 / 2) * 64;
    EXPECT_NEAR(attentionFlops / 5, 12 * 3 * perLayerForward, 1e-6 * attentionFlops);
    auto report = analyzeFile(path);
    ASSERT_TRUE(report);
    EXPECT_GT(report->mfu.modelFlopsPerStep, 19.2e12);
    EXPECT_LT(report->mfu.modelFlopsPerStep, 19.6e12);
    // The shapes cost the ops behind 77.5 % of the kernel time and all of its GEMM and attention
    // time; the rest (softmax backward, cat, fused AdamW, norm backward) has few FLOPs. The MFU is
    // an upper estimate, not "well below the true one" as it read while coverage counted every kernel.
    EXPECT_LT(report->mfu.countedKernelTimeShare, 0.8);
    ASSERT_TRUE(report->mfu.countedMatmulTimeShare.has_value());
    EXPECT_GT(*report->mfu.countedMatmulTimeShare, 0.999);
    bool upperEstimate = false;
    for (const std::string& w : report->mfu.warnings) {
        EXPECT_EQ(w.find("well below the true one"), std::string::npos) << w;
        upperEstimate = upperEstimate || w.find("upper estimate") != std::string::npos;
    }
    EXPECT_TRUE(upperEstimate);
}

// Given the GPT job's 6·N·T (219,314,176 parameters, 16,384 tokens), its MFU (32.5 %) exceeds the
// HFU counted from shapes (29.2 %): 6·N·T counts the token and position embedding tables (34.6M
// parameters, 3.40 TFLOP per step), which are looked up, not multiplied. The report says so rather
// than "check the input", which was right.
TEST(H100Captures, GptSixNtOverShapesIsExplainedByTheEmbeddingTables) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "h100/gpt-kineto.pt.trace.json.gz");
    core::Result<core::TraceModel> model = core::loadTrace(path);
    ASSERT_TRUE(model.ok());
    EXPECT_DOUBLE_EQ(embeddingTableParameters(model.value()), 32768.0 * 1024 + 1024.0 * 1024);
    const DeviceDatabase devices = DeviceDatabase::loadBuiltin().value();
    AnalysisOptions options;
    options.devices = &devices;
    options.parameterCount = 219314176;
    options.tokensPerStep = 16384;
    auto r = analyzeTrace(std::make_shared<const core::TraceModel>(std::move(model.value())), options);
    ASSERT_TRUE(r.ok());
    const MfuReport& mfu = r.value()->mfu;
    ASSERT_TRUE(mfu.mfu && mfu.hfu);
    ASSERT_GT(*mfu.mfu, *mfu.hfu);
    bool explained = false;
    for (const std::string& w : mfu.warnings) {
        EXPECT_EQ(w.find("check the input"), std::string::npos) << w;
        explained =
            explained || (w.find("exceeds HFU") != std::string::npos &&
                          w.find("34,603,008 parameters of the embedding tables") != std::string::npos);
    }
    EXPECT_TRUE(explained);
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

// The rn50 capture as the Python stack sampler would have recorded it without the helper: every
// chokepoint:* range removed, and the main thread's stack sampled every millisecond: inside each
// of the helper's chokepoint:data ranges (the job waiting for its next batch, made in the main
// process) the single-process DataLoader stack of PyTorch 2.11 / torchvision 0.26, elsewhere the
// training step. The GPU timeline, launches and CPU use are the real capture's. Without markers the
// diagnosis must still be data-bound, from the stacks, and say the batches are made in the main
// process. The control, without markers and without samples, must not claim data-bound: it reads
// the main thread's CPU use as host work (what the threads' CPU % alone can say).
core::TraceModel rn50WithoutMarkers(const std::string& path, bool sampled) {
    core::Result<core::TraceModel> loaded = core::loadTrace(path);
    EXPECT_TRUE(loaded.ok());
    core::TraceModel m = std::move(loaded.value());
    std::vector<core::TimeRange> dataWaits;
    core::RangeTable kept;
    for (std::uint32_t i = 0; i < m.ranges.size(); ++i) {
        core::RangeRow row = m.ranges.row(core::RangeId{i});
        const std::string_view name = m.text(row.name);
        if (name.rfind("chokepoint:", 0) == 0) {
            if (name == "chokepoint:data") {
                dataWaits.push_back({row.startNs, row.endNs});
            }
            continue;
        }
        row.depth = 0;
        row.parent = {};
        kept.add(row);
    }
    m.ranges = std::move(kept);
    EXPECT_GT(dataWaits.size(), 10u);
    // The main thread: the one that issued the most runtime calls.
    std::map<core::ThreadIndex, int> calls;
    for (core::ThreadIndex t : m.apiCalls.thread) {
        ++calls[t];
    }
    const core::ThreadIndex main = std::max_element(calls.begin(), calls.end(), [](auto& a, auto& b) {
                                       return a.second < b.second;
                                   })->first;
    const std::string site = "/usr/local/lib/python3.12/site-packages/";
    auto stackOf = [&](std::vector<std::pair<std::string, std::string>> rootFirst) {
        std::vector<core::FrameIndex> frames;
        for (const auto& [file, function] : rootFirst) {
            frames.insert(frames.begin(), m.internFrame(file, function, 0));
        }
        return m.internStack(frames);
    };
    const core::StackIndex loading =
        stackOf({{"rn50_data.py", "main"},
                 {site + "torch/utils/data/dataloader.py", "_BaseDataLoaderIter.__next__"},
                 {site + "torch/utils/data/dataloader.py", "_SingleProcessDataLoaderIter._next_data"},
                 {site + "torch/utils/data/_utils/fetch.py", "_MapDatasetFetcher.fetch"},
                 {"rn50_data.py", "SyntheticImages.__getitem__"},
                 {site + "torchvision/transforms/transforms.py", "Compose.__call__"},
                 {site + "torch/nn/modules/module.py", "Module._call_impl"},
                 {site + "torchvision/transforms/transforms.py", "RandomResizedCrop.forward"},
                 {site + "torchvision/transforms/functional.py", "resized_crop"}});
    const core::StackIndex training = stackOf({{"rn50_data.py", "main"},
                                               {site + "torch/nn/modules/module.py", "Module._call_impl"},
                                               {site + "torchvision/models/resnet.py", "ResNet.forward"}});
    if (sampled) {
        const core::TimeRange span = m.timeSpan();
        std::size_t w = 0;
        for (core::TimestampNs t = span.startNs; t < span.endNs; t += 1'000'000) {
            while (w < dataWaits.size() && dataWaits[w].endNs <= t) {
                ++w;
            }
            const bool waiting = w < dataWaits.size() && dataWaits[w].contains(t);
            m.stackSamples.add({t, main, waiting ? loading : training});
        }
    }
    m.finalize();
    return m;
}

std::shared_ptr<const AnalysisReport> analyzeModel(core::TraceModel model) {
    auto shared = std::make_shared<const core::TraceModel>(std::move(model));
    core::Result<std::shared_ptr<const AnalysisReport>> r = analyzeTrace(shared, AnalysisOptions{});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : nullptr;
}

TEST(H100Captures, Rn50WithoutMarkersIsDataBoundFromSampledStacks) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "h100/rn50-nw0.cptrace");
    auto control = analyzeModel(rn50WithoutMarkers(path, false));
    ASSERT_TRUE(control);
    EXPECT_NE(control->overall.bottleneck, Bottleneck::Data) << control->headline;
    EXPECT_LT(control->overallSignals.idleDataWaitFraction, 0.1) << control->headline;
    auto r = analyzeModel(rn50WithoutMarkers(path, true));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    EXPECT_GT(r->overallSignals.idleDataWaitFraction, 0.5) << r->headline;
    ASSERT_TRUE(r->overallSignals.sampledMain);
    EXPECT_GT(r->overallSignals.sampledMain->inputWorkShare, 0.5);
    ASSERT_FALSE(r->overallSignals.sampledStacks.empty());
    EXPECT_NE(r->overallSignals.sampledStacks.front().path.find("RandomResizedCrop.forward"),
              std::string::npos)
        << r->overallSignals.sampledStacks.front().path;
    for (const auto& st : r->overallSignals.sampledStacks) {
        EXPECT_LE(st.shareOfIdle, 1.0);
    }
    const Recommendation* r2 = r->fixes.find("R2");
    ASSERT_NE(r2, nullptr);
    EXPECT_NE(r2->evidence.find("num_workers=0"), std::string::npos) << r2->evidence;
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
    // The data-loading phase is the wait itself: the GPU idles through it. Each wait starts just
    // before its step's marker, so its device gap is counted from the step before; the phase
    // once missed it and read as 100 % busy, compute-bound.
    const PhaseDiagnosis* data = nullptr;
    for (const PhaseDiagnosis& p : r->phases) {
        data = p.kind == PhaseKind::DataLoading ? &p : data;
    }
    ASSERT_NE(data, nullptr);
    EXPECT_GT(data->shareOfStepTime, 0.5);
    EXPECT_GT(data->signals.idleDataWaitFraction, 0.5);
    EXPECT_EQ(data->verdict.bottleneck, Bottleneck::Data) << data->verdict.rationale;
}

// 20 steps of a 1.7 ms CUDA-graph job: the GPU idles two thirds of each step, and the 33 ms the
// steps span hold no host CPU sample (50 Hz). The verdict stays Undetermined and says that a longer
// window, not another tool, gives the host's side.
TEST(AgentCapturesOnH100, AWindowTooShortForTheHostSamplersSaysToRecordLonger) {
    auto r = analyzeFile(agentCapture("compiled-graphs-attach.cptrace"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Undetermined) << r->headline;
    EXPECT_GE(r->overallSignals.hostSamplesInSteps, 0);
    EXPECT_LT(r->overallSignals.hostSamplesInSteps, 10);
    EXPECT_LT(r->overallSignals.stepsSpanNs, 50e6);
    const auto& missing = r->overall.missingSignals;
    EXPECT_TRUE(std::any_of(missing.begin(), missing.end(), [](const std::string& m) {
        return m.find("record a longer window") != std::string::npos;
    }));
}

// A window of seconds holds hundreds of host samples.
TEST(AgentCapturesOnH100, ADelayedWindowOfSecondsHoldsManyHostSamples) {
    auto r = analyzeFile(agentCapture("gpt-nohelper-delay.cptrace"));
    ASSERT_TRUE(r);
    EXPECT_GT(r->overallSignals.hostSamplesInSteps, 100);  // 3 s at 50 Hz
}

}  // namespace
}  // namespace chokepoint::analysis

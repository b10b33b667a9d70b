// Sampled Python stacks in the diagnosis, on captures built in code the way the agent records a job
// without any markers: eight 10 ms iterations, each a 3 ms kernel launched from the main thread and
// a 7 ms GPU gap, and the main thread's stack sampled every millisecond. Without samples the gaps
// are unexplained; with them each gap is what the stack was doing: the input pipeline (data-bound),
// the optimizer's Python loop (a fused optimizer), dynamo compilation, checkpoint saving. The
// frames are named by share of the GPU idle, per thread, never above 100 %.

#include <gtest/gtest.h>

#include <string>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;
constexpr core::TimestampNs kUs = 1'000;
constexpr core::TimestampNs kMs = 1'000'000;

constexpr std::string_view kSite = "/usr/lib/python3.11/site-packages/";

std::string frames(std::initializer_list<std::string_view> rootFirst) {
    std::string out;
    for (std::string_view f : rootFirst) {
        out += (out.empty() ? "" : ";") + std::string(f);
    }
    return out;
}

std::string site(std::string_view file, std::string_view function) {
    return std::string(kSite) + std::string(file) + ":" + std::string(function);
}

const std::string kForward = frames({"train.py:main", "model.py:Net.forward"});
// The main process makes its own batches (DataLoader(num_workers=0)).
const std::string kSingleProcessLoading =
    frames({"train.py:main", site("torch/utils/data/dataloader.py", "_BaseDataLoaderIter.__next__"),
            site("torch/utils/data/dataloader.py", "_SingleProcessDataLoaderIter._next_data"),
            site("torch/utils/data/_utils/fetch.py", "_MapDatasetFetcher.fetch"),
            site("torchvision/datasets/folder.py", "DatasetFolder.__getitem__"),
            site("torchvision/transforms/transforms.py", "Compose.__call__"),
            site("torchvision/transforms/transforms.py", "RandomResizedCrop.forward")});
// Worker processes make the batches; the main thread waits for them.
const std::string kWaitOnWorkers =
    frames({"train.py:main", site("torch/utils/data/dataloader.py", "_BaseDataLoaderIter.__next__"),
            site("torch/utils/data/dataloader.py", "_MultiProcessingDataLoaderIter._next_data"),
            site("torch/utils/data/dataloader.py", "_MultiProcessingDataLoaderIter._try_get_data"),
            "/usr/lib/python3.11/multiprocessing/queues.py:Queue.get"});
const std::string kOptimizer = frames(
    {"train.py:main", site("torch/optim/optimizer.py", "Optimizer.profile_hook_step.<locals>.wrapper"),
     site("torch/optim/adamw.py", "AdamW.step"), site("torch/optim/adamw.py", "_single_tensor_adamw")});
const std::string kCompile = frames({"train.py:main", site("torch/_dynamo/eval_frame.py", "compile_wrapper"),
                                     site("torch/_dynamo/convert_frame.py", "ConvertFrame.__call__"),
                                     site("torch/_dynamo/convert_frame.py", "_compile"),
                                     site("torch/_dynamo/symbolic_convert.py", "InstructionTranslator.run")});
const std::string kCheckpoint =
    frames({"train.py:main", "train.py:save_checkpoint", site("torch/serialization.py", "save"),
            site("torch/serialization.py", "_save")});

// Eight iterations; `gapStack` is the main thread's stack during each GPU gap (none: no samples).
core::TraceModel capture(const std::string& gapStack, bool sampled = true) {
    TraceBuilder b;
    b.device(0, "NVIDIA H100 80GB HBM3", 132);
    for (int s = 0; s < 8; ++s) {
        const core::TimestampNs base = s * 10 * kMs;
        b.apiCall("cudaLaunchKernel", base, base + 5 * kUs, 100 + s, /*tid*/ 1);
        b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", base + 10 * kUs,
                 base + 3 * kMs, 0, 7, 100 + s);
        for (core::TimestampNs t = base + 500 * kUs; sampled && t < base + 10 * kMs; t += kMs) {
            b.sample(t, t < base + 3 * kMs ? kForward : gapStack, /*tid*/ 1);
        }
    }
    return b.build();
}

std::shared_ptr<const AnalysisReport> analyze(const core::TraceModel& model) {
    core::Result<std::shared_ptr<const AnalysisReport>> r = analyzeTrace(model, AnalysisOptions{});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? r.value() : nullptr;
}

std::string firstFix(const AnalysisReport& r) {
    return r.fixes.recommendations.empty() ? "none" : r.fixes.recommendations.front().ruleId;
}

TEST(StackSamples, WithoutSamplesTheGapsAreUnexplained) {
    auto r = analyze(capture(kSingleProcessLoading, /*sampled=*/false));
    ASSERT_TRUE(r);
    EXPECT_GT(r->overallSignals.idleUnexplainedFraction, 0.5);
    EXPECT_NE(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    EXPECT_TRUE(r->overallSignals.sampledStacks.empty());
}

TEST(StackSamples, MainThreadInDatasetCodeIsDataBoundAndPointsToWorkers) {
    auto r = analyze(capture(kSingleProcessLoading));
    ASSERT_TRUE(r);
    const DiagnosisSignals& s = r->overallSignals;
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    EXPECT_GT(s.idleDataWaitFraction, 0.5);
    // The stack that filled the idle, named from the DataLoader down to the transform.
    ASSERT_FALSE(s.sampledStacks.empty());
    EXPECT_EQ(s.sampledStacks.front().role, "input preparation");
    EXPECT_NE(s.sampledStacks.front().thread.find("main thread"), std::string::npos)
        << s.sampledStacks.front().thread;
    EXPECT_NE(s.sampledStacks.front().path.find("_BaseDataLoaderIter.__next__"), std::string::npos)
        << s.sampledStacks.front().path;
    EXPECT_NE(s.sampledStacks.front().path.find("RandomResizedCrop.forward"), std::string::npos);
    EXPECT_GT(s.sampledStacks.front().shareOfIdle, 0.9);
    EXPECT_LE(s.sampledStacks.front().shareOfIdle, 1.0);
    // Frames by inclusive share: the transform runs itself (exclusive = inclusive); main, on every
    // sample and never running itself, is left out.
    ASSERT_FALSE(s.sampledFrames.empty());
    EXPECT_EQ(s.sampledFrames.front().name.rfind("RandomResizedCrop.forward (transforms.py)", 0), 0u)
        << s.sampledFrames.front().name;
    EXPECT_DOUBLE_EQ(s.sampledFrames.front().exclusiveShareOfIdle,
                     s.sampledFrames.front().inclusiveShareOfIdle);
    for (const auto& f : s.sampledFrames) {
        EXPECT_NE(f.name, "main (train.py)");
    }
    // The data-wait frames are the sampled leaf functions.
    ASSERT_FALSE(s.dataWaitFrames.empty());
    EXPECT_EQ(s.dataWaitFrames.front().name, "RandomResizedCrop.forward");
    // The fixes: the batches are made in the main process.
    ASSERT_TRUE(s.sampledMain);
    EXPECT_GT(s.sampledMain->inputWorkShare, 0.9);
    const Recommendation* r2 = r->fixes.find("R2");
    ASSERT_NE(r2, nullptr);
    EXPECT_NE(r2->evidence.find("num_workers=0"), std::string::npos) << r2->evidence;
    EXPECT_EQ(r->fixes.find("R18"), nullptr);
}

TEST(StackSamples, MainThreadWaitingOnWorkersIsDataBoundWithoutTheNumWorkersClaim) {
    auto r = analyze(capture(kWaitOnWorkers));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    ASSERT_TRUE(r->overallSignals.sampledMain);
    EXPECT_GT(r->overallSignals.sampledMain->loaderWaitShare, 0.9);
    EXPECT_EQ(r->overallSignals.sampledMain->inputWorkShare, 0.0);
    const Recommendation* r2 = r->fixes.find("R2");
    ASSERT_NE(r2, nullptr);
    EXPECT_EQ(r2->evidence.find("num_workers=0"), std::string::npos) << r2->evidence;
}

TEST(StackSamples, OptimizerLoopInPythonPointsToAFusedOptimizer) {
    auto r = analyze(capture(kOptimizer));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::HostBound) << r->headline;
    EXPECT_GT(r->overallSignals.idleHostWorkFraction, 0.5);
    ASSERT_TRUE(r->overallSignals.sampledMain);
    EXPECT_GT(r->overallSignals.sampledMain->optimizerShare, 0.9);
    EXPECT_EQ(firstFix(*r), "R18") << r->headline;
    const Recommendation* r18 = r->fixes.find("R18");
    ASSERT_NE(r18, nullptr);
    EXPECT_NE(r18->pytorchChange.find("fused=True"), std::string::npos);
    EXPECT_NE(r18->evidence.find("_single_tensor_adamw"), std::string::npos) << r18->evidence;
}

TEST(StackSamples, DynamoFramesAreCompilation) {
    auto r = analyze(capture(kCompile));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::HostBound) << r->headline;
    EXPECT_GT(r->overallSignals.idleCompilationFraction, 0.5);
    EXPECT_EQ(r->fixes.find("R18"), nullptr);
}

TEST(StackSamples, CheckpointSavingIsHousekeeping) {
    auto r = analyze(capture(kCheckpoint));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::HostBound) << r->headline;
    EXPECT_GT(r->overallSignals.idleHousekeepingFraction, 0.5);
}

TEST(StackSamples, SharesArePerThreadAndNeverAboveTheIdle) {
    core::TraceModel model = capture(kSingleProcessLoading);
    // A second thread (a worker process's thread) sampled twice as often in dataset code: it
    // launches nothing, so it does not explain the gaps, but its frames are named on their own.
    TraceBuilder extra;
    for (core::TimestampNs t = 0; t < 80 * kMs; t += 500 * kUs) {
        extra.sample(t,
                     frames({site("torch/utils/data/_utils/worker.py", "_worker_loop"),
                             site("torch/utils/data/_utils/fetch.py", "_MapDatasetFetcher.fetch"),
                             site("torchvision/datasets/folder.py", "pil_loader")}),
                     /*tid*/ 2, /*pid*/ 2);
    }
    core::TraceModel worker = extra.build();
    core::TraceModel merged = std::move(model);
    for (std::size_t i = 0; i < worker.stackSamples.size(); ++i) {
        std::vector<core::FrameIndex> ids;
        for (core::FrameIndex f : worker.stack(worker.stackSamples.stack[i])) {
            const core::StackFrame& frame = worker.stackFrames[f];
            ids.push_back(
                merged.internFrame(worker.text(frame.file), worker.text(frame.function), frame.line));
        }
        merged.stackSamples.add(
            {worker.stackSamples.timeNs[i], merged.threadIndex(2, 2), merged.internStack(ids)});
    }
    merged.finalize();
    auto r = analyze(merged);
    ASSERT_TRUE(r);
    const DiagnosisSignals& s = r->overallSignals;
    EXPECT_EQ(r->overall.bottleneck, Bottleneck::Data) << r->headline;
    bool workerSeen = false;
    for (const auto& st : s.sampledStacks) {
        EXPECT_GT(st.shareOfIdle, 0.0);
        EXPECT_LE(st.shareOfIdle, 1.0 + 1e-12) << st.thread << " " << st.path;
        workerSeen = workerSeen || st.path.find("pil_loader") != std::string::npos;
    }
    EXPECT_TRUE(workerSeen);
    for (const auto& f : s.sampledFrames) {
        EXPECT_LE(f.exclusiveShareOfIdle, f.inclusiveShareOfIdle) << f.name;
        EXPECT_LE(f.inclusiveShareOfIdle, 1.0 + 1e-12) << f.name;
    }
    // Both threads cover the whole idle: each is 100 %, not 50 % each and not 200 % for one.
    const StackIdleProfile& profile = r->metrics.stackIdle;
    ASSERT_EQ(profile.devices.size(), 1u);
    const DeviceStackIdle& d = profile.devices.front();
    ASSERT_EQ(d.threads.size(), 2u);
    for (const SampledThreadIdle& t : d.threads) {
        EXPECT_LE(t.sampledNs, d.idleNs);
        EXPECT_GT(d.share(t.sampledNs), 0.95);
        core::DurationNs byRole = 0;
        for (core::DurationNs ns : t.byRoleNs) {
            byRole += ns;
        }
        EXPECT_EQ(byRole, t.sampledNs);
        ASSERT_FALSE(t.frames.empty());
        EXPECT_EQ(t.frames.front().inclusiveNs, t.sampledNs);  // the root frame is on every stack
    }
}

// The report lists the sampled functions by self time, with the text report's HOST STACKS section,
// for a GPU capture and for a host-only one (a job that never initialised CUDA).
TEST(StackSamples, TheReportListsTheSampledFunctionsBySelfTime) {
    auto r = analyze(capture(kSingleProcessLoading));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->stackSampleCount, 80);
    EXPECT_EQ(r->sampledThreadCount, 1);
    ASSERT_GE(r->sampledFunctions.size(), 2u);
    for (std::size_t i = 1; i < r->sampledFunctions.size(); ++i) {
        EXPECT_GE(r->sampledFunctions[i - 1].selfNs, r->sampledFunctions[i].selfNs);
    }
    // Seven of ten samples per iteration are in the loading stack's leaf, three in forward.
    const SampledFunction& top = r->sampledFunctions.front();
    EXPECT_NEAR(top.shareOfSampledTime, 0.7, 0.02) << top.function;
    EXPECT_EQ(r->sampledFunctions[1].function, "Net.forward");
    EXPECT_NEAR(r->sampledFunctions[1].shareOfSampledTime, 0.3, 0.02);
    const std::string text = writeTextReport(*r);
    EXPECT_NE(text.find("HOST STACKS (sampled: 80 samples on 1 thread(s)"), std::string::npos) << text;

    TraceBuilder hostOnly;
    for (int i = 0; i < 20; ++i) {
        hostOnly.sample(i * 10 * kMs, i < 15 ? "prep.py:main;prep.py:decode_batch" : "prep.py:main", 1);
    }
    auto cpuOnly = analyze(hostOnly.build());
    ASSERT_TRUE(cpuOnly);
    EXPECT_EQ(cpuOnly->overall.bottleneck, Bottleneck::NoGpuActivity);
    EXPECT_NE(cpuOnly->headline.find("its 20 sampled host stacks show where the time went"),
              std::string::npos)
        << cpuOnly->headline;
    ASSERT_EQ(cpuOnly->sampledFunctions.size(), 2u);
    EXPECT_EQ(cpuOnly->sampledFunctions[0].function, "decode_batch");
    EXPECT_EQ(cpuOnly->sampledFunctions[0].selfNs, 15 * 10 * kMs);
    EXPECT_EQ(cpuOnly->sampledFunctions[1].function, "main");
    const std::string cpuText = writeTextReport(*cpuOnly);
    EXPECT_NE(cpuText.find("Where the host's time went: HOST STACKS"), std::string::npos) << cpuText;
    EXPECT_NE(cpuText.find("decode_batch  (prep.py)"), std::string::npos) << cpuText;
}

}  // namespace
}  // namespace chokepoint::analysis

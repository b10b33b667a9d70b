// The capture state machine with a fake CUPTI: dormant means no CUPTI calls; subscriber busy and
// enable failures are refused cleanly and undo what was done; a capture streams a .cptrace that
// decodes to the delivered records; buffer exhaustion turns into counted drops; step-aligned
// windows; the real libcupti without a driver is refused without harm.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "collectors/agent/CaptureEngine.h"
#include "core/format/CptraceReader.h"
#include "tests/collectors/agent/EngineTestSupport.h"
#include "tests/collectors/agent/FakeCuptiApi.h"

namespace chokepoint::collectors {
namespace {

using testutils::FakeCuptiApi;
using testutils::SyntheticCupti;

CaptureEngineConfig fastConfig() {
    return testutils::fastEngineConfig(200, 4);
}

using testutils::Captured;
using testutils::cuptiNow;
using testutils::drive;

TEST(CaptureEngineTest, DormantEngineMakesNoCuptiCalls) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::Status s = engine.status();
    EXPECT_EQ(s.state, wire::AGENT_STATE_DORMANT);
    EXPECT_EQ(s.commandLine.size(), 2u);
    EXPECT_TRUE(cupti.calls.empty());
    EXPECT_EQ(NvtxRecorder::instance().mode(), NvtxMode::Idle);
}

TEST(CaptureEngineTest, SubscriberBusyIsRefusedNamingTheHolder) {
    FakeCuptiApi cupti;
    cupti.subscribeResult = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    cupti.holderName = "CUPTI for PyTorch";
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    auto refused = engine.startCapture(wire::StartCapture{}, 1);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->code, wire::ERROR_CODE_CUPTI_BUSY);
    EXPECT_NE(refused->text.find("CUPTI for PyTorch"), std::string::npos);
    EXPECT_NE(refused->text.find("TEARDOWN_CUPTI=1"), std::string::npos);
    EXPECT_EQ(cupti.count("enable"), 0);
    EXPECT_EQ(cupti.count("unsubscribe"), 0);  // we never held it
    EXPECT_EQ(engine.state(), wire::AGENT_STATE_DORMANT);
    EXPECT_EQ(engine.status().cuptiHolder, "CUPTI for PyTorch");
}

TEST(CaptureEngineTest, EnableFailureUndoesEverything) {
    FakeCuptiApi cupti;
    cupti.enableResults[CUPTI_ACTIVITY_KIND_MEMSET] = CUPTI_ERROR_NOT_COMPATIBLE;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    auto refused = engine.startCapture(wire::StartCapture{}, 1);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->code, wire::ERROR_CODE_CUPTI_FAILED);
    EXPECT_NE(refused->text.find("MEMSET"), std::string::npos);
    EXPECT_TRUE(cupti.enabled.empty());  // kernels and memcpy were disabled again
    EXPECT_EQ(cupti.subscribed.load(), 0);
    EXPECT_EQ(cupti.count("unsubscribe"), 1);
    EXPECT_EQ(engine.state(), wire::AGENT_STATE_DORMANT);
    // The engine is still usable once the problem is gone.
    cupti.enableResults.clear();
    wire::StartCapture request;
    request.durationMs = 30;
    ASSERT_FALSE(engine.startCapture(request, 2).has_value());
    Captured c = drive(engine);
    EXPECT_TRUE(c.done.ok);
}

TEST(CaptureEngineTest, VersionMismatchIsRefused) {
    FakeCuptiApi cupti;
    cupti.apiVersion = 120000;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    auto refused = engine.startCapture(wire::StartCapture{}, 1);
    ASSERT_TRUE(refused.has_value());
    EXPECT_NE(refused->text.find("120000"), std::string::npos);
    EXPECT_EQ(cupti.count("subscribe"), 0);
}

TEST(CaptureEngineTest, CaptureStreamsADecodableTraceAndUnsubscribes) {
    FakeCuptiApi cupti;
    std::atomic<std::uint32_t> correlation{1};
    cupti.producer = [&](SyntheticCupti& s) {
        std::uint64_t t = cuptiNow();
        std::uint32_t id = correlation.fetch_add(1);
        s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t - 50'000,
              t - 45'000, id, static_cast<std::uint32_t>(::getpid()), static_cast<std::uint32_t>(::gettid()));
        s.kernel("_Z6matmulv", t - 40'000, t - 10'000, id);
    };
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;
    request.durationMs = 150;
    ASSERT_FALSE(engine.startCapture(request, 7).has_value());
    EXPECT_EQ(cupti.subscribed.load(), 1);
    EXPECT_EQ(NvtxRecorder::instance().mode(), NvtxMode::Recording);
    Captured c = drive(engine);
    EXPECT_TRUE(c.done.ok) << c.done.message;
    EXPECT_EQ(c.done.captureId, 7u);
    EXPECT_NE(c.done.message.find("150 ms"), std::string::npos);
    for (std::size_t i = 0; i < c.seqs.size(); ++i) {
        EXPECT_EQ(c.seqs[i], i);
    }
    // Dormant again: unsubscribed, every kind disabled, NVTX idle.
    EXPECT_EQ(cupti.subscribed.load(), 0);
    EXPECT_TRUE(cupti.enabled.empty());
    EXPECT_EQ(NvtxRecorder::instance().mode(), NvtxMode::Idle);
    EXPECT_EQ(engine.state(), wire::AGENT_STATE_DORMANT);
    // The RUNTIME kind, then every runtime call outside the allow-list switched off (records of
    // a job whose runtime was up before the capture need the kind: CaptureFidelityTest).
    EXPECT_EQ(cupti.count("enable 5"), 1);  // CUPTI_ACTIVITY_KIND_RUNTIME
    EXPECT_GE(cupti.count("runtimeApi on"), 10);
    EXPECT_GE(cupti.count("runtimeApi off"), 400);

    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(model->metadata.producer, "chokepoint-agent 0.1.0");
    // The build that recorded it (the source commit), beside the version every build shares.
    const auto build = std::find_if(model->metadata.notes.begin(), model->metadata.notes.end(),
                                    [](const auto& note) { return note.first == "capture.agent_build"; });
    ASSERT_NE(build, model->metadata.notes.end());
    EXPECT_EQ(build->second, chokepoint::buildId());
    EXPECT_FALSE(build->second.empty());
    EXPECT_EQ(model->metadata.hostName, "testhost");
    ASSERT_GT(model->kernels.size(), 0u);
    EXPECT_EQ(static_cast<std::int64_t>(model->kernels.size()), c.done.kernels);
    // Records are kept by start time: a launch in the window's last 10 us can have its kernel start
    // after the window end, so one launch may come without its kernel, never the other way round.
    EXPECT_LE(model->kernels.size(), model->apiCalls.size());
    EXPECT_LE(model->apiCalls.size(), model->kernels.size() + 1);
    std::size_t joined = 0;
    for (std::size_t i = 0; i < model->kernels.size(); ++i) {
        core::KernelRow k = model->kernels.row(core::KernelId(static_cast<std::uint32_t>(i)));
        EXPECT_EQ(model->text(k.name), "matmul()");
        joined += k.launchCall.valid() ? 1 : 0;
    }
    EXPECT_EQ(joined, model->kernels.size());  // every kernel joined to its launch
    EXPECT_EQ(model->stats.count("agent.dropped_records"), 0);
    // Host CPU samples of this process came along.
    bool hostTrack = false;
    for (const auto& track : model->counters) {
        hostTrack = hostTrack || (track.name == "CPU %" && track.pid == ::getpid() && !track.values.empty());
    }
    EXPECT_TRUE(hostTrack);
}

TEST(CaptureEngineTest, ExhaustedBufferPoolCountsDropsAndNeverBlocks) {
    FakeCuptiApi cupti;
    cupti.producer = [](SyntheticCupti& s) { s.kernel("k", 1, 2, 1); };
    cupti.holdBuffers = true;  // the consumer never gets buffers back: the pool runs dry
    cupti.buffersPerFlush = 3;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());  // 4 buffers
    wire::StartCapture request;
    request.durationMs = 100;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine);
    cupti.releaseHeld();
    EXPECT_GT(c.done.droppedRecords, 0);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    const core::TraceStat* dropped = model->stats.find("agent.dropped_records");
    ASSERT_NE(dropped, nullptr);
    EXPECT_EQ(dropped->severity, core::Severity::DataLoss);
    EXPECT_EQ(dropped->count, c.done.droppedRecords);
    EXPECT_GT(model->stats.count("agent.buffer_pool_exhausted"), 0);
    EXPECT_LE(engine.pool().blocksAllocated(), 4u);
}

// A client that reads nothing until the window has closed: past the memory share the chunks wait
// on disk, and all of them arrive, in order, once the client reads. `spillDirectory` unwritable:
// they stay in memory instead (still complete, because the memory cap is not reached).
Captured captureWithASlowClient(CaptureEngine& engine) {
    wire::StartCapture request;
    request.durationMs = 300;
    request.kinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_API;
    EXPECT_FALSE(engine.startCapture(request, 3).has_value());
    // Nothing is read while the window runs (300 ms) and drains (up to 200 ms).
    for (int waited = 0; engine.state() != wire::AGENT_STATE_DRAINING && waited < 100; ++waited) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    return drive(engine);
}

void produceLaunchesAndKernels(FakeCuptiApi& cupti, std::atomic<std::uint32_t>& correlation) {
    cupti.producer = [&correlation](SyntheticCupti& s) {
        for (int i = 0; i < 40; ++i) {
            const std::uint64_t t = cuptiNow() - 100'000 + static_cast<std::uint64_t>(i) * 1'000;
            const std::uint32_t id = correlation.fetch_add(1);
            s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t - 50'000,
                  t - 45'000, id, static_cast<std::uint32_t>(::getpid()),
                  static_cast<std::uint32_t>(::gettid()));
            s.kernel("_Z6matmulv", t - 40'000, t - 39'000, id);
        }
    };
}

TEST(CaptureEngineTest, ASlowClientGetsEveryChunkFromDiskInsteadOfDrops) {
    char pattern[] = "/tmp/cp-engine-spill-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    FakeCuptiApi cupti;
    std::atomic<std::uint32_t> correlation{1};
    produceLaunchesAndKernels(cupti, correlation);
    CaptureEngineConfig config = fastConfig();
    config.maxBuffers = 64;
    config.compressChunks = false;   // repetitive records would compress to almost nothing
    config.memoryChunkBytes = 4096;  // a chunk or two in memory, the rest on disk
    config.spillDirectory = pattern;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    Captured c = captureWithASlowClient(engine);
    ASSERT_FALSE(c.seqs.empty());
    for (std::size_t i = 0; i < c.seqs.size(); ++i) {
        ASSERT_EQ(c.seqs[i], i) << "chunks out of order or missing";
    }
    EXPECT_TRUE(c.done.ok) << c.done.message;
    EXPECT_LE(engine.peakQueuedChunkBytes(), config.memoryChunkBytes);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(static_cast<std::int64_t>(model->kernels.size()), c.done.kernels);
    EXPECT_GT(model->kernels.size(), 100u);
    EXPECT_EQ(model->stats.count("agent.dropped_records"), 0);
    EXPECT_GT(model->stats.count("agent.spilled_chunks"), 0) << "the slow client made chunks wait on disk";
    std::error_code ec;
    EXPECT_TRUE(std::filesystem::is_empty(pattern, ec)) << "the spill file leaves no name behind";
    std::filesystem::remove_all(pattern, ec);
}

TEST(CaptureEngineTest, WithoutAWritableSpillDirectoryChunksWaitInMemory) {
    FakeCuptiApi cupti;
    std::atomic<std::uint32_t> correlation{1};
    produceLaunchesAndKernels(cupti, correlation);
    CaptureEngineConfig config = fastConfig();
    config.maxBuffers = 64;
    config.compressChunks = false;
    config.memoryChunkBytes = 4096;
    config.spillDirectory = "/nonexistent/chokepoint-spill";
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    Captured c = captureWithASlowClient(engine);
    for (std::size_t i = 0; i < c.seqs.size(); ++i) {
        ASSERT_EQ(c.seqs[i], i);
    }
    EXPECT_GT(engine.peakQueuedChunkBytes(), config.memoryChunkBytes);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(static_cast<std::int64_t>(model->kernels.size()), c.done.kernels);
    EXPECT_EQ(model->stats.count("agent.spilled_chunks"), 0);
}

TEST(CaptureEngineTest, StepAlignedWindowKeepsOnlyRecordsOfTheRequestedSteps) {
    FakeCuptiApi cupti;
    NvtxRecorder& nvtx = NvtxRecorder::instance();
    // Kernels every ~2 ms of CUPTI time; steps are marked by hand below.
    cupti.producer = [](SyntheticCupti& s) {
        std::uint64_t t = cuptiNow();
        s.kernel("step_kernel", t - 20'000, t - 10'000, 1);
    };
    CaptureEngine engine(cupti, nvtx, fastConfig());
    wire::StartCapture request;
    request.steps = 2;
    request.startAtNextStep = true;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(engine.startCapture(request, 3).has_value());
    EXPECT_EQ(engine.state(), wire::AGENT_STATE_ARMED);
    EXPECT_EQ(nvtx.mode(), NvtxMode::Armed);
    std::int64_t stepTimes[3] = {0, 0, 0};
    Captured c = drive(engine, 5000, [&](int i) {
        // Steps begin at ticks 10, 20 and 30 (5 ms apart per tick).
        if (i == 10 || i == 20 || i == 30) {
            std::int64_t t = monotonicNowNs();
            stepTimes[i / 10 - 1] = t;
            nvtx.noteStep("ProfilerStep#", t);
        }
    });
    EXPECT_TRUE(c.done.ok) << c.done.message;
    EXPECT_NE(c.done.message.find("2 steps"), std::string::npos);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_GT(model->kernels.size(), 0u);
    for (std::size_t i = 0; i < model->kernels.size(); ++i) {
        core::TimestampNs start = model->kernels.startNs[i];
        EXPECT_GE(start, stepTimes[0]);
        EXPECT_LT(start, stepTimes[2]);
    }
    EXPECT_GT(model->stats.count("agent.outside_window"), 0);  // records before step 1 were dropped
    EXPECT_EQ(c.done.durationNs, stepTimes[2] - stepTimes[0]);
}

TEST(CaptureEngineTest, StopRequestEndsAnOpenEndedCapture) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;  // no steps, no duration
    request.kinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_HOST;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    auto second = engine.startCapture(request, 2);
    ASSERT_TRUE(second.has_value());
    EXPECT_EQ(second->code, wire::ERROR_CODE_BUSY);
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    engine.requestStop();
    Captured c = drive(engine);
    EXPECT_EQ(c.done.message, "stopped by request");
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
}

// The job's Python stack samplers sample while the agent marks the window on disk (onRecording);
// a capture whose kinds leave out python never marks it, so --kinds can measure a window without
// them, and the default kinds include them.
TEST(CaptureEngineTest, PythonStacksAreMarkedOnlyWhenTheKindsAskForThem) {
    for (const std::uint32_t kinds : {0u, static_cast<std::uint32_t>(wire::CAPTURE_KIND_KERNELS),
                                      static_cast<std::uint32_t>(wire::CAPTURE_KIND_PYTHON_STACKS)}) {
        FakeCuptiApi cupti;
        CaptureEngineConfig config = fastConfig();
        std::vector<bool> marks;  // on the worker thread; read after the capture's end
        std::mutex marksMutex;
        config.onRecording = [&](bool recording) {
            std::lock_guard lock(marksMutex);
            marks.push_back(recording);
        };
        CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
        wire::StartCapture request;
        request.kinds = kinds;
        request.durationMs = 30;
        ASSERT_FALSE(engine.startCapture(request, 1).has_value());
        drive(engine);
        std::lock_guard lock(marksMutex);
        const bool wantsStacks = kinds == 0 || (kinds & wire::CAPTURE_KIND_PYTHON_STACKS) != 0;
        const auto marked = std::count(marks.begin(), marks.end(), true);
        EXPECT_EQ(marked, wantsStacks ? 1 : 0) << "kinds " << kinds;
        ASSERT_FALSE(marks.empty()) << "the end of a capture always clears the mark";
        EXPECT_FALSE(marks.back());
    }
}

TEST(CaptureEngineTest, GpuMetricsWithoutCounterAccessAreReportedNotFatal) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;
    request.kinds = wire::CAPTURE_KIND_GPU_METRICS | wire::CAPTURE_KIND_KERNELS;
    request.durationMs = 40;
    // PM sampling goes to the real libcupti, which has no GPU here: the capture proceeds without it.
    auto refused = engine.startCapture(request, 1);
    ASSERT_FALSE(refused.has_value()) << refused->text;
    Captured c = drive(engine);
    EXPECT_TRUE(c.done.ok);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    const core::TraceStat* why = model->stats.find("agent.gpu_metrics_unavailable");
    ASSERT_NE(why, nullptr);
    EXPECT_EQ(why->severity, core::Severity::Warning);
    EXPECT_FALSE(why->detail.empty());
}

TEST(CaptureEngineTest, OutOfRangeWindowsAreRefusedBeforeTouchingCupti) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture huge;
    huge.durationMs = ~0ull;  // would overflow the nanosecond window end
    auto refused = engine.startCapture(huge, 1);
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->code, wire::ERROR_CODE_MALFORMED);
    wire::StartCapture marker;
    marker.stepMarker = std::string(200, 'x');
    EXPECT_TRUE(engine.startCapture(marker, 2).has_value());
    EXPECT_TRUE(cupti.calls.empty());
}

TEST(CaptureEngineTest, RealCuptiWithoutADriverIsRefusedWithoutHarm) {
    auto cupti = makeRealCuptiApi();
    CaptureEngine engine(*cupti, NvtxRecorder::instance(), fastConfig());
    auto refused = engine.startCapture(wire::StartCapture{}, 1);
    if (!refused.has_value()) {
        engine.requestStop();
        drive(engine);
        GTEST_SKIP() << "CUPTI accepted the capture: a driver is present on this machine";
    }
    EXPECT_EQ(refused->code, wire::ERROR_CODE_CUPTI_FAILED);
    EXPECT_FALSE(refused->text.empty());
    EXPECT_EQ(engine.state(), wire::AGENT_STATE_DORMANT);
}

}  // namespace
}  // namespace chokepoint::collectors

// Tests for the defects of the collector review (docs/COLLECTORS.md, "Review findings"), each one
// written so that the code before the fix fails it. No GPU: synthetic CUDA 13 activity buffers
// walked by the real cuptiActivityGetNextRecord, a fake CUPTI for the engine, the real NVTX
// recorder, real fork().

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "collectors/agent/ActivityDecoder.h"
#include "collectors/agent/CaptureEngine.h"
#include "collectors/agent/CuptiLoader.h"
#include "collectors/agent/RecordScope.h"
#include "collectors/control/AgentLoadCheck.h"
#include "core/format/CptraceReader.h"
#include "tests/collectors/agent/EngineTestSupport.h"
#include "tests/collectors/agent/FakeCuptiApi.h"

namespace chokepoint::collectors {
namespace {

using testutils::FakeCuptiApi;
using testutils::SyntheticCupti;

CaptureEngineConfig fastConfig() {
    return testutils::fastEngineConfig(400, 16);
}

using testutils::Captured;
using testutils::cuptiNow;
using testutils::drive;
using testutils::noteOf;

// --- #3: synchronization records of queries -------------------------------------------------------

TEST(SyncRecordsTest, OnlyWaitsOfSynchronizeCallsBecomeSyncRowsWithTheirThread) {
    SyntheticCupti s;
    // A real cudaStreamSynchronize (thread 201), a cudaEventQuery poll (thread 202, the NCCL
    // watchdog) and a record whose API call never comes (a query with API tracing of queries off).
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1000, 5000, 1,
          100, 201);
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, 1100, 1200, 2, 100,
          202);
    for (std::uint32_t id : {1u, 2u, 3u}) {
        auto& sync = s.add<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
        sync.type = id == 1 ? CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE
                            : CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
        sync.start = 1000 + id;
        sync.end = 4000;
        sync.streamId = 7;
        sync.correlationId = id;
    }
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(s.data(), s.size(), batch);
    for (int pass = 0; pass < ActivityDecoder::kSyncPassesToWait + 1; ++pass) {
        decoder.decode(nullptr, 0, batch);  // later passes without the missing API record
    }
    ASSERT_EQ(batch.syncs.size(), 1u);
    core::SyncRow row = batch.syncs.row(core::SyncId(0));
    EXPECT_EQ(row.kind, core::SyncKind::StreamSynchronize);
    EXPECT_EQ(row.correlationId, 1);
    ASSERT_NE(row.thread, core::kNoThread);
    EXPECT_EQ(batch.threads[row.thread].tid, 201);
    EXPECT_EQ(decoder.counts().syncQueriesDropped, 2u);
    core::TraceStats stats;
    decoder.reportStats(stats);
    EXPECT_EQ(stats.count("agent.sync_queries_dropped"), 2);
}

TEST(SyncRecordsTest, ASyncRecordWhoseApiRecordComesOnePassLaterIsKept) {
    SyntheticCupti first;
    auto& sync = first.add<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    sync.start = 500;
    sync.end = 900;
    sync.correlationId = 9;
    SyntheticCupti second;
    second.api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, 400, 950, 9);
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(first.data(), first.size(), batch);
    EXPECT_EQ(batch.syncs.size(), 0u);
    decoder.decode(second.data(), second.size(), batch);
    ASSERT_EQ(batch.syncs.size(), 1u);
    EXPECT_EQ(batch.syncs.row(core::SyncId(0)).kind, core::SyncKind::DeviceSynchronize);
    decoder.finish();
    EXPECT_EQ(decoder.counts().syncQueriesDropped, 0u);
}

TEST(SyncRecordsTest, ACaptureWithSyncAsksCuptiForCompletedWaitsOnly) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;
    request.durationMs = 20;
    request.kinds = wire::CAPTURE_KIND_SYNC;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    drive(engine);
    std::lock_guard lock(cupti.mutex);
    auto off = std::find(cupti.calls.begin(), cupti.calls.end(), "allSyncRecords off");
    auto enable = std::find(cupti.calls.begin(), cupti.calls.end(),
                            "enable " + std::to_string(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
    ASSERT_NE(off, cupti.calls.end());
    ASSERT_NE(enable, cupti.calls.end());
    EXPECT_LT(off, enable);
}

// --- #4 and #7: GPU records windowed by their launch, drained until they arrive ---------------------

TEST(LaunchWindowTest, GpuRecordsBelongToTheWindowOfTheirLaunch) {
    SyntheticCupti gpu;
    SyntheticCupti api;
    // Launched before the window (step k-1), ran inside it: not this window's.
    api.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 500, 600, 1);
    gpu.kernel("previous_step", 1500, 1700, 1);
    // Launched at the end of the window, ran after it: this window's last kernel.
    api.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1900, 1950, 2);
    gpu.kernel("last_of_window", 2500, 2900, 2);
    auto& copy = gpu.add<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    copy.start = 3000;
    copy.end = 3100;
    copy.correlationId = 3;
    copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    api.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 1960, 1970, 3);
    ClockMap clock;
    ActivityDecoder decoder(clock);
    decoder.setWindow(1000, 2000);
    core::TraceModel batch;
    // GPU buffer first in the pass: the order of buffers within one flush must not matter.
    decoder.decodePass({{gpu.data(), gpu.size()}, {api.data(), api.size()}}, batch);
    ASSERT_EQ(batch.kernels.size(), 1u);
    EXPECT_EQ(batch.text(batch.kernels.row(core::KernelId(0)).name), "last_of_window");
    EXPECT_EQ(batch.memcpys.size(), 1u);
    EXPECT_EQ(decoder.outstandingLaunches(), 0u);
}

TEST(LaunchWindowTest, OutstandingLaunchesCountWhatTheDrainWaitsFor) {
    SyntheticCupti api;
    api.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 100, 110, 1);
    api.api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, 120, 130, 2);
    api.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 140, 150,
            3);  // no GPU record
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(api.data(), api.size(), batch);
    EXPECT_EQ(decoder.outstandingLaunches(), 2u);
    SyntheticCupti gpu;
    gpu.kernel("a", 200, 300, 1);
    decoder.decode(gpu.data(), gpu.size(), batch);
    EXPECT_EQ(decoder.outstandingLaunches(), 1u);
    // The forced flush at the end of the drain hands back a kernel still running: end = 0.
    SyntheticCupti forced;
    forced.kernel("b", 400, 0, 2);
    decoder.setForcedFlush(true);
    decoder.decode(forced.data(), forced.size(), batch);
    EXPECT_EQ(batch.kernels.size(), 1u);
    EXPECT_EQ(decoder.counts().stillRunningAtStop, 1u);
    EXPECT_EQ(decoder.counts().inverted, 0u);
    core::TraceStats stats;
    decoder.reportStats(stats);
    EXPECT_EQ(stats.count("agent.still_running_at_stop"), 1);
}

TEST(LaunchWindowTest, LaunchHistoryIsBoundedAndForgottenLaunchesAreCounted) {
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.setEmitApiRows(false);
    const std::uint32_t n = static_cast<std::uint32_t>(ActivityDecoder::kMaxLaunchesKept) + 1000;
    for (std::uint32_t first = 1; first <= n; first += 10000) {
        SyntheticCupti api;
        for (std::uint32_t id = first; id < first + 10000 && id <= n; ++id) {
            api.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, id * 10ull,
                    id * 10ull + 5, id);
        }
        decoder.decode(api.data(), api.size(), batch);
    }
    // No GPU record ever came (all dropped): the oldest 1000 were forgotten, and still counted.
    EXPECT_EQ(decoder.outstandingLaunches(), ActivityDecoder::kMaxLaunchesKept);
    EXPECT_EQ(decoder.launchesWithoutGpuRecord(), n);
    EXPECT_EQ(batch.apiCalls.size(), 0u);
}

TEST(LaunchWindowTest, KernelsRunningAfterTheWindowEndOfTheirLaunchesAreKept) {
    // Each flush delivers the launches of "now" and the kernels of launches two flushes old, which
    // start after those launches: the GPU runs behind. The last launches' kernels arrive only during
    // the drain, after the window has ended.
    FakeCuptiApi cupti;
    std::mutex m;
    std::vector<std::pair<std::uint32_t, int>> launched;  // correlation, flush index
    int flushes = 0;
    std::uint32_t next = 1;
    cupti.producer = [&](SyntheticCupti& s) {
        std::lock_guard lock(m);
        ++flushes;
        std::uint64_t t = cuptiNow();
        s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t - 2000,
              t - 1000, next, static_cast<std::uint32_t>(::getpid()), static_cast<std::uint32_t>(::gettid()));
        launched.push_back({next++, flushes});
        for (auto& [id, at] : launched) {
            if (at == flushes - 2) {
                s.kernel("late_kernel", t, t + 500, id);
            }
        }
    };
    CaptureEngineConfig config = fastConfig();
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    wire::StartCapture request;
    request.durationMs = 80;
    request.kinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_API;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    ASSERT_GT(model->apiCalls.size(), 2u);
    // Every launch inside the window has its kernel, including those that ran after the window.
    EXPECT_EQ(model->kernels.size(), model->apiCalls.size());
    core::TimestampNs windowEnd = 0;
    std::string window = noteOf(*model, "capture.window_ns");
    ASSERT_NE(window.find(".."), std::string::npos);
    windowEnd = std::stoll(window.substr(window.find("..") + 2));
    std::size_t afterEnd = 0;
    for (std::size_t i = 0; i < model->kernels.size(); ++i) {
        EXPECT_TRUE(model->kernels.row(core::KernelId(static_cast<std::uint32_t>(i))).launchCall.valid());
        afterEnd += model->kernels.startNs[i] >= windowEnd ? 1 : 0;
    }
    EXPECT_GT(afterEnd, 0u) << "the last launches' kernels ran after the window end";
    EXPECT_EQ(model->stats.count("agent.gpu_records_missing"), 0);
}

TEST(LaunchWindowTest, TheDrainSwitchesTheApiAllowListOffWithTheKinds) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;
    request.durationMs = 20;
    request.kinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_API;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    drive(engine);
    std::lock_guard lock(cupti.mutex);
    auto firstDisable = std::find_if(cupti.calls.begin(), cupti.calls.end(),
                                     [](const std::string& c) { return c.rfind("disable ", 0) == 0; });
    ASSERT_NE(firstDisable, cupti.calls.end());
    auto apiOff = std::find(firstDisable, cupti.calls.end(), "runtimeApi off");
    auto nextFlush = std::find(firstDisable, cupti.calls.end(), "flushAll");
    ASSERT_NE(apiOff, cupti.calls.end());
    EXPECT_LT(apiOff, nextFlush) << "API records kept flowing during the drain";
}

// --- #5: CUPTI version ----------------------------------------------------------------------------

TEST(CuptiVersionTest, GaReleaseAndNewerMinorsAreRefusedWithTheReason) {
    auto ga = cuptiVersionProblem(130000, false);
    ASSERT_TRUE(ga.has_value());
    EXPECT_NE(ga->find("Update 1"), std::string::npos);
    EXPECT_NE(ga->find("deadlock"), std::string::npos);
    EXPECT_FALSE(cuptiVersionProblem(130001, false).has_value());
    EXPECT_FALSE(cuptiVersionProblem(130002, false).has_value());
    auto newer = cuptiVersionProblem(130100, false);
    ASSERT_TRUE(newer.has_value());
    EXPECT_NE(newer->find("CHOKEPOINT_ALLOW_NEWER_CUPTI"), std::string::npos);
    EXPECT_FALSE(cuptiVersionProblem(130100, true).has_value());
    EXPECT_TRUE(cuptiVersionProblem(120900, true).has_value());
}

TEST(CuptiVersionTest, TheTraceNotesTheCuptiVersionAndAnUnverifiedLayout) {
    FakeCuptiApi cupti;
    cupti.apiVersion = 130100;
    CaptureEngineConfig config = fastConfig();
    config.allowNewerCupti = true;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    wire::StartCapture request;
    request.durationMs = 20;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(noteOf(*model, "capture.cupti_version"), "130100");
    EXPECT_EQ(noteOf(*model, "capture.cupti_library"), "/fake/libcupti.so.13");
    EXPECT_FALSE(noteOf(*model, "capture.cupti_layout_unverified").empty());
}

// --- #18: thread-id type, #2: host-only, #11: buffers ---------------------------------------------

TEST(CuptiSessionTest, ThreadIdTypeIsSetOnceAndNeverRestored) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    for (std::uint64_t id = 1; id <= 2; ++id) {
        wire::StartCapture request;
        request.durationMs = 15;
        request.kinds = wire::CAPTURE_KIND_KERNELS;
        ASSERT_FALSE(engine.startCapture(request, id).has_value());
        drive(engine);
    }
    EXPECT_EQ(cupti.count("setThreadIdType"), 1);
    EXPECT_EQ(cupti.count("setThreadIdType " + std::to_string(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)), 1);
    EXPECT_EQ(cupti.count("zeroedBuffers on"), 2);
}

TEST(CuptiSessionTest, AHostOnlyCaptureNeverTouchesCupti) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;
    request.durationMs = 40;
    request.kinds = wire::CAPTURE_KIND_HOST | wire::CAPTURE_KIND_NVTX;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    drive(engine);
    EXPECT_EQ(cupti.timestampCalls.load(), 0) << "cuptiGetTimestamp initialises CUPTI";
    EXPECT_TRUE(cupti.calls.empty());
}

TEST(CuptiSessionTest, BuffersAreReadyBeforeCuptiAsksAndCountersStartAgain) {
    ActivityBufferPool pool(4096, 3);
    EXPECT_EQ(pool.acquire(), nullptr) << "acquire() must never allocate on the asking thread";
    EXPECT_EQ(pool.exhaustedCount(), 1u);
    EXPECT_EQ(pool.topUp(2), 2u);
    std::uint8_t* a = pool.acquire();
    ASSERT_NE(a, nullptr);
    for (std::size_t i = 0; i < 4096; ++i) {
        ASSERT_EQ(a[i], 0) << "blocks are zeroed before CUPTI gets them";
    }
    std::memset(a, 0xAB, 4096);
    pool.release(a);
    EXPECT_EQ(pool.topUp(5), 3u);  // bounded by maxBlocks
    std::uint8_t* again = pool.acquire();
    ASSERT_NE(again, nullptr);
    bool zeroed = true;
    for (std::size_t i = 0; i < 4096; ++i) {
        zeroed = zeroed && again[i] == 0;
    }
    EXPECT_TRUE(zeroed);
    pool.resetCounters();
    EXPECT_EQ(pool.exhaustedCount(), 0u);
}

TEST(CuptiSessionTest, AnOldExhaustionIsNotReportedAgainByTheNextCapture) {
    FakeCuptiApi cupti;
    cupti.producer = [](SyntheticCupti& s) { s.kernel("k", 1, 2, 1); };
    cupti.holdBuffers = true;
    cupti.buffersPerFlush = 3;
    CaptureEngineConfig config = fastConfig();
    config.maxBuffers = 4;
    config.drainTimeoutMs = 50;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    wire::StartCapture request;
    request.durationMs = 60;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured first = drive(engine);
    cupti.releaseHeld();
    cupti.holdBuffers = false;
    cupti.producer = nullptr;
    ASSERT_FALSE(engine.startCapture(request, 2).has_value());
    Captured second = drive(engine);
    auto a = core::readCptraceFromMemory(first.bytes, "first");
    auto b = core::readCptraceFromMemory(second.bytes, "second");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_GT(a->stats.count("agent.buffer_pool_exhausted"), 0);
    EXPECT_EQ(b->stats.count("agent.buffer_pool_exhausted"), 0);
}

TEST(CuptiSessionTest, DetachAfterCaptureIsOptional) {
    FakeCuptiApi cupti;
    CaptureEngineConfig config = fastConfig();
    CaptureEngine plain(cupti, NvtxRecorder::instance(), config);
    wire::StartCapture request;
    request.durationMs = 15;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(plain.startCapture(request, 1).has_value());
    drive(plain);
    EXPECT_EQ(cupti.count("detach"), 0);
    FakeCuptiApi cupti2;
    config.detachAfterCapture = true;
    CaptureEngine detaching(cupti2, NvtxRecorder::instance(), config);
    for (std::uint64_t id = 1; id <= 2; ++id) {
        ASSERT_FALSE(detaching.startCapture(request, id).has_value());
        drive(detaching);
    }
    EXPECT_EQ(cupti2.count("detach"), 2);
    // After a detach CUPTI is a fresh session: the thread-id type is set again before any kind.
    EXPECT_EQ(cupti2.count("setThreadIdType"), 2);
}

// --- #6: PM sampling and the DEVICE dump off the caller's thread --------------------------------------

TEST(WorkerSideSourcesTest, DeviceDumpAndGpuMetricsStartOnTheWorkerNotInsideTheCaller) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;
    request.durationMs = 30;
    request.kinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_GPU_METRICS;
    // In file mode this call runs inside cuInit: it must not program the device.
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine);
    EXPECT_NE(cupti.dumpThread.load(), std::thread::id{});
    EXPECT_NE(cupti.dumpThread.load(), std::this_thread::get_id());
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(model->stats.count("agent.gpu_metrics_unavailable"), 1);  // no GPU here, said on the worker
}

// --- #9: a capture after a file-mode capture ------------------------------------------------------

TEST(FileModeTest, ASecondCaptureAfterAFileModeCaptureStreamsToItsClient) {
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    std::string file;
    std::atomic<int> ended{0};
    engine.setChunkSink(
        [&](std::string_view bytes) {
            file.append(bytes);
            return true;
        },
        [&] { ended.fetch_add(1); });
    wire::StartCapture request;
    request.durationMs = 20;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    ASSERT_TRUE(engine.waitIdle(5000));
    EXPECT_EQ(ended.load(), 1);
    const std::size_t fileBytes = file.size();
    ASSERT_GT(fileBytes, 0u);
    ASSERT_TRUE(core::readCptraceFromMemory(file, "file").ok());
    // attach: the same engine, a socket client.
    ASSERT_FALSE(engine.startCapture(request, 2).has_value());
    Captured c = drive(engine, 3000);
    EXPECT_TRUE(c.done.ok) << c.done.message;
    EXPECT_EQ(c.done.captureId, 2u);
    EXPECT_FALSE(c.bytes.empty());
    EXPECT_TRUE(core::readCptraceFromMemory(c.bytes, "attach").ok());
    EXPECT_EQ(file.size(), fileBytes) << "the finished file was written to again";
    EXPECT_EQ(ended.load(), 1);
}

// --- #10: another tool moving CUPTI's clock -------------------------------------------------------

TEST(ClockTheftTest, AClockDomainChangeEndsTheCaptureWithADataLossNote) {
    ClockAnchor a{1'000'000'000, 500, 1'000'000'000};
    ClockAnchor realtimeStep{2'100'000'000, 1'000'000'500,
                             2'100'000'000};  // NTP step: CUPTI follows REALTIME
    EXPECT_FALSE(clockJumped(a, realtimeStep));
    ClockAnchor tsc{9'000'000'000'000, 1'000'000'500, 2'000'000'000};  // another domain
    EXPECT_TRUE(clockJumped(a, tsc));

    FakeCuptiApi cupti;
    CaptureEngineConfig config = fastConfig();
    config.anchorIntervalMs = 10;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    wire::StartCapture request;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine, 5000, [&](int tick) {
        if (tick == 10) {
            cupti.clockOffsetNs = 5'000'000'000ull;  // a TSC-like callback registered mid-capture
        }
    });
    EXPECT_NE(c.done.message.find("clock"), std::string::npos) << c.done.message;
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    const core::TraceStat* stat = model->stats.find("agent.cupti_clock_changed");
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, core::Severity::DataLoss);
    EXPECT_NE(stat->detail.find("torch.profiler"), std::string::npos);
}

TEST(ClockTheftTest, StolenBufferCallbacksEndTheCaptureWhileTheJobKeepsStepping) {
    FakeCuptiApi cupti;
    cupti.producer = [](SyntheticCupti& s) { s.kernel("k", 1, 2, 1); };
    CaptureEngineConfig config = fastConfig();
    config.callbackSilenceMs = 100;
    NvtxRecorder& nvtx = NvtxRecorder::instance();
    CaptureEngine engine(cupti, nvtx, config);
    wire::StartCapture request;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine, 5000, [&](int tick) {
        if (tick == 10) {
            cupti.stealCallbacks();
        }
        if (tick > 10 && tick % 5 == 0) {
            nvtx.noteStep("ProfilerStep#", monotonicNowNs());  // the job keeps stepping
        }
    });
    EXPECT_NE(c.done.message.find("buffer callbacks"), std::string::npos) << c.done.message;
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    const core::TraceStat* stat = model->stats.find("agent.cupti_callbacks_lost");
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, core::Severity::DataLoss);
}

TEST(ClockTheftTest, AnIdleJobIsNotMistakenForStolenCallbacks) {
    FakeCuptiApi cupti;
    cupti.producer = [](SyntheticCupti& s) { s.kernel("k", 1, 2, 1); };
    CaptureEngineConfig config = fastConfig();
    config.callbackSilenceMs = 50;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    wire::StartCapture request;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    request.durationMs = 400;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine, 5000, [&](int tick) {
        if (tick == 10) {
            cupti.stealCallbacks();  // no more callbacks, but no steps either: a pause, not a theft
        }
    });
    EXPECT_NE(c.done.message.find("400 ms"), std::string::npos) << c.done.message;
}

// --- #16: model facts published before an attach ------------------------------------------------------

TEST(MetaMarksTest, FactsPublishedWhileIdleReachALaterCapture) {
    NvtxRecorder& nvtx = NvtxRecorder::instance();
    ASSERT_EQ(nvtx.mode(), NvtxMode::Idle);
    nvtx.noteMeta("chokepoint:meta params=1234567 tokens_per_step=4096");
    FakeCuptiApi cupti;
    CaptureEngine engine(cupti, nvtx, fastConfig());
    wire::StartCapture request;
    request.durationMs = 20;
    request.kinds = wire::CAPTURE_KIND_NVTX;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    Captured c = drive(engine);
    auto model = core::readCptraceFromMemory(c.bytes, "capture");
    ASSERT_TRUE(model.ok()) << model.error().message;
    EXPECT_EQ(noteOf(*model, "model.params"), "1234567");
    EXPECT_EQ(noteOf(*model, "model.tokens_per_step"), "4096");
}

// --- #12: NVTX pairing ---------------------------------------------------------------------------------

struct DomainName {
    char name[64];  // the layout of the recorder's domain handles
};

std::vector<core::RangeRow> drainRanges(NvtxRecorder& nvtx, core::TraceModel& batch) {
    nvtx.drainInto(batch);
    std::vector<core::RangeRow> rows;
    for (std::size_t i = 0; i < batch.ranges.size(); ++i) {
        rows.push_back(batch.ranges.row(core::RangeId(static_cast<std::uint32_t>(i))));
    }
    return rows;
}

TEST(NvtxPairingTest, AnEndDrainedBeforeItsStartStillMakesTheRange) {
    NvtxRecorder& nvtx = NvtxRecorder::instance();
    nvtx.clear();
    nvtx.setMode(NvtxMode::Recording);
    std::uint64_t id = nvtx.nextRangeId();
    std::atomic<int> stage{0};
    // Thread B registers its ring first, so it is drained first; thread A starts the range, B ends it.
    std::thread b([&] {
        nvtx.record(NvtxEventType::Mark, nullptr, 0, "b_is_here", nullptr);
        stage = 1;
        while (stage.load() != 2) {
            std::this_thread::yield();
        }
        nvtx.record(NvtxEventType::End, nullptr, id, nullptr, nullptr);
        stage = 3;
        while (stage.load() != 4) {
            std::this_thread::yield();
        }
    });
    std::thread a([&] {
        while (stage.load() != 1) {
            std::this_thread::yield();
        }
        nvtx.record(NvtxEventType::Start, nullptr, id, "cross_thread", nullptr);
        stage = 2;
        while (stage.load() != 4) {
            std::this_thread::yield();
        }
    });
    while (stage.load() != 3) {
        std::this_thread::yield();
    }
    core::TraceModel batch;
    std::vector<core::RangeRow> rows = drainRanges(nvtx, batch);  // both threads still alive
    stage = 4;
    a.join();
    b.join();
    nvtx.setMode(NvtxMode::Idle);
    core::TraceModel closing;
    nvtx.drainInto(closing, NvtxRecorder::nowNs());
    bool found = false;
    for (const auto& r : rows) {
        if (batch.text(r.name) == "cross_thread") {
            found = true;
            EXPECT_GT(r.endNs, r.startNs);
        }
    }
    EXPECT_TRUE(found);
    EXPECT_EQ(closing.stats.count("nvtx.open_at_stop"), 0);
}

TEST(NvtxPairingTest, PushesOfTwoDomainsInterleavedPairWithinTheirDomain) {
    NvtxRecorder& nvtx = NvtxRecorder::instance();
    nvtx.clear();
    nvtx.setMode(NvtxMode::Recording);
    static DomainName nccl{"NCCL"};
    std::thread t([&] {
        nvtx.record(NvtxEventType::Push, &nccl, 0, "nccl_allreduce", nullptr);
        nvtx.record(NvtxEventType::Push, nullptr, 0, "forward", nullptr);
        nvtx.record(NvtxEventType::Pop, &nccl, 0, nullptr, nullptr);    // ends nccl_allreduce
        nvtx.record(NvtxEventType::Pop, nullptr, 0, nullptr, nullptr);  // ends forward
    });
    t.join();
    core::TraceModel batch;
    std::vector<core::RangeRow> rows = drainRanges(nvtx, batch);
    nvtx.setMode(NvtxMode::Idle);
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& r : rows) {
        if (batch.text(r.name) == "nccl_allreduce") {
            EXPECT_EQ(batch.text(r.domain), "NCCL");
        } else {
            EXPECT_EQ(batch.text(r.name), "forward");
            EXPECT_TRUE(batch.text(r.domain).empty());
        }
    }
    // nccl_allreduce started first and ended first; forward started second and ended last.
    const core::RangeRow& nccl0 = batch.text(rows[0].name) == "nccl_allreduce" ? rows[0] : rows[1];
    const core::RangeRow& fwd = batch.text(rows[0].name) == "forward" ? rows[0] : rows[1];
    EXPECT_LT(nccl0.startNs, fwd.startNs);
    EXPECT_LT(nccl0.endNs, fwd.endNs);
}

// --- #13, #14, #17: record details -------------------------------------------------------------------

TEST(RecordDetailsTest, GraphRecordsAreRangesNotKernels) {
    SyntheticCupti s;
    s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 100, 200, 5);
    auto& g = s.add<CUpti_ActivityGraphTrace2>(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    g.start = 300;
    g.end = 9000;
    g.graphId = 42;
    g.deviceId = 0;
    g.streamId = 3;
    g.correlationId = 5;
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(s.data(), s.size(), batch);
    EXPECT_EQ(batch.kernels.size(), 0u);
    ASSERT_EQ(batch.ranges.size(), 1u);
    core::RangeRow r = batch.ranges.row(core::RangeId(0));
    EXPECT_EQ(batch.text(r.name), "CUDA graph 42");
    EXPECT_EQ(r.source, core::RangeSource::GpuUserAnnotation);
    EXPECT_EQ(r.streamId, 3);
    EXPECT_EQ(r.endNs - r.startNs, 8700);
}

TEST(RecordDetailsTest, InvisibleDevicesAreSkippedAndNamesFreed) {
    SyntheticCupti s;
    for (std::uint32_t id : {0u, 1u}) {
        auto& d = s.add<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
        d.id = id;
        d.name = strdup(id == 0 ? "visible GPU" : "hidden GPU");
        d.isCudaVisible = id == 0 ? 1 : 0;
        d.numThreadsPerWarp = 32;
    }
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(s.data(), s.size(), batch);
    ASSERT_EQ(batch.devices.size(), 1u);
    EXPECT_EQ(batch.devices[0].name, "visible GPU");
    EXPECT_EQ(decoder.counts().invisibleDevices, 1u);
}

TEST(RecordDetailsTest, InternalLaunchRowsAreNotNamedInvalid) {
    SyntheticCupti s;
    s.api(CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, 0, 100, 200, 8);
    ClockMap clock;
    ActivityDecoder decoder(clock);
    core::TraceModel batch;
    decoder.decode(s.data(), s.size(), batch);
    ASSERT_EQ(batch.apiCalls.size(), 1u);
    EXPECT_EQ(batch.text(batch.apiCalls.row(core::ApiCallId(0)).name), "internal launch");
}

// --- #8: where the agent finds CUPTI -------------------------------------------------------------------

TEST(CuptiSearchTest, CandidatesFollowTheDocumentedOrder) {
    std::vector<std::string> mapped = {
        "/opt/conda/lib/python3.12/site-packages/numpy/core/_multiarray_umath.so",
        "/opt/conda/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
    };
    std::vector<std::string> c = cuptiCandidates("/my/cupti", mapped, {"/usr/local/cuda-13.0", ""});
    const std::string site = "/opt/conda/lib/python3.12/site-packages";
    std::vector<std::string> expected = {
        "/my/cupti/libcupti.so.13",
        site + "/nvidia/cu13/lib/libcupti.so.13",
        site + "/nvidia/cuda_cupti/lib/libcupti.so.13",
        "/usr/local/cuda-13.0/lib64/libcupti.so.13",
        "/usr/local/cuda-13.0/extras/CUPTI/lib64/libcupti.so.13",
        "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcupti.so.13",
        "libcupti.so.13",
    };
    EXPECT_EQ(c, expected);
    EXPECT_EQ(cuptiCandidates("/x/libcupti.so.13.0.1", {}, {}).front(), "/x/libcupti.so.13.0.1");
    EXPECT_EQ(sitePackagesOf("/usr/lib/python3/dist-packages/torch/lib/libc10.so"),
              "/usr/lib/python3/dist-packages");
    EXPECT_EQ(sitePackagesOf("/usr/lib/libc.so.6"), "");
}

TEST(CuptiSearchTest, ACaptureWithoutCuptiIsRefusedNamingWhatWasTried) {
    FakeCuptiApi cupti;
    cupti.loadable = false;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), fastConfig());
    wire::StartCapture request;
    request.kinds = wire::CAPTURE_KIND_KERNELS;
    auto refused = engine.startCapture(request, 1);
    ASSERT_TRUE(refused.has_value());
    EXPECT_NE(refused->text.find("/fake/libcupti.so.13"), std::string::npos);
    EXPECT_EQ(cupti.count("subscribe"), 0);
}

TEST(AgentLoadCheckTest, TheLoaderSaysWhetherALibraryResolves) {
    std::string why;
    EXPECT_TRUE(loaderOutputSaysLoadable("\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x1)\n", 0, &why));
    EXPECT_TRUE(why.empty());
    EXPECT_FALSE(loaderOutputSaysLoadable("\tlibprotobuf.so.32 => not found\n\tlibc.so.6 => /lib/libc.so.6\n",
                                          0, &why));
    EXPECT_NE(why.find("libprotobuf.so.32 => not found"), std::string::npos);
    EXPECT_FALSE(loaderOutputSaysLoadable("", 127, &why));
#ifdef CHOKEPOINT_AGENT_FOR_TESTS
    // The real thing: the built agent loads here; a text file does not.
    AgentLoadReport real = checkAgentLoads(CHOKEPOINT_AGENT_FOR_TESTS, {"PATH=/usr/bin:/bin"});
    if (real.checked) {
        EXPECT_TRUE(real.loads) << real.details;
        AgentLoadReport bogus = checkAgentLoads("/etc/hostname", {"PATH=/usr/bin:/bin"});
        EXPECT_FALSE(bogus.loads);
    }
#endif
}

// --- #21: which processes record ----------------------------------------------------------------------

TEST(RecordScopeTest, TheOutermostAgentProcessOfEachRankRecords) {
    // python train.py: no ancestor runs the agent.
    EXPECT_TRUE(
        decideRecording(std::nullopt, {{10, false, std::nullopt}, {1, false, std::nullopt}}, false).record);
    // Inductor's autotuning subprocess of that process: same (no) rank, parent runs the agent.
    RecordDecision helper = decideRecording(std::nullopt, {{20, true, std::nullopt}}, false);
    EXPECT_FALSE(helper.record);
    EXPECT_NE(helper.reason.find("20"), std::string::npos);
    EXPECT_NE(helper.reason.find("CHOKEPOINT_RECORD_ALL"), std::string::npos);
    // A torchrun rank: its parent, the elastic agent, never loaded the agent.
    EXPECT_TRUE(
        decideRecording(std::string("3"), {{30, false, std::string("3")}, {29, false, std::nullopt}}, false)
            .record);
    // The rank's own autotuning subprocess inherits RANK=3 from a parent that runs the agent.
    EXPECT_FALSE(decideRecording(std::string("3"), {{40, true, std::string("3")}}, false).record);
    // mp.spawn: the launcher initialised CUDA (no RANK), the children each have their own.
    EXPECT_TRUE(decideRecording(std::string("1"), {{50, true, std::nullopt}}, false).record);
    // Asked for everything.
    EXPECT_TRUE(decideRecording(std::nullopt, {{20, true, std::nullopt}}, true).record);
}

TEST(RecordScopeTest, AncestorsAreReadFromProc) {
    std::vector<AncestorProcess> ancestors = readAncestors("/nonexistent/libchokepoint_agent.so");
    ASSERT_FALSE(ancestors.empty());
    EXPECT_EQ(ancestors.front().pid, ::getppid());
    for (const auto& a : ancestors) {
        EXPECT_FALSE(a.runsAgent);
        EXPECT_GT(a.pid, 1);
    }
}

// --- #1: fork storm -------------------------------------------------------------------------------------

TEST(ForkTest, ForkStormWhileTheWorkerAndControlThreadAreBusyNeverKillsAChild) {
    FakeCuptiApi cupti;
    std::atomic<std::uint32_t> correlation{1};
    cupti.producer = [&](SyntheticCupti& s) {
        for (int i = 0; i < 50; ++i) {
            std::uint64_t t = cuptiNow();
            std::uint32_t id = correlation.fetch_add(1);
            s.api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, t - 5000,
                  t - 4000, id, static_cast<std::uint32_t>(::getpid()),
                  static_cast<std::uint32_t>(::gettid()));
            s.kernel("_Z4stepv", t - 3000, t - 1000, id);
        }
    };
    CaptureEngineConfig config = fastConfig();
    config.loopIntervalMs = 1;
    config.flushIntervalMs = 1;
    config.chunkIntervalMs = 1;
    config.memoryChunkBytes = 2048;  // chunks go through the spill file too
    config.compressChunks = false;
    CaptureEngine engine(cupti, NvtxRecorder::instance(), config);
    NvtxRecorder& nvtx = NvtxRecorder::instance();
    wire::StartCapture request;
    request.kinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_API | wire::CAPTURE_KIND_NVTX;
    ASSERT_FALSE(engine.startCapture(request, 1).has_value());
    std::atomic<bool> stop{false};
    // NVTX from several threads (the worker drains them), and a control thread polling chunks.
    std::vector<std::thread> busy;
    for (int t = 0; t < 3; ++t) {
        busy.emplace_back([&] {
            // Many ranges open at once, then all ended: the worker's maps grow, rehash and shrink.
            std::vector<std::uint64_t> ids;
            while (!stop.load()) {
                for (int i = 0; i < 1500 && !stop.load(); ++i) {
                    ids.push_back(nvtx.nextRangeId());
                    nvtx.record(NvtxEventType::Start, nullptr, ids.back(),
                                "a_range_name_long_enough_to_allocate", nullptr);
                    nvtx.record(NvtxEventType::Push, nullptr, 0, "forward_with_a_longer_name_to_copy",
                                nullptr);
                }
                for (std::uint64_t id : ids) {
                    nvtx.record(NvtxEventType::End, nullptr, id, nullptr, nullptr);
                    nvtx.record(NvtxEventType::Pop, nullptr, 0, nullptr, nullptr);
                }
                ids.clear();
            }
        });
    }
    busy.emplace_back([&] {
        wire::CaptureDone done;
        while (!stop.load()) {
            std::vector<wire::Chunk> chunks;
            engine.pollCapture(chunks, &done);
        }
    });
    int failures = 0;
    for (int i = 0; i < 400; ++i) {
        pid_t child = ::fork();
        if (child == 0) {
            ::alarm(2);  // a child stuck in a half-changed container counts as a failure too
            // What the agent's pthread_atfork child handler does.
            NvtxRecorder::instance().resetAfterFork();
            engine.abandonAfterFork();
            std::vector<std::string> work(64, std::string(100, 'x'));  // the child goes on using the heap
            ::_exit(work.size() == 64 ? 0 : 1);
        }
        ASSERT_GT(child, 0);
        int status = 0;
        ::waitpid(child, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            ++failures;  // crashed, or stuck in a half-changed container until the alarm
            break;
        }
    }
    stop = true;
    for (auto& t : busy) {
        t.join();
    }
    engine.requestStop();
    drive(engine);
    nvtx.setMode(NvtxMode::Idle);
    EXPECT_EQ(failures, 0) << "children crashed after fork";
}

}  // namespace
}  // namespace chokepoint::collectors

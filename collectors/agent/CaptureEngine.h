#pragma once
// The capture state machine of the agent, behind the control server's CaptureBackend interface.
// One engine per process, reused for every capture.
//
//   Dormant --startCapture--> Armed (start at next step: CUPTI already on, rows before the first
//                                    step marker are discarded, so the window starts exactly at
//                                    the marker and first-enable costs fall before it; with a
//                                    delay or steps to wait, CUPTI stays off until they have
//                                    passed, then the worker turns it on)
//                          \-> Capturing --window end / stop / client gone--> Draining --> Dormant
//
// While Dormant the engine holds no CUPTI subscription and enables no activity kind; NVTX
// handlers return after one atomic load. A capture subscribes (cuptiSubscribe_v2, named
// "Chokepoint"; if another subscriber holds CUPTI the request is refused naming the holder),
// registers the buffer callbacks, enables the activity kinds and the API allow-list, starts the
// /proc sampler and records NVTX. A worker thread flushes CUPTI every flushIntervalMs, takes clock
// anchors, decodes completed buffers, drains NVTX and host samples, and encodes batches into
// .cptrace chunks (header first, footer last). Draining disables the kinds and the API
// allow-list, flushes until every GPU record of an in-window launch has arrived (bounded by
// drainTimeoutMs), then forces a flush, unsubscribes (optionally detaches CUPTI) and reports drops.
// PM sampling and the DEVICE dump start on the worker, never on the thread that called
// startCapture (in file mode that thread is inside cuInit).
//
// Memory is bounded: activity buffers come from a fixed pool (a full pool makes CUPTI drop records,
// counted as agent.dropped_records), NVTX rings and host samples are bounded, and when encoded
// chunks pile up beyond maxQueuedChunkBytes (a slow client) decoding pauses, so the pool fills and
// CUPTI drops instead of the process growing. Nothing here blocks an application thread: the CUPTI
// callbacks only take a block from the pool or queue a completed one. No exceptions escape.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "chokepoint/BuildId.h"
#include "chokepoint/Version.h"
#include "collectors/agent/ActivityBufferPool.h"
#include "collectors/agent/ActivityDecoder.h"
#include "collectors/agent/ClockSync.h"
#include "collectors/agent/CuptiApi.h"
#include "collectors/agent/LaunchStepCounter.h"
#include "collectors/agent/PmSampler.h"
#include "collectors/control/ChunkSpill.h"
#include "collectors/control/ControlServer.h"
#include "collectors/nvtx/NvtxRecorder.h"
#include "core/format/CptraceChunkEncoder.h"
#include "core/names/NameRules.h"

namespace chokepoint::collectors {

// Default kinds when StartCapture.kinds is 0.
constexpr std::uint32_t kDefaultCaptureKinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_MEMORY |
                                               wire::CAPTURE_KIND_API | wire::CAPTURE_KIND_SYNC |
                                               wire::CAPTURE_KIND_NVTX | wire::CAPTURE_KIND_HOST |
                                               wire::CAPTURE_KIND_OVERHEAD | wire::CAPTURE_KIND_PYTHON_STACKS;

// How runtime-API records are asked for. AllowListOnly: cuptiActivityEnableRuntimeApi per allowed
// call (records only when CUPTI started before the CUDA runtime: run mode). KindMinusOthers: the
// RUNTIME kind, then every call outside the allow-list switched off (records in attach too).
enum class RuntimeApiTracing { KindMinusOthers, AllowListOnly };

struct CaptureEngineConfig {
    std::size_t bufferBytes = 4u << 20;  // CUPTI recommends 1-10 MB per buffer
    std::size_t maxBuffers = 32;         // 128 MiB cap, like Kineto's default
    int loopIntervalMs = 50;
    int flushIntervalMs = 500;        // cuptiActivityFlushAll(0) cadence for live streaming
    int anchorIntervalMs = 1000;      // clock anchors
    int chunkIntervalMs = 500;        // encode at least this often when rows are pending
    int drainTimeoutMs = 2000;        // how long draining waits for in-flight GPU records
    int exitDrainTimeoutMs = 300;     // the same at process exit (the footer must be written first)
    std::size_t spareBuffers = 8;     // activity buffers kept allocated and zeroed ahead of CUPTI's asks
    bool allowNewerCupti = false;     // accept a CUPTI of a newer 13.x minor (record layouts unverified)
    bool detachAfterCapture = false;  // cuptiFinalize after each capture (CHOKEPOINT_CUPTI_DETACH=1)
    // CHOKEPOINT_RUNTIME_API=allowlist selects AllowListOnly (for comparing on a GPU).
    RuntimeApiTracing runtimeApiTracing = RuntimeApiTracing::KindMinusOthers;
    int detachTimeoutMs = 2000;
    // CUPTI's buffer callbacks count as taken by another tool when, after buffers had been flowing,
    // none was requested or completed for this long while at least two more steps began.
    int callbackSilenceMs = 5000;
    // Encoded chunks waiting for a slow client: up to memoryChunkBytes in memory, then on disk up to
    // maxSpillBytes (ChunkSpill, in spillDirectory; empty: $TMPDIR or /tmp). Decoding pauses (and
    // CUPTI then drops, counted) only when more than maxQueuedChunkBytes wait in memory, which
    // happens once the disk cap is reached or the disk cannot be written.
    std::size_t memoryChunkBytes = 32u << 20;
    std::uint64_t maxSpillBytes = 4ull << 30;
    std::string spillDirectory;
    std::size_t maxQueuedChunkBytes = 256u << 20;
    // The step-marker prefixes of the name table (core/names), in the agent's order.
    std::vector<std::string> defaultStepMarkers = {std::string(names::kProfilerStepPrefix),
                                                   std::string(names::kHelperStepPrefix),
                                                   std::string(names::kPlainStepPrefix)};
    bool cuptiAvailable = true;  // false: the process has no usable CUPTI; host + NVTX only
    int pmDeviceIndex = -1;      // device for GPU metrics; -1: LOCAL_RANK (or 0) of this process
    // Whether PM sampling can start on a device now (it has a CUDA context); tests replace it.
    std::function<bool(int)> pmReady = [](int device) { return PmSampler::deviceHasContext(device); };
    PmSamplingCalls* pmCalls = nullptr;  // PM sampling's device calls; null: libcupti (tests: a fake)
    std::int64_t pid = 0;
    std::vector<std::string> commandLine;
    std::string hostName;
    std::string agentVersion = chokepoint::kVersion;  // project(VERSION)
    std::string agentBuild = chokepoint::buildId();   // source commit (BuildId.h)
    bool compressChunks = true;
    std::function<std::vector<std::string>()> gpuNames;  // optional, for Status
    std::function<void(const std::string&)> log;         // optional diagnostics
    // Called with true when a capture's window is about to be recorded (after a delay or the
    // steps to wait) and with false when the capture has ended: the agent marks it on disk for
    // the Python stack sampler (<socket dir>/<pid>.capturing). Called with true only when the
    // capture's kinds hold CAPTURE_KIND_PYTHON_STACKS. Optional; on the worker thread.
    std::function<void(bool)> onRecording;
};

// Why a loaded CUPTI (cuptiGetVersion) cannot be used, or nothing: at least 13.0 Update 1
// (130001), and no newer 13.x minor than the headers built against unless allowed.
std::optional<std::string> cuptiVersionProblem(std::uint32_t version, bool allowNewer);
// True when CUPTI's clock moved to another time domain between two anchors (another tool's
// timestamp callback), as opposed to a REALTIME step or ordinary drift.
bool clockJumped(const ClockAnchor& before, const ClockAnchor& after);

class CaptureEngine final : public CaptureBackend {
public:
    CaptureEngine(CuptiApi& cupti, NvtxRecorder& nvtx, CaptureEngineConfig config);
    ~CaptureEngine() override;
    CaptureEngine(const CaptureEngine&) = delete;
    CaptureEngine& operator=(const CaptureEngine&) = delete;

    // CaptureBackend (called by the control thread).
    wire::Status status() override;
    std::optional<wire::Error> startCapture(const wire::StartCapture& request,
                                            std::uint64_t captureId) override;
    void requestStop() override;
    bool pollCapture(std::vector<wire::Chunk>& out, wire::CaptureDone* done) override;

    // File mode (chokepoint-cli run): chunks of the *next* capture go to `sink` on the worker thread
    // instead of the queue, and the engine returns to Dormant by itself when that capture ends. The
    // sink is then forgotten and `ended` is called (on the worker), so a later capture (attach)
    // streams to its client again. Set before start.
    void setChunkSink(std::function<bool(std::string_view)> sink, std::function<void()> ended = {});
    // Process exit: stop with a short drain so the footer is written before exit() goes on.
    void requestStopForExit();
    // Blocks until the current capture (if any) has ended, at most timeoutMs. True when idle.
    bool waitIdle(int timeoutMs);

    wire::AgentState state() const { return static_cast<wire::AgentState>(m_state.load()); }
    const ActivityBufferPool& pool() const { return m_pool; }
    std::uint64_t droppedRecords() const { return m_cuptiDropped.load(); }
    // The most encoded chunk bytes that waited in memory during the last capture (spilled ones
    // not counted).
    std::size_t peakQueuedChunkBytes() {
        std::lock_guard lock(m_mutex);
        return m_peakQueuedBytes;
    }

    // In a forked child: the worker thread does not exist; forget it and stay dormant forever.
    void abandonAfterFork();

    // CUPTI buffer callbacks (registered at every capture start; CUPTI keeps one global pair).
    static void CUPTIAPI onBufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxRecords);
    static void CUPTIAPI onBufferCompleted(CUcontext context, std::uint32_t streamId, std::uint8_t* buffer,
                                           std::size_t size, std::size_t validSize);

private:
    struct Completed {
        std::uint8_t* buffer;
        std::size_t validBytes;
    };

    // Loads CUPTI, checks its version, subscribes and sets what must precede any kind.
    std::optional<wire::Error> acquireCupti();
    // acquireCupti when not subscribed yet, then the buffer callbacks, the kinds and the allow-list.
    std::optional<wire::Error> enableCupti(std::uint32_t kinds);
    // --after-steps in a job without step markers: CUPTI's launch callbacks feed m_launchSteps while
    // the agent waits (docs/COLLECTORS.md, "Skipping start-up"). start returns why it could not.
    std::optional<std::string> startLaunchWatch();
    void stopLaunchWatch();
    static void onLaunchName(void* counter, const char* kernelName);
    void setApiAllowList(bool on);
    // Disables every kind and the allow-list, detaches CUPTI when configured and allowed, and
    // unsubscribes. `processUsesGraphs`: the capture saw CUDA graph launches; detaching then
    // crashed a torch.compile reduce-overhead job on an H100 (docs/COLLECTORS.md), so it is skipped.
    void disableCupti(bool processUsesGraphs = false);
    void startWorkerSideSources();
    void run();
    void emit(std::string bytes, std::int64_t records);
    void encodeBatch(core::TraceModel& batch, bool force);
    void fillBatchContext(core::TraceModel& batch);
    void noteMetaMarks(const core::TraceModel& batch);
    void noteMetaText(std::string_view mark);
    void takeAnchor();
    std::vector<Completed> takeCompleted();
    void log(const std::string& text) const;

    CuptiApi& m_cupti;
    NvtxRecorder& m_nvtx;
    CaptureEngineConfig m_config;
    ActivityBufferPool m_pool;
    ClockMap m_clock;

    std::atomic<int> m_state{wire::AGENT_STATE_DORMANT};
    std::thread m_worker;
    std::mutex m_mutex;  // guards everything below up to m_done
    std::condition_variable m_cv;
    bool m_stopRequested = false;
    wire::StartCapture m_request;
    std::uint64_t m_captureId = 0;
    core::TimestampNs m_startNs = 0;
    // The stream in order. An empty entry stands for the next chunk in m_spill (it waits on disk).
    std::deque<std::optional<wire::Chunk>> m_queue;
    std::size_t m_queuedBytes = 0;  // in memory only
    ChunkSpill m_spill;
    std::uint64_t m_spillLostChunks = 0;
    bool m_spillRefusedLogged = false;
    std::size_t m_peakQueuedBytes = 0;
    std::uint64_t m_seq = 0;
    bool m_finished = false;
    wire::CaptureDone m_done;
    std::string m_cuptiHolder;
    std::function<bool(std::string_view)> m_sink;
    std::function<void()> m_sinkEnded;
    bool m_exitDrain = false;

    std::mutex m_completedMutex;  // CUPTI completion callback <-> worker
    std::vector<Completed> m_completed;
    std::atomic<std::uint64_t> m_cuptiDropped{0};
    std::atomic<std::uint64_t> m_lateBuffers{0};
    std::atomic<std::uint64_t> m_bufferCallbacks{0};  // our request/complete callbacks called

    // Worker-only state.
    std::vector<CUpti_ActivityKind> m_enabledKinds;
    bool m_subscribed = false;
    bool m_threadIdTypeSet = false;  // SYSTEM, set once at the first capture and never changed
    bool m_apiAllowListOn = false;
    bool m_wantPm = false;                   // start PM sampling on the worker (never inside cuInit)
    bool m_wantDeviceDump = false;           // DEVICE records, taken on the worker too
    std::uint32_t m_deferredCuptiKinds = 0;  // enabled by the worker when a delayed start is due
    bool m_launchWatchOn = false;            // the launch sink feeds m_launchSteps
    std::string m_launchWatchProblem;        // why steps could not be counted from launches
    // Alive as long as the engine: a launch callback may still be in it just after the sink is off.
    LaunchStepCounter m_launchSteps;
    std::uint32_t m_cuptiVersion = 0;
    bool m_clockChanged = false;   // CUPTI's clock jumped away from ours mid-capture
    bool m_callbacksLost = false;  // another tool took CUPTI's buffer callbacks mid-capture
    std::unique_ptr<core::CptraceChunkEncoder> m_encoder;
    core::CaptureMetadata m_metadata;
    std::unique_ptr<PmSampler> m_pm;
    // A PM sampling session stopped but never disabled, for the next capture (CUDA graphs).
    std::unique_ptr<PmSampler> m_pausedPm;
    // Some capture of this process saw a CUDA graph launch: CUPTI is never finalised from then on
    // (no detach, no cuptiPmSamplingDisable), whether or not the current window launches graphs.
    bool m_processLaunchesGraphs = false;
    std::string m_pmProblem;  // why GPU metrics could not be sampled
    core::TimestampNs m_lastChunkNs = 0;
    std::int64_t m_pendingRows = 0;
};

}  // namespace chokepoint::collectors

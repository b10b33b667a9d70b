#include "collectors/agent/CaptureEngine.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "collectors/host/HostSampler.h"

namespace chokepoint::collectors {

namespace {

constexpr core::TimestampNs kNever = std::numeric_limits<core::TimestampNs>::max();

// The engine the CUPTI callbacks deliver to (CUPTI callbacks carry no user data).
std::atomic<CaptureEngine*> g_engine{nullptr};

// Allow-listed API records (guide §3.4): the calls that launch, copy, set or wait. Everything
// else (cudaGetDevice, cuCtxGetCurrent, ...) would multiply the record volume for little value.
const CUpti_CallbackId kRuntimeAllowList[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010,
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000,
};
const CUpti_CallbackId kDriverAllowList[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
    CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
    CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc,
    CUPTI_DRIVER_TRACE_CBID_cuProfilerStart,
    CUPTI_DRIVER_TRACE_CBID_cuProfilerStop,
};

const char* kindName(CUpti_ActivityKind kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            return "CONCURRENT_KERNEL";
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            return "MEMCPY";
        case CUPTI_ACTIVITY_KIND_MEMCPY2:
            return "MEMCPY2";
        case CUPTI_ACTIVITY_KIND_MEMSET:
            return "MEMSET";
        case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
            return "INTERNAL_LAUNCH_API";
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
            return "SYNCHRONIZATION";
        case CUPTI_ACTIVITY_KIND_OVERHEAD:
            return "OVERHEAD";
        case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
            return "GRAPH_TRACE";
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
            return "EXTERNAL_CORRELATION";
        case CUPTI_ACTIVITY_KIND_DEVICE:
            return "DEVICE";
        case CUPTI_ACTIVITY_KIND_RUNTIME:
            return "RUNTIME";
        default:
            return "?";
    }
}

std::int64_t rowCount(const core::TraceModel& m) {
    std::int64_t n = static_cast<std::int64_t>(m.kernels.size() + m.memcpys.size() + m.memsets.size() +
                                               m.apiCalls.size() + m.syncs.size() + m.ranges.size());
    for (const auto& c : m.counters) {
        n += static_cast<std::int64_t>(c.values.size());
    }
    return n;
}

}  // namespace

CaptureEngine::CaptureEngine(CuptiApi& cupti, NvtxRecorder& nvtx, CaptureEngineConfig config)
    : m_cupti(cupti),
      m_nvtx(nvtx),
      m_config(std::move(config)),
      m_pool(m_config.bufferBytes, m_config.maxBuffers),
      m_spill(m_config.spillDirectory, m_config.maxSpillBytes) {}

CaptureEngine::~CaptureEngine() {
    requestStop();
    if (m_worker.joinable()) {
        m_worker.join();
    }
    CaptureEngine* self = this;
    g_engine.compare_exchange_strong(self, nullptr);
}

void CaptureEngine::log(const std::string& text) const {
    if (m_config.log) {
        m_config.log(text);
    }
}

// --- CUPTI callbacks -----------------------------------------------------------------------------

void CUPTIAPI CaptureEngine::onBufferRequested(std::uint8_t** buffer, std::size_t* size,
                                               std::size_t* maxRecords) {
    *maxRecords = 0;  // fill the whole buffer
    CaptureEngine* engine = g_engine.load(std::memory_order_acquire);
    if (engine != nullptr) {
        engine->m_bufferCallbacks.fetch_add(1, std::memory_order_relaxed);
    }
    std::uint8_t* block = engine != nullptr ? engine->m_pool.acquire() : nullptr;
    *buffer = block;  // nullptr: CUPTI drops the records and counts them
    *size = block != nullptr ? engine->m_pool.blockBytes() : 0;
}

void CUPTIAPI CaptureEngine::onBufferCompleted(CUcontext context, std::uint32_t streamId,
                                               std::uint8_t* buffer, std::size_t, std::size_t validSize) {
    CaptureEngine* engine = g_engine.load(std::memory_order_acquire);
    if (engine == nullptr) {
        return;  // nothing of ours can be outstanding without an engine
    }
    engine->m_bufferCallbacks.fetch_add(1, std::memory_order_relaxed);
    std::size_t dropped = 0;
    if (engine->m_cupti.droppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS && dropped > 0) {
        engine->m_cuptiDropped.fetch_add(dropped, std::memory_order_relaxed);
    }
    if (buffer == nullptr) {
        return;
    }
    std::lock_guard lock(engine->m_completedMutex);
    engine->m_completed.push_back({buffer, validSize});
}

std::vector<CaptureEngine::Completed> CaptureEngine::takeCompleted() {
    std::lock_guard lock(m_completedMutex);
    // Copy and clear, keeping the capacity reserved at capture start: the completion callback
    // (possibly on a training thread) then never allocates.
    std::vector<Completed> out(m_completed.begin(), m_completed.end());
    m_completed.clear();
    return out;
}

// --- Control-thread API --------------------------------------------------------------------------

wire::Status CaptureEngine::status() {
    wire::Status s;
    s.pid = m_config.pid;
    for (const auto& arg : m_config.commandLine) {
        s.commandLine.push_back(arg);
    }
    if (m_config.gpuNames) {
        for (const auto& name : m_config.gpuNames()) {
            s.gpuNames.push_back(name);
        }
    }
    s.state = state();
    s.agentVersion = m_config.agentVersion;
    s.hostName = m_config.hostName;
    s.cuptiAvailable = m_config.cuptiAvailable;
    s.stepsSeen = static_cast<std::int64_t>(m_nvtx.stepsSeen());
    std::lock_guard lock(m_mutex);
    s.captureId = m_captureId;
    s.cuptiHolder = m_cuptiHolder;
    return s;
}

std::optional<wire::Error> CaptureEngine::enableCupti(std::uint32_t kinds) {
    auto fail = [&](wire::ErrorCode code, const std::string& text) {
        disableCupti();
        wire::Error e;
        e.code = code;
        e.text = text;
        log("capture refused: " + text);
        return std::optional<wire::Error>(e);
    };
    std::string notLoaded;
    if (!m_cupti.load(&notLoaded)) {
        return fail(wire::ERROR_CODE_CUPTI_FAILED, notLoaded);
    }
    std::uint32_t version = 0;
    CUptiResult r = m_cupti.version(&version);
    if (r != CUPTI_SUCCESS) {
        return fail(wire::ERROR_CODE_CUPTI_FAILED, "cuptiGetVersion failed: " + m_cupti.resultString(r));
    }
    m_cuptiVersion = version;
    if (auto problem = cuptiVersionProblem(version, m_config.allowNewerCupti)) {
        return fail(wire::ERROR_CODE_CUPTI_FAILED, *problem);
    }
    std::string holder;
    r = m_cupti.subscribe("Chokepoint", &holder);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        {
            std::lock_guard lock(m_mutex);
            m_cuptiHolder = holder.empty() ? "another CUPTI client" : holder;
        }
        std::string who = holder.empty() ? "another CUPTI client" : "'" + holder + "'";
        return fail(wire::ERROR_CODE_CUPTI_BUSY,
                    "CUPTI is held by " + who +
                        ". Only one CUPTI subscriber is allowed per process with this CUDA version. If it is "
                        "the PyTorch profiler (Kineto), end the torch.profiler session and start the job "
                        "with TEARDOWN_CUPTI=1 so Kineto releases CUPTI after each session (and unset "
                        "KINETO_USE_DAEMON); if it is Nsight Systems or Nsight Compute, run the job without "
                        "it.");
    }
    if (r != CUPTI_SUCCESS) {
        return fail(wire::ERROR_CODE_CUPTI_FAILED, "cuptiSubscribe_v2 failed: " + m_cupti.resultString(r));
    }
    m_subscribed = true;
    {
        std::lock_guard lock(m_mutex);
        m_cuptiHolder.clear();
    }
    // "Thread id type must not be changed during the profiling session" (cupti_activity.h): set
    // SYSTEM (gettid, as NVTX and /proc use) once, before any kind is enabled, and keep it.
    if (!m_threadIdTypeSet) {
        r = m_cupti.setThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM, nullptr);
        if (r != CUPTI_SUCCESS) {
            return fail(wire::ERROR_CODE_CUPTI_FAILED,
                        "cuptiSetThreadIdType failed: " + m_cupti.resultString(r));
        }
        m_threadIdTypeSet = true;
    }
    // Our pool hands out zeroed buffers; without this CUPTI zeroes each one again on the thread
    // that asked for it, a training thread (cupti_activity.h, ZEROED_OUT_ACTIVITY_BUFFER).
    r = m_cupti.setZeroedBuffers(true);
    if (r != CUPTI_SUCCESS) {
        log("cuptiActivitySetAttribute(ZEROED_OUT_ACTIVITY_BUFFER) failed: " + m_cupti.resultString(r));
    }
    // Registered at every capture: the registration is process-global and another client may have
    // replaced ours since the last capture.
    g_engine.store(this, std::memory_order_release);
    r = m_cupti.registerCallbacks(&CaptureEngine::onBufferRequested, &CaptureEngine::onBufferCompleted);
    if (r != CUPTI_SUCCESS) {
        return fail(wire::ERROR_CODE_CUPTI_FAILED,
                    "cuptiActivityRegisterCallbacks failed: " + m_cupti.resultString(r));
    }
    std::vector<CUpti_ActivityKind> wanted;
    if ((kinds & wire::CAPTURE_KIND_KERNELS) != 0) {
        wanted.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);  // never KIND_KERNEL: it serialises
    }
    if ((kinds & wire::CAPTURE_KIND_MEMORY) != 0) {
        wanted.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
        wanted.push_back(CUPTI_ACTIVITY_KIND_MEMCPY2);
        wanted.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
    }
    if ((kinds & wire::CAPTURE_KIND_API) != 0) {
        wanted.push_back(CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API);
    }
    if ((kinds & wire::CAPTURE_KIND_SYNC) != 0) {
        // By default CUPTI also reports every cudaEventQuery/cudaStreamQuery here (cupti_activity.h,
        // cuptiActivityEnableAllSyncRecords); PyTorch polls constantly. Completed waits only.
        r = m_cupti.enableAllSyncRecords(false);
        if (r != CUPTI_SUCCESS) {
            return fail(wire::ERROR_CODE_CUPTI_FAILED,
                        "cuptiActivityEnableAllSyncRecords failed: " + m_cupti.resultString(r));
        }
        wanted.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    }
    if ((kinds & wire::CAPTURE_KIND_GRAPHS) != 0) {
        wanted.push_back(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    }
    if ((kinds & wire::CAPTURE_KIND_OVERHEAD) != 0) {
        wanted.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);
    }
    wanted.push_back(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    for (CUpti_ActivityKind kind : wanted) {
        r = m_cupti.enable(kind);
        if (r != CUPTI_SUCCESS) {
            return fail(wire::ERROR_CODE_CUPTI_FAILED, std::string("cuptiActivityEnable(") + kindName(kind) +
                                                           ") failed: " + m_cupti.resultString(r));
        }
        m_enabledKinds.push_back(kind);
    }
    // The allow-listed API records are needed whenever GPU records are: GPU records are windowed
    // by the start of the call that launched them, and SYNCHRONIZATION records are kept only when
    // they belong to a *Synchronize/WaitEvent call. API rows reach the trace only with KIND_API.
    m_apiAllowListOn = true;
    if (m_config.runtimeApiTracing == RuntimeApiTracing::KindMinusOthers) {
        // Per-call enables alone (cuptiActivityEnableRuntimeApi) give no runtime records when CUPTI
        // starts after the CUDA runtime is up: on an H100 every attach capture lacked every
        // cudaLaunchKernel record while run captures (CUPTI on from cuInit) had them all. The
        // documented alternative works at any time: enable the RUNTIME kind, then switch off
        // every runtime call outside the allow-list (cupti_activity.h, cuptiActivityEnableRuntimeApi).
        r = m_cupti.enable(CUPTI_ACTIVITY_KIND_RUNTIME);
        if (r != CUPTI_SUCCESS) {
            return fail(wire::ERROR_CODE_CUPTI_FAILED,
                        "cuptiActivityEnable(RUNTIME) failed: " + m_cupti.resultString(r));
        }
        m_enabledKinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
        for (CUpti_CallbackId cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
            if (std::find(std::begin(kRuntimeAllowList), std::end(kRuntimeAllowList), cbid) ==
                std::end(kRuntimeAllowList)) {
                m_cupti.enableRuntimeApi(cbid, false);
            }
        }
    }
    for (CUpti_CallbackId cbid : kRuntimeAllowList) {
        r = m_cupti.enableRuntimeApi(cbid, true);
        if (r != CUPTI_SUCCESS) {
            return fail(wire::ERROR_CODE_CUPTI_FAILED,
                        "cuptiActivityEnableRuntimeApi failed: " + m_cupti.resultString(r));
        }
    }
    for (CUpti_CallbackId cbid : kDriverAllowList) {
        r = m_cupti.enableDriverApi(cbid, true);
        if (r != CUPTI_SUCCESS) {
            return fail(wire::ERROR_CODE_CUPTI_FAILED,
                        "cuptiActivityEnableDriverApi failed: " + m_cupti.resultString(r));
        }
    }
    m_wantDeviceDump = true;  // on the worker
    return std::nullopt;
}

void CaptureEngine::setApiAllowList(bool on) {
    if (!m_apiAllowListOn && on == false) {
        return;
    }
    for (CUpti_CallbackId cbid : kRuntimeAllowList) {
        m_cupti.enableRuntimeApi(cbid, on);
    }
    for (CUpti_CallbackId cbid : kDriverAllowList) {
        m_cupti.enableDriverApi(cbid, on);
    }
    m_apiAllowListOn = on;
}

std::optional<std::string> cuptiVersionProblem(std::uint32_t version, bool allowNewer) {
    // CUPTI_API_VERSION is MMmmuu (cupti_version.h): 130001 is CUDA 13.0 Update 1.
    if (version < 130001) {
        return "the process loaded CUPTI API version " + std::to_string(version) +
               " (older than CUDA 13.0 Update 1, 130001), which can deadlock in cuptiActivityDisable and "
               "crash in cuptiActivityFlushAll (fixed in 13.0 Update 1, CUPTI release notes); install "
               "CUPTI 13.0 Update 1 or newer (pip install -U nvidia-cuda-cupti) or point "
               "CHOKEPOINT_CUPTI_PATH at one";
    }
    if (version / 100 > CUPTI_API_VERSION / 100 && !allowNewer) {
        return "the process loaded CUPTI API version " + std::to_string(version) +
               " but the agent was built for " + std::to_string(CUPTI_API_VERSION) +
               "; newer 13.x releases changed activity record layouts (13.1 Kernel11, 13.2 Device6), which "
               "this "
               "agent does not decode. Rebuild the agent against this CUPTI, or set "
               "CHOKEPOINT_ALLOW_NEWER_CUPTI=1 to record anyway (the trace notes say its layouts are "
               "unverified)";
    }
    return std::nullopt;
}

void CaptureEngine::disableCupti(bool processUsesGraphs) {
    for (CUpti_ActivityKind kind : m_enabledKinds) {
        CUptiResult r = m_cupti.disable(kind);
        if (r != CUPTI_SUCCESS) {
            log(std::string("cuptiActivityDisable(") + kindName(kind) +
                ") failed: " + m_cupti.resultString(r));
        }
    }
    setApiAllowList(false);
    m_enabledKinds.clear();
    if (m_subscribed && m_config.detachAfterCapture && processUsesGraphs) {
        log("CUPTI not detached: this process launches CUDA graphs, and detaching after a capture crashed "
            "such a job on an H100 (unspecified launch failure)");
    } else if (m_subscribed && m_config.detachAfterCapture) {
        // The job returns to its pre-capture speed only once CUPTI is detached (its callbacks and
        // instrumentation stay otherwise); everything is registered again at the next capture.
        CUptiResult r = m_cupti.detach(m_config.detachTimeoutMs);
        if (r == CUPTI_SUCCESS) {
            m_subscribed = false;
            m_threadIdTypeSet = false;  // a fresh CUPTI session: set again before any kind
            log("CUPTI detached after the capture");
        } else {
            log("CUPTI detach did not happen: " + m_cupti.resultString(r));
        }
    }
    if (m_subscribed) {
        CUptiResult r = m_cupti.unsubscribe();
        if (r != CUPTI_SUCCESS) {
            log("cuptiUnsubscribe failed: " + m_cupti.resultString(r));
        }
        m_subscribed = false;
    }
}

std::optional<wire::Error> CaptureEngine::startCapture(const wire::StartCapture& request,
                                                       std::uint64_t captureId) {
    wire::Error busy;
    if (state() != wire::AGENT_STATE_DORMANT) {
        busy.code = wire::ERROR_CODE_BUSY;
        busy.text = "a capture is already running";
        return busy;
    }
    if (m_worker.joinable()) {
        m_worker.join();  // the previous capture's worker has finished
    }
    // Requests come from another process: bound what they can ask for.
    constexpr std::uint64_t kMaxDurationMs = 7ull * 24 * 3600 * 1000;
    constexpr std::uint32_t kMaxSteps = 1000000;
    if (request.durationMs > kMaxDurationMs || request.steps > kMaxSteps || request.stepMarker.size() > 63 ||
        request.delayMs > kMaxDurationMs || request.afterSteps > NvtxRecorder::kMaxStepTimes - 1) {
        busy.code = wire::ERROR_CODE_MALFORMED;
        busy.text =
            "capture window out of range: at most 7 days, 1,000,000 steps, a 63-byte step marker, a 7-day "
            "delay and 4,095 steps to wait";
        return busy;
    }
    // --delay / --after-steps: the agent stays dormant (CUPTI untouched) until then, as for a
    // later attach, so start-up (imports, compilation, autotuning) runs at full speed.
    const bool deferred = request.delayMs > 0 || request.afterSteps > 0;
    std::uint32_t kinds = request.kinds != 0 ? request.kinds : kDefaultCaptureKinds;
    constexpr std::uint32_t kCuptiKinds = wire::CAPTURE_KIND_KERNELS | wire::CAPTURE_KIND_MEMORY |
                                          wire::CAPTURE_KIND_API | wire::CAPTURE_KIND_SYNC |
                                          wire::CAPTURE_KIND_GRAPHS | wire::CAPTURE_KIND_OVERHEAD;
    if ((kinds & (kCuptiKinds | wire::CAPTURE_KIND_GPU_METRICS)) != 0 && !m_config.cuptiAvailable) {
        busy.code = wire::ERROR_CODE_CUPTI_FAILED;
        busy.text = "CUPTI is not usable in this process; ask for NVTX and host kinds only";
        return busy;
    }
    m_enabledKinds.clear();
    m_wantDeviceDump = false;
    m_clockChanged = false;
    m_callbacksLost = false;
    // Buffers are allocated and zeroed here and on the worker, never on a training thread.
    m_pool.resetCounters();
    m_pool.topUp(m_config.spareBuffers);
    {
        std::lock_guard lock(m_completedMutex);
        m_completed.reserve(m_config.maxBuffers + 1);
    }
    m_deferredCuptiKinds = deferred ? kinds & kCuptiKinds : 0;
    if ((kinds & kCuptiKinds) != 0 && !deferred) {
        if (auto refused = enableCupti(kinds & kCuptiKinds)) {
            return refused;
        }
    }
    // GPU metrics are best effort, and start on the worker (see startWorkerSideSources).
    m_pm.reset();
    m_pmProblem.clear();
    m_wantPm = (kinds & wire::CAPTURE_KIND_GPU_METRICS) != 0;
    {
        std::lock_guard lock(m_mutex);
        m_request = request;
        m_request.kinds = kinds;
        m_captureId = captureId;
        m_startNs = monotonicNowNs();  // the window opens now, not when the worker gets scheduled
        m_stopRequested = false;
        m_finished = false;
        m_done = {};
        m_queue.clear();
        m_queuedBytes = 0;
        m_spill.abandon();  // what an earlier client left unread
        m_spillLostChunks = 0;
        m_spillRefusedLogged = false;
        m_peakQueuedBytes = 0;
        m_seq = 0;
    }
    m_cuptiDropped.store(0);
    m_clock.clear();
    takeAnchor();
    std::vector<std::string> markers = m_config.defaultStepMarkers;
    if (!request.stepMarker.empty()) {
        markers = {request.stepMarker};
    }
    m_nvtx.setMode(NvtxMode::Idle);
    m_nvtx.setStepMarkers(markers);
    m_nvtx.resetSteps();
    m_nvtx.clear();
    bool needSteps = request.steps > 0 || request.startAtNextStep || request.afterSteps > 0;
    if ((kinds & wire::CAPTURE_KIND_NVTX) != 0) {
        m_nvtx.setMode(NvtxMode::Recording);
    } else if (needSteps) {
        m_nvtx.setMode(NvtxMode::Armed);
    }
    m_state.store(request.startAtNextStep || deferred ? wire::AGENT_STATE_ARMED
                                                      : wire::AGENT_STATE_CAPTURING);
    m_worker = std::thread([this] { run(); });
    return std::nullopt;
}

void CaptureEngine::requestStop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopRequested = true;
    }
    m_cv.notify_all();
}

bool CaptureEngine::pollCapture(std::vector<wire::Chunk>& out, wire::CaptureDone* done) {
    // Read back at most this much from disk per poll, so one call never holds the lock long.
    constexpr std::size_t kSpillReadPerPoll = 16u << 20;
    std::lock_guard lock(m_mutex);
    std::size_t spillRead = 0;
    while (!m_queue.empty()) {
        if (m_queue.front()) {
            m_queuedBytes -= m_queue.front()->data.size();
            out.push_back(std::move(*m_queue.front()));
            m_queue.pop_front();
            continue;
        }
        if (spillRead >= kSpillReadPerPoll) {
            return false;  // the rest at the next poll
        }
        std::vector<wire::Chunk> one;
        if (!m_spill.pop(one, 0) || one.empty()) {
            // The file could not be read back: those chunks are lost; say so in the end message.
            const auto lost = std::count_if(m_queue.begin(), m_queue.end(), [](const auto& q) { return !q; });
            m_spillLostChunks += static_cast<std::uint64_t>(lost);
            log("capture: " + m_spill.error() + "; " + std::to_string(lost) + " chunks lost");
            m_queue.erase(std::remove_if(m_queue.begin(), m_queue.end(), [](const auto& q) { return !q; }),
                          m_queue.end());
            continue;
        }
        spillRead += one.front().data.size();
        out.push_back(std::move(one.front()));
        m_queue.pop_front();
    }
    if (!m_finished) {
        return false;
    }
    if (m_spillLostChunks > 0) {
        m_done.ok = false;
        m_done.message =
            m_done.message + "; " + std::to_string(m_spillLostChunks) +
            " chunks were lost reading them back from the spill file, so the trace is incomplete";
    }
    *done = m_done;
    m_finished = false;
    m_state.store(wire::AGENT_STATE_DORMANT);
    return true;
}

void CaptureEngine::setChunkSink(std::function<bool(std::string_view)> sink, std::function<void()> ended) {
    std::lock_guard lock(m_mutex);
    m_sink = std::move(sink);
    m_sinkEnded = std::move(ended);
}

void CaptureEngine::requestStopForExit() {
    {
        std::lock_guard lock(m_mutex);
        m_stopRequested = true;
        m_exitDrain = true;
    }
    m_cv.notify_all();
}

void CaptureEngine::startWorkerSideSources() {
    // In file mode startCapture runs inside cuInit (InitializeInjection), where the driver is not
    // initialised yet on that thread: the profiler/PM sampling APIs and the DEVICE dump wait for
    // the worker's first tick, after cuInit has returned.
    if (m_wantDeviceDump) {
        m_wantDeviceDump = false;
        if (m_cupti.enableAndDump(CUPTI_ACTIVITY_KIND_DEVICE) == CUPTI_SUCCESS) {
            m_enabledKinds.push_back(CUPTI_ACTIVITY_KIND_DEVICE);
        }
    }
    if (m_wantPm) {
        PmSampler::Options pmOptions;
        pmOptions.deviceIndex = m_config.pmDeviceIndex;
        if (pmOptions.deviceIndex < 0) {
            const char* localRank = std::getenv("LOCAL_RANK");
            const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
            bool oneVisible = visible != nullptr && std::strchr(visible, ',') == nullptr && *visible != '\0';
            pmOptions.deviceIndex = (localRank != nullptr && !oneVisible) ? std::atoi(localRank) : 0;
        }
        if (!m_config.pmReady(pmOptions.deviceIndex)) {
            m_pmProblem = "the job created no CUDA context on GPU " + std::to_string(pmOptions.deviceIndex) +
                          " before the capture ended, so PM sampling never started";
            return;  // asked again at the next tick
        }
        m_wantPm = false;
        m_pmProblem.clear();
        auto pm = std::make_unique<PmSampler>();
        core::Status started = pm->start(pmOptions);
        if (started.ok()) {
            for (const std::string& dropped : pm->droppedMetrics()) {
                log("GPU metric left out: " + dropped);
            }
            for (const std::string& note : pm->notes()) {
                log("GPU metrics: " + note);
            }
            m_pm = std::move(pm);
        } else {
            m_pmProblem = started.error().message;
            log("GPU metrics unavailable: " + m_pmProblem);
        }
    }
}

bool CaptureEngine::waitIdle(int timeoutMs) {
    std::unique_lock lock(m_mutex);
    return m_cv.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                         [this] { return state() == wire::AGENT_STATE_DORMANT; });
}

void CaptureEngine::abandonAfterFork() {
    if (m_worker.joinable()) {
        m_worker.detach();  // the thread does not exist in the child
    }
    // Another thread (worker, control thread, a CUPTI completion) may have been changing these at
    // the fork: never destroy or clear them here; construct empty ones over them and leak the old.
    new (&m_mutex) std::mutex();
    new (&m_completedMutex) std::mutex();
    new (&m_cv) std::condition_variable();
    new (&m_completed) std::vector<Completed>();
    new (&m_queue) std::deque<std::optional<wire::Chunk>>();
    m_queuedBytes = 0;
    m_spill.forgetAfterFork();
    new (&m_enabledKinds) std::vector<CUpti_ActivityKind>();
    new (&m_sink) std::function<bool(std::string_view)>();
    new (&m_sinkEnded) std::function<void()>();
    new (&m_pm) std::unique_ptr<PmSampler>();  // the parent's sampler: never touched here
    m_wantPm = false;
    m_wantDeviceDump = false;
    m_subscribed = false;  // the child must never touch the parent's CUPTI state
    m_config.cuptiAvailable = false;
    m_state.store(wire::AGENT_STATE_DORMANT);
    g_engine.store(nullptr);
}

// --- Worker ----------------------------------------------------------------------------------------

void CaptureEngine::takeAnchor() {
    // Only a capture that uses CUPTI reads its clock: a host-only capture must not initialise
    // CUPTI through cuptiGetTimestamp.
    const bool useCupti = m_config.cuptiAvailable && m_subscribed;
    ClockAnchor anchor = collectors::takeAnchor([this, useCupti] {
        std::uint64_t t = 0;
        if (!useCupti || m_cupti.timestamp(&t) != CUPTI_SUCCESS) {
            // Without CUPTI there are no CUPTI timestamps to map; CUPTI's default clock is REALTIME.
            return static_cast<std::uint64_t>(realtimeNowNs());
        }
        return t;
    });
    if (!m_clock.empty() && clockJumped(m_clock.anchors().back(), anchor)) {
        m_clockChanged = true;
    }
    m_clock.addAnchor(anchor);
}

bool clockJumped(const ClockAnchor& before, const ClockAnchor& after) {
    // Another tool's timestamp callback (Kineto registers a TSC one per session) moves CUPTI's clock
    // to another domain. A clock step of REALTIME (NTP) moves cupti - real by 0 when CUPTI uses
    // REALTIME, and cupti - mono by 0 when it uses a steady clock: only a change of domain moves both.
    constexpr std::int64_t kJumpNs = 10 * core::kNsPerMs;
    std::int64_t dReal = (after.cuptiNs - after.realNs) - (before.cuptiNs - before.realNs);
    std::int64_t dMono = (after.cuptiNs - after.monoNs) - (before.cuptiNs - before.monoNs);
    return std::abs(dReal) > kJumpNs && std::abs(dMono) > kJumpNs;
}

void CaptureEngine::emit(std::string bytes, std::int64_t records) {
    std::function<bool(std::string_view)> sink;
    {
        std::lock_guard lock(m_mutex);
        sink = m_sink;
        if (!sink) {
            wire::Chunk chunk;
            chunk.captureId = m_captureId;
            chunk.seq = m_seq++;
            chunk.records = records;
            const std::size_t size = bytes.size();
            chunk.data = std::move(bytes);
            // Past the memory share, or behind chunks already on disk (the order must hold), the
            // chunk waits on disk. When the disk refuses, it stays in memory, and the backlog check
            // pauses decoding once too much waits there.
            const bool toDisk = m_queuedBytes + size > m_config.memoryChunkBytes || !m_spill.empty();
            if (toDisk && m_spill.push(chunk)) {
                m_queue.emplace_back(std::nullopt);
                return;
            }
            if (toDisk && !m_spillRefusedLogged) {
                log("capture: chunks stay in memory: " + m_spill.error());
                m_spillRefusedLogged = true;
            }
            m_queuedBytes += size;
            m_peakQueuedBytes = std::max(m_peakQueuedBytes, m_queuedBytes);
            m_queue.emplace_back(std::move(chunk));
            return;
        }
    }
    if (!sink(bytes)) {
        log("capture: the output sink failed; stopping");
        requestStop();
    }
}

void CaptureEngine::fillBatchContext(core::TraceModel& batch) {
    batch.metadata = m_metadata;
    if (!m_config.commandLine.empty() && batch.processes.empty()) {
        std::string name;
        for (const auto& arg : m_config.commandLine) {
            name += (name.empty() ? "" : " ") + arg;
        }
        batch.processes.push_back({m_config.pid, name});
    }
}

void CaptureEngine::noteMetaMarks(const core::TraceModel& batch) {
    // The Python helper publishes facts as NVTX marks "chokepoint:meta key=value key=value".
    for (std::size_t i = 0; i < batch.ranges.size(); ++i) {
        noteMetaText(batch.text(batch.ranges.name[i]));
    }
}

void CaptureEngine::noteMetaText(std::string_view name) {
    constexpr std::string_view kPrefix = "chokepoint:meta ";
    if (name.substr(0, kPrefix.size()) != kPrefix) {
        return;
    }
    std::string_view rest = name.substr(kPrefix.size());
    while (!rest.empty()) {
        std::size_t space = rest.find(' ');
        std::string_view pair = rest.substr(0, space);
        std::size_t eq = pair.find('=');
        if (eq != std::string_view::npos && eq > 0) {
            std::string key = "model." + std::string(pair.substr(0, eq));
            std::string value(pair.substr(eq + 1));
            auto it = std::find_if(m_metadata.notes.begin(), m_metadata.notes.end(),
                                   [&](const auto& kv) { return kv.first == key; });
            if (it == m_metadata.notes.end()) {
                m_metadata.notes.emplace_back(key, value);
            } else {
                it->second = value;
            }
        }
        rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
    }
}

void CaptureEngine::encodeBatch(core::TraceModel& batch, bool force) {
    std::int64_t rows = rowCount(batch);
    core::TimestampNs now = monotonicNowNs();
    m_pendingRows += rows;
    if (!force && rows == 0) {
        return;
    }
    noteMetaMarks(batch);
    // Facts published while the window was not open yet (run --at-step, --delay, --after-steps:
    // the helper publishes before the first step) are only in the recorder's table.
    for (const std::string& mark : m_nvtx.metaMarks()) {
        noteMetaText(mark);
    }
    fillBatchContext(batch);
    emit(m_encoder->encodeChunk(batch), rows);
    m_lastChunkNs = now;
    m_pendingRows = 0;
}

void CaptureEngine::run() {
    wire::StartCapture request;
    std::uint64_t captureId = 0;
    core::TimestampNs startedNs = 0;
    {
        std::lock_guard lock(m_mutex);
        request = m_request;
        captureId = m_captureId;
        startedNs = m_startNs;
    }
    const std::uint32_t kinds = request.kinds;
    const bool deferred = request.delayMs > 0 || request.afterSteps > 0;
    core::TimestampNs windowStart = request.startAtNextStep || deferred ? kNever : startedNs;
    bool waitingToStart = deferred;
    std::uint64_t armBase = 0;  // step markers seen before the window could open
    core::TimestampNs windowEnd = kNever;
    std::uint64_t stepBase = 0;  // step markers counted before the window opened
    std::string endReason = "stopped by request";

    core::CptraceEncoderOptions encoderOptions;
    encoderOptions.compress = m_config.compressChunks;
    m_encoder = std::make_unique<core::CptraceChunkEncoder>(encoderOptions);
    m_metadata = core::CaptureMetadata{};
    m_metadata.sourceFormat = "cptrace";
    m_metadata.producer = "chokepoint-agent " + m_config.agentVersion;
    m_metadata.hostName = m_config.hostName;
    m_metadata.captureStartUnixNs = m_clock.realtimeOfMonotonicZero();
    m_metadata.notes.emplace_back("capture.id", std::to_string(captureId));
    m_metadata.notes.emplace_back("capture.clock", "CLOCK_MONOTONIC");
    m_metadata.notes.emplace_back("capture.kinds", std::to_string(kinds));
    {
        // The analysis reads steps from the same prefixes the window used (--marker included).
        std::string markers;
        for (const std::string& marker : request.stepMarker.empty()
                                             ? m_config.defaultStepMarkers
                                             : std::vector<std::string>{request.stepMarker}) {
            markers += (markers.empty() ? "" : "|") + marker;
        }
        m_metadata.notes.emplace_back(std::string(names::kStepMarkersNote), markers);
    }
    if (!m_enabledKinds.empty()) {
        m_metadata.notes.emplace_back("capture.runtime_api_tracing",
                                      m_config.runtimeApiTracing == RuntimeApiTracing::KindMinusOthers
                                          ? "runtime kind minus calls outside the allow-list"
                                          : "allow-list only");
    }
    if (request.steps > 0) {
        m_metadata.notes.emplace_back("capture.steps_requested", std::to_string(request.steps));
    }
    if (request.durationMs > 0) {
        m_metadata.notes.emplace_back("capture.duration_ms_requested", std::to_string(request.durationMs));
    }
    if (m_cuptiVersion != 0 && m_subscribed) {
        m_metadata.notes.emplace_back("capture.cupti_version", std::to_string(m_cuptiVersion));
        if (std::string library = m_cupti.libraryPath(); !library.empty()) {
            m_metadata.notes.emplace_back("capture.cupti_library", library);
        }
        if (m_cuptiVersion / 100 > CUPTI_API_VERSION / 100) {
            m_metadata.notes.emplace_back("capture.cupti_layout_unverified",
                                          "CUPTI " + std::to_string(m_cuptiVersion) + " is newer than the " +
                                              std::to_string(CUPTI_API_VERSION) +
                                              " this agent was built for");
        }
    }
    // Model facts published before this capture started (launch, then attach).
    for (const std::string& mark : m_nvtx.metaMarks()) {
        noteMetaText(mark);
    }
    emit(m_encoder->encodeHeader(), 0);

    ActivityDecoder decoder(m_clock);
    decoder.setEmitApiRows((kinds & wire::CAPTURE_KIND_API) != 0);
    std::unique_ptr<HostSampler> host;
    if ((kinds & wire::CAPTURE_KIND_HOST) != 0) {
        HostSampler::Options o;
        o.rootPid = static_cast<pid_t>(m_config.pid);
        o.hz = request.hostSampleHz == 0 ? 50
                                         : std::clamp<int>(static_cast<int>(request.hostSampleHz), 20, 1000);
        host = std::make_unique<HostSampler>(o);
        host->start();
    }
    bool useCupti = !m_enabledKinds.empty();
    core::TimestampNs lastFlush = startedNs, lastAnchor = startedNs;
    const core::TimestampNs delayNs = static_cast<core::TimestampNs>(request.delayMs) * core::kNsPerMs;
    m_lastChunkNs = startedNs;
    m_pendingRows = 0;
    auto batch = std::make_unique<core::TraceModel>();

    auto updateWindow = [&] {
        if (windowStart == kNever && !waitingToStart && m_nvtx.stepsSeen() >= armBase + 1) {
            windowStart = m_nvtx.stepTimeNs(armBase + 1);
            stepBase = armBase + 1;
            m_state.store(wire::AGENT_STATE_CAPTURING);
        }
        if (windowStart != kNever && request.steps > 0 && windowEnd == kNever) {
            // Aligned windows end at the marker that opens step N+1; immediate windows after N markers.
            std::uint64_t endMarker = stepBase + request.steps;
            core::TimestampNs t = m_nvtx.stepTimeNs(endMarker);
            if (t >= 0) {
                windowEnd = t;
                endReason = std::to_string(request.steps) + " steps recorded";
            }
        }
        if (windowStart != kNever && request.durationMs > 0) {
            core::TimestampNs t =
                windowStart + static_cast<core::TimestampNs>(request.durationMs) * core::kNsPerMs;
            if (t < windowEnd) {
                windowEnd = t;
                endReason = std::to_string(request.durationMs) + " ms recorded";
            }
        }
    };

    auto collect = [&](core::TraceModel& into) {
        std::vector<Completed> completed = takeCompleted();
        updateWindow();  // after taking buffers: their records completed before this check (no race)
        decoder.setWindow(windowStart, windowEnd);
        std::vector<ActivityDecoder::Buffer> buffers;
        buffers.reserve(completed.size());
        for (const Completed& c : completed) {
            buffers.push_back({c.buffer, c.validBytes});
        }
        decoder.decodePass(buffers, into);
        for (const Completed& c : completed) {
            m_pool.release(c.buffer);
        }
        m_pool.topUp(m_config.spareBuffers);
        if ((kinds & wire::CAPTURE_KIND_NVTX) != 0) {
            m_nvtx.drainInto(into, -1, windowStart, windowEnd);
        }
        if (host) {
            host->drainInto(into, windowStart);
        }
        if (m_pm) {
            m_pm->decodeInto(into, m_clock, windowStart, windowEnd);
        }
    };

    if (!waitingToStart) {
        startWorkerSideSources();
        if (m_config.onRecording) {
            m_config.onRecording(true);
        }
    }
    // Stolen buffer callbacks (another tool's cuptiActivityRegisterCallbacks): ours stop being
    // called although the job goes on stepping, so the GPU is busy and records must exist.
    std::uint64_t callbacksSeen = m_bufferCallbacks.load();
    core::TimestampNs callbacksChangedNs = startedNs;
    std::uint64_t stepsWhenChanged = m_nvtx.stepsSeen();
    bool callbacksFlowed = false;
    for (;;) {
        core::TimestampNs now = monotonicNowNs();
        if (useCupti) {
            std::uint64_t seen = m_bufferCallbacks.load();
            if (seen != callbacksSeen) {
                callbacksFlowed = true;
                callbacksSeen = seen;
                callbacksChangedNs = now;
                stepsWhenChanged = m_nvtx.stepsSeen();
            } else if (callbacksFlowed &&
                       now - callbacksChangedNs >= m_config.callbackSilenceMs * core::kNsPerMs &&
                       m_nvtx.stepsSeen() >= stepsWhenChanged + 2) {
                m_callbacksLost = true;
            }
        }
        if (waitingToStart) {
            const bool due = request.afterSteps > 0
                                 ? m_nvtx.stepsSeen() >= request.afterSteps && now >= startedNs + delayNs
                                 : now >= startedNs + delayNs;
            if (due) {
                waitingToStart = false;
                if (m_deferredCuptiKinds != 0) {
                    if (auto refused = enableCupti(m_deferredCuptiKinds)) {
                        endReason = "the capture could not start: " + refused->text;
                        break;
                    }
                    useCupti = !m_enabledKinds.empty();
                    takeAnchor();  // CUPTI's clock, now that it is in use
                    callbacksChangedNs = now;
                }
                armBase = m_nvtx.stepsSeen();
                if (m_config.onRecording) {
                    m_config.onRecording(true);
                }
                if (request.afterSteps == 0 && !request.startAtNextStep) {
                    windowStart = monotonicNowNs();  // --delay: the window opens now
                    stepBase = armBase;
                    m_state.store(wire::AGENT_STATE_CAPTURING);
                }  // else at the next step marker (updateWindow)
                startWorkerSideSources();
            }
        }
        if (m_wantPm && !waitingToStart) {
            startWorkerSideSources();  // PM sampling waits for the job's CUDA context
        }
        if (useCupti && now - lastFlush >= m_config.flushIntervalMs * core::kNsPerMs) {
            m_cupti.flushAll(0);  // completed buffers only; never synchronises the GPU
            lastFlush = now;
        }
        if (now - lastAnchor >= m_config.anchorIntervalMs * core::kNsPerMs) {
            takeAnchor();
            lastAnchor = now;
        }
        bool backlog = false;
        {
            std::lock_guard lock(m_mutex);
            backlog = m_queuedBytes > m_config.maxQueuedChunkBytes;
        }
        if (!backlog) {
            collect(*batch);
            if (rowCount(*batch) > 200000 ||
                (rowCount(*batch) > 0 && now - m_lastChunkNs >= m_config.chunkIntervalMs * core::kNsPerMs)) {
                encodeBatch(*batch, false);
                batch = std::make_unique<core::TraceModel>();
            }
        }
        bool stop = false;
        {
            std::unique_lock lock(m_mutex);
            stop = m_stopRequested;
        }
        if (windowEnd != kNever && monotonicNowNs() >= windowEnd) {
            stop = true;
        }
        if (m_callbacksLost) {
            endReason =
                "CUPTI stopped handing its records to Chokepoint while the job kept stepping: another "
                "tool (for example torch.profiler) registered its own CUPTI buffer callbacks, so the "
                "capture ended there";
            stop = true;
        }
        if (m_clockChanged) {
            endReason =
                "another tool changed CUPTI's clock during the capture (for example torch.profiler "
                "registering its own timestamp callback); GPU times after that point could not be "
                "placed, so the capture ended there";
            stop = true;
        }
        if (stop) {
            break;
        }
        std::unique_lock lock(m_mutex);
        m_cv.wait_for(lock, std::chrono::milliseconds(m_config.loopIntervalMs),
                      [this] { return m_stopRequested; });
    }

    // --- Draining ---
    m_state.store(wire::AGENT_STATE_DRAINING);
    if (m_config.onRecording) {
        m_config.onRecording(false);
    }
    core::TimestampNs stopNs = monotonicNowNs();
    if (windowEnd == kNever) {
        windowEnd = stopNs;
    }
    if (windowStart == kNever && waitingToStart) {
        endReason = request.afterSteps > 0
                        ? "stopped after " + std::to_string(m_nvtx.stepsSeen()) + " of the " +
                              std::to_string(request.afterSteps) + " steps to wait, so nothing was recorded"
                        : "stopped before the delay had passed, so nothing was recorded";
    } else if (windowStart == kNever && endReason.rfind("the capture could not start", 0) != 0) {
        endReason = "no step marker was seen, so the window never opened (stopped before the first step)";
    }
    if ((kinds & wire::CAPTURE_KIND_NVTX) == 0) {
        m_nvtx.setMode(NvtxMode::Idle);
    }
    std::int64_t missingGpuRecords = 0;
    if (useCupti) {
        // GPU work launched inside the window may still be queued or running. Tracing stays on
        // while the drain waits for it (on an H100, switching the kinds off first ended windows
        // with up to 428 records counted as still running although steps took 66 ms and the drain
        // allowed 2 s: ../shared/traces/h100, docs/COLLECTORS.md). Flush (without forcing)
        // until every in-window launch has its GPU record and, when the count cannot tell (GPU
        // records without their launch; graph launches, whose many kernels share one correlation
        // id), until the GPU has run work launched after the window; bounded by the drain time.
        // Records of work launched after the window are left out by the decoder.
        bool exitDrain = false;
        {
            std::lock_guard lock(m_mutex);
            exitDrain = m_exitDrain;
        }
        const int drainMs = exitDrain ? m_config.exitDrainTimeoutMs : m_config.drainTimeoutMs;
        core::TimestampNs deadline = stopNs + drainMs * core::kNsPerMs;
        for (;;) {
            m_cupti.flushAll(0);
            collect(*batch);
            const bool launchesDone = decoder.outstandingLaunches() == 0;
            const bool countTells = decoder.counts().gpuWithoutLaunch == 0 && !decoder.graphLaunchInWindow();
            const bool gpuCaughtUp = countTells || decoder.gpuPastWindowEnd();
            if ((launchesDone && gpuCaughtUp) || monotonicNowNs() >= deadline) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(m_config.loopIntervalMs, 20)));
        }
        // Then the kinds and the API allow-list go off together, and a forced flush returns the
        // rest (work still running then comes back with end = 0 and is counted).
        for (CUpti_ActivityKind kind : m_enabledKinds) {
            m_cupti.disable(kind);
        }
        setApiAllowList(false);
        decoder.setForcedFlush(true);
        m_cupti.flushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
    m_nvtx.setMode(NvtxMode::Idle);
    if (host) {
        host->stop();
    }
    takeAnchor();
    collect(*batch);
    decoder.finish();
    missingGpuRecords = static_cast<std::int64_t>(decoder.launchesWithoutGpuRecord());
    if (!m_pmProblem.empty()) {
        batch->stats.add("agent.gpu_metrics_unavailable", core::Severity::Warning, 1, m_pmProblem);
    }
    if ((kinds & wire::CAPTURE_KIND_NVTX) != 0) {
        m_nvtx.drainInto(*batch, windowEnd, windowStart, windowEnd);
    }
    if (useCupti) {
        // Drops not yet reported with a completed buffer (records lost while the pool was empty).
        std::size_t lastDropped = 0;
        if (m_cupti.droppedRecords(nullptr, 0, &lastDropped) == CUPTI_SUCCESS) {
            m_cuptiDropped.fetch_add(lastDropped);
        }
        disableCupti(decoder.graphLaunchSeen());
    }
    // PM sampling last: disabling it may finalise CUPTI (XLA's notes), so the activity side is torn
    // down first.
    if (m_pm) {
        m_pm->stop(*batch, m_clock, windowStart, windowEnd);
        m_metadata.notes.emplace_back("capture.gpu_metrics_samples", std::to_string(m_pm->samples()));
        m_metadata.notes.emplace_back("capture.gpu_metrics_count", std::to_string(m_pm->metricCount()));
        if (!m_pm->droppedMetrics().empty()) {
            std::string names;
            for (const std::string& dropped : m_pm->droppedMetrics()) {
                names += (names.empty() ? "" : "; ") + dropped;
            }
            batch->stats.add("agent.gpu_metrics_dropped", core::Severity::Warning,
                             static_cast<std::int64_t>(m_pm->droppedMetrics().size()),
                             "GPU metrics this device refused were left out, the others recorded: " + names);
        }
        for (const std::string& note : m_pm->notes()) {
            m_metadata.notes.emplace_back("capture.gpu_metrics_note", note);
        }
        m_pm.reset();
    }
    if (missingGpuRecords > 0) {
        batch->stats.add("agent.gpu_records_missing", core::Severity::DataLoss, missingGpuRecords,
                         "launches inside the window whose kernel, copy or memset record never arrived "
                         "(dropped, or still queued when the drain time ran out)");
    }
    if (m_callbacksLost) {
        batch->stats.add(
            "agent.cupti_callbacks_lost", core::Severity::DataLoss, 1,
            "another tool took CUPTI's buffer callbacks mid-capture; GPU records after that point "
            "went to it. Do not start torch.profiler (or another CUPTI tool) during a Chokepoint "
            "capture");
    }
    if (m_clockChanged) {
        batch->stats.add("agent.cupti_clock_changed", core::Severity::DataLoss, 1,
                         "another tool changed CUPTI's clock mid-capture; the capture ended there. Do not "
                         "start torch.profiler (or another CUPTI tool) during a Chokepoint capture");
    }
    // Buffers CUPTI completes after this point find no engine and are simply not decoded.
    std::int64_t dropped = static_cast<std::int64_t>(m_cuptiDropped.load());
    decoder.reportStats(batch->stats);
    if (dropped > 0) {
        batch->stats.add("agent.dropped_records", core::Severity::DataLoss, dropped,
                         "CUPTI dropped records because all " + std::to_string(m_pool.maxBlocks()) +
                             " activity buffers were in use (consumer too slow); raise CHOKEPOINT_BUFFER_MB");
    }
    if (m_pool.exhaustedCount() > 0) {
        batch->stats.add("agent.buffer_pool_exhausted", core::Severity::DataLoss,
                         static_cast<std::int64_t>(m_pool.exhaustedCount()),
                         "CUPTI asked for a buffer while none was ready (all in use, or the worker had not "
                         "yet topped the pool up); those records were dropped. Raise CHOKEPOINT_BUFFER_MB");
    }
    {
        std::lock_guard lock(m_mutex);
        if (m_spill.chunksSpilled() > 0) {
            batch->stats.add("agent.spilled_chunks", core::Severity::Info,
                             static_cast<std::int64_t>(m_spill.chunksSpilled()),
                             "the client read slowly: up to " + std::to_string(m_spill.peakBytes() >> 20) +
                                 " MiB of chunks waited on disk instead of records being dropped");
        }
    }
    if (m_nvtx.droppedEvents() > 0) {
        batch->stats.add("nvtx.dropped_events", core::Severity::DataLoss,
                         static_cast<std::int64_t>(m_nvtx.droppedEvents()),
                         "a thread's NVTX ring was full between two drains");
    }
    if (host && host->droppedSamples() > 0) {
        batch->stats.add("host.dropped_samples", core::Severity::DataLoss,
                         static_cast<std::int64_t>(host->droppedSamples()),
                         "host CPU samples over the pending bound");
    }
    if (windowStart != kNever) {
        m_metadata.notes.emplace_back("capture.window_ns",
                                      std::to_string(windowStart) + ".." + std::to_string(windowEnd));
    }
    m_metadata.notes.emplace_back("capture.end_reason", endReason);
    encodeBatch(*batch, true);
    emit(m_encoder->encodeFooter(), 0);
    m_pool.trim();

    wire::CaptureDone done;
    done.captureId = captureId;
    done.ok = windowStart != kNever;
    done.message = endReason;
    const core::CptraceRowCounts& rows = m_encoder->rowsEncoded();
    done.kernels = static_cast<std::int64_t>(rows.kernels);
    done.apiCalls = static_cast<std::int64_t>(rows.apiCalls);
    done.ranges = static_cast<std::int64_t>(rows.ranges);
    done.droppedRecords = dropped;
    std::uint64_t steps = m_nvtx.stepsSeen();
    done.steps = static_cast<std::int64_t>(steps >= stepBase ? steps - stepBase : 0);
    done.durationNs = windowStart == kNever ? 0 : windowEnd - windowStart;
    log("capture " + std::to_string(captureId) + " done: " + endReason);
    std::function<void()> sinkEnded;
    bool fileMode = false;
    {
        std::lock_guard lock(m_mutex);
        m_done = done;
        m_exitDrain = false;
        fileMode = static_cast<bool>(m_sink);
        if (fileMode) {
            // File mode ends here: forget the sink, so a later capture (attach) streams to its
            // client and never into the finished file.
            sinkEnded = std::move(m_sinkEnded);
            m_sink = nullptr;
            m_sinkEnded = nullptr;
        } else {
            m_finished = true;
        }
    }
    if (fileMode) {
        if (sinkEnded) {
            sinkEnded();  // outside our lock: it takes the agent's
        }
        std::lock_guard lock(m_mutex);
        m_state.store(wire::AGENT_STATE_DORMANT);  // nobody polls in file mode
    }
    m_cv.notify_all();
}

}  // namespace chokepoint::collectors

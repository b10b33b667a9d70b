#include "collectors/agent/CaptureEngine.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "collectors/host/HostSampler.h"

namespace chokepoint::collectors {

namespace {

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

std::optional<wire::Error> CaptureEngine::acquireCupti() {
    auto fail = [&](wire::ErrorCode code, const std::string& text) {  // the caller logs
        disableCupti();
        wire::Error e;
        e.code = code;
        e.text = text;
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
    return std::nullopt;
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
    if (!m_subscribed) {
        if (auto refused = acquireCupti()) {
            log("capture refused: " + refused->text);
            return refused;
        }
    }
    // Registered at every capture: the registration is process-global and another client may have
    // replaced ours since the last capture.
    g_engine.store(this, std::memory_order_release);
    CUptiResult r =
        m_cupti.registerCallbacks(&CaptureEngine::onBufferRequested, &CaptureEngine::onBufferCompleted);
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

std::optional<std::string> CaptureEngine::startLaunchWatch() {
    m_launchSteps.reset();
    if (!m_subscribed) {
        if (auto refused = acquireCupti()) {
            return refused->text;
        }
    }
    CUptiResult r = m_cupti.setLaunchSink(&CaptureEngine::onLaunchName, &m_launchSteps);
    if (r != CUPTI_SUCCESS) {
        m_cupti.setLaunchSink(nullptr, nullptr);
        return "CUPTI refused the launch callbacks: " + m_cupti.resultString(r);
    }
    m_launchWatchOn = true;
    return std::nullopt;
}

void CaptureEngine::stopLaunchWatch() {
    if (!m_launchWatchOn) {
        return;
    }
    m_cupti.setLaunchSink(nullptr, nullptr);
    m_launchWatchOn = false;
    if (m_enabledKinds.empty() && m_subscribed) {
        // Subscribed only to count launches (the job marks its steps, or the capture ends before
        // its window): CUPTI goes back to how the job had it until the window opens.
        CUptiResult r = m_cupti.unsubscribe();
        if (r != CUPTI_SUCCESS) {
            log("cuptiUnsubscribe failed: " + m_cupti.resultString(r));
        }
        m_subscribed = false;
    }
}

void CaptureEngine::onLaunchName(void* counter, const char* kernelName) {
    static_cast<LaunchStepCounter*>(counter)->onLaunch(kernelName);
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
    if (m_launchWatchOn) {
        m_cupti.setLaunchSink(nullptr, nullptr);
        m_launchWatchOn = false;
    }
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
    // Steps (--after-steps, --at-step, --steps) are counted from step markers; a job without them
    // has its steps found in its repeating kernel launches, which needs CUPTI's launch callbacks
    // until the job shows a marker or the window no longer needs steps.
    m_launchWatchProblem.clear();
    const bool needsSteps = request.steps > 0 || request.startAtNextStep || request.afterSteps > 0;
    if (needsSteps && (kinds & kCuptiKinds) != 0) {
        if (auto problem = startLaunchWatch()) {
            m_launchWatchProblem = *problem;
            log("steps are counted from step markers only: " + *problem);
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
    if ((kinds & wire::CAPTURE_KIND_NVTX) != 0) {
        m_nvtx.setMode(NvtxMode::Recording);
    } else if (needsSteps) {
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
        if (m_pausedPm) {
            // The session an earlier capture left enabled (this process launches CUDA graphs).
            if (core::Status resumed = m_pausedPm->resume(); resumed.ok()) {
                m_pm = std::move(m_pausedPm);
                log("GPU metrics: resumed the PM sampling session of an earlier capture");
            } else {
                m_pmProblem = "the PM sampling session kept from an earlier capture did not restart: " +
                              resumed.error().message;
                log("GPU metrics unavailable: " + m_pmProblem);
            }
            return;
        }
        auto pm = m_config.pmCalls != nullptr ? std::make_unique<PmSampler>(*m_config.pmCalls)
                                              : std::make_unique<PmSampler>();
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
    new (&m_pm) std::unique_ptr<PmSampler>();  // the parent's samplers: never touched here
    new (&m_pausedPm) std::unique_ptr<PmSampler>();
    m_processLaunchesGraphs = false;
    m_wantPm = false;
    m_wantDeviceDump = false;
    m_subscribed = false;  // the child must never touch the parent's CUPTI state
    m_config.cuptiAvailable = false;
    m_state.store(wire::AGENT_STATE_DORMANT);
    g_engine.store(nullptr);
}

}  // namespace chokepoint::collectors

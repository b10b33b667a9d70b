// The capture worker: clock anchors, batches from CUPTI buffers, NVTX, host samples and PM
// samples, their encoding into .cptrace chunks, and the worker loop (run). The control-thread API
// and the CUPTI callbacks are in CaptureEngine.cpp.
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

std::int64_t rowCount(const core::TraceModel& m) {
    std::int64_t n = static_cast<std::int64_t>(m.kernels.size() + m.memcpys.size() + m.memsets.size() +
                                               m.apiCalls.size() + m.syncs.size() + m.ranges.size());
    for (const auto& c : m.counters) {
        n += static_cast<std::int64_t>(c.values.size());
    }
    return n;
}

}  // namespace

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
    // The window's steps are the launches of the repeating kernel sequence's anchor (no step marker
    // seen), not step markers; decided while the window is closed, kept once it opened.
    bool stepsFromLaunches = false;
    std::uint64_t launchGeneration = 0;  // the anchor the stamps belong to
    const bool launchWatchUsed = m_launchWatchOn;
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
    // Which build recorded it: what a capture shows depends on the agent's fixes, not its version.
    m_metadata.notes.emplace_back("capture.agent_build", m_config.agentBuild);
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

    auto stepsSeen = [&] {
        return stepsFromLaunches ? m_launchSteps.anchorLaunchesSeen() : m_nvtx.stepsSeen();
    };
    auto stepTimeNs = [&](std::uint64_t n) {
        return stepsFromLaunches ? m_launchSteps.anchorLaunchTimeNs(n) : m_nvtx.stepTimeNs(n);
    };
    auto updateWindow = [&] {
        if (windowStart == kNever && !waitingToStart && stepsSeen() >= armBase + 1) {
            windowStart = stepTimeNs(armBase + 1);
            stepBase = armBase + 1;
            m_state.store(wire::AGENT_STATE_CAPTURING);
        }
        if (windowStart != kNever && stepsFromLaunches) {
            m_launchSteps.freezeAnchor();  // the window's edges are this anchor's launches
        }
        if (windowStart != kNever && request.steps > 0 && windowEnd == kNever) {
            // Aligned windows end at the marker that opens step N+1; immediate windows after N markers.
            std::uint64_t endMarker = stepBase + request.steps;
            core::TimestampNs t = stepTimeNs(endMarker);
            if (t >= 0) {
                windowEnd = t;
                endReason = std::to_string(request.steps) + " steps recorded" +
                            (stepsFromLaunches ? " (steps from the repeating kernel launches)" : "");
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

    // The Python stack samplers of the job sample while the window records, when asked for.
    const bool pythonStacks = (kinds & wire::CAPTURE_KIND_PYTHON_STACKS) != 0;
    if (!waitingToStart) {
        startWorkerSideSources();
        if (m_config.onRecording && pythonStacks) {
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
        // Where steps come from: step markers when the job has any (they win unless a window
        // already opened on launches), else the anchor launches of its repeating kernel sequence.
        std::uint64_t launchRepetitions = 0;
        const bool windowOnLaunches = stepsFromLaunches && windowStart != kNever;
        if (m_launchWatchOn && m_nvtx.stepsSeen() > 0 && !windowOnLaunches) {
            if (stepsFromLaunches && !waitingToStart) {
                armBase = m_nvtx.stepsSeen();  // armed on launches: now the next marker
            }
            stepsFromLaunches = false;
            stopLaunchWatch();
        } else if (m_launchWatchOn) {
            launchRepetitions = m_launchSteps.repetitionsStarted(now);
            const std::uint64_t generation = m_launchSteps.anchorGeneration();
            if (m_launchSteps.period() != 0 && generation != launchGeneration && !windowOnLaunches) {
                // Stamps start with this anchor: a window waiting for a step waits for its next
                // launch; an open window counts its steps from it.
                stepsFromLaunches = true;
                launchGeneration = generation;
                armBase = 0;
            }
        }
        if (waitingToStart) {
            // Steps to wait: step markers, or the repetitions of the kernel launch sequence so far.
            const bool stepsDone =
                m_nvtx.stepsSeen() >= request.afterSteps ||
                (stepsFromLaunches && launchRepetitions >= std::uint64_t{request.afterSteps} + 1);
            const bool due = stepsDone && now >= startedNs + delayNs;
            if (due) {
                waitingToStart = false;
                if (stepsFromLaunches) {
                    m_metadata.notes.emplace_back("capture.after_steps_from",
                                                  "kernel launches: " + std::to_string(request.afterSteps) +
                                                      " steps of " + std::to_string(m_launchSteps.period()) +
                                                      " launches passed before the window opened");
                }
                if (m_deferredCuptiKinds != 0) {
                    if (auto refused = enableCupti(m_deferredCuptiKinds)) {
                        endReason = "the capture could not start: " + refused->text;
                        break;
                    }
                    useCupti = !m_enabledKinds.empty();
                    takeAnchor();  // CUPTI's clock, now that it is in use
                    callbacksChangedNs = now;
                }
                armBase = stepsSeen();
                if (m_config.onRecording && pythonStacks) {
                    m_config.onRecording(true);
                }
                if (request.afterSteps == 0 && !request.startAtNextStep) {
                    windowStart = monotonicNowNs();  // --delay: the window opens now
                    stepBase = armBase;
                    m_state.store(wire::AGENT_STATE_CAPTURING);
                }  // else at the next step (updateWindow)
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
            if (m_launchWatchOn && windowStart != kNever && (request.steps == 0 || windowEnd != kNever)) {
                stopLaunchWatch();  // the window's steps are all known
            }
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
    stopLaunchWatch();  // also releases a subscription made only to count launches
    if (m_config.onRecording) {
        m_config.onRecording(false);
    }
    core::TimestampNs stopNs = monotonicNowNs();
    if (windowEnd == kNever) {
        windowEnd = stopNs;
    }
    if (windowStart == kNever && waitingToStart) {
        if (request.afterSteps == 0) {
            endReason = "stopped before the delay had passed, so nothing was recorded";
        } else if (m_nvtx.stepsSeen() > 0 || !launchWatchUsed) {
            endReason = "stopped after " + std::to_string(m_nvtx.stepsSeen()) + " of the " +
                        std::to_string(request.afterSteps) + " steps to wait, so nothing was recorded";
            if (!m_launchWatchProblem.empty()) {
                endReason +=
                    " (no step marker was seen, and steps could not be counted from kernel "
                    "launches: " +
                    m_launchWatchProblem + ")";
            }
        } else if (m_launchSteps.period() == 0) {
            endReason = "no step marker was seen and the " + std::to_string(m_launchSteps.launches()) +
                        " kernel launches did not repeat yet, so the " + std::to_string(request.afterSteps) +
                        " steps to wait were not counted and nothing was recorded; use --delay";
        } else {
            const std::uint64_t started = m_launchSteps.repetitionsStarted(monotonicNowNs());
            const std::uint64_t passed = started > 0 ? started - 1 : 0;
            endReason = "stopped after " + std::to_string(passed) + " of the " +
                        std::to_string(request.afterSteps) + " steps to wait (no step marker; steps of " +
                        std::to_string(m_launchSteps.period()) + " kernel launches), so nothing was recorded";
        }
    } else if (windowStart == kNever && endReason.rfind("the capture could not start", 0) != 0) {
        endReason = "no step marker was seen, so the window never opened (stopped before the first step)";
        if (launchWatchUsed && m_nvtx.stepsSeen() == 0) {
            endReason =
                m_launchSteps.period() == 0
                    ? "no step marker was seen and the " + std::to_string(m_launchSteps.launches()) +
                          " kernel launches did not repeat yet, so no step boundary was found and the "
                          "window never opened"
                    : "no step marker was seen, and the stop came before the next step of the "
                      "repeating kernel launches, so the window never opened";
        }
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
        m_processLaunchesGraphs = m_processLaunchesGraphs || decoder.graphLaunchSeen();
        disableCupti(m_processLaunchesGraphs);
    }
    // What became of the GPU metrics, for the end message: the user learns it at once, not from an
    // empty track later.
    std::string gpuMetricsOutcome;
    // PM sampling last: disabling it may finalise CUPTI (XLA's notes), so the activity side is torn
    // down first. It is not disabled at all in a process that launches CUDA graphs (the session is
    // kept for the next capture), nor at process exit: the CUDA runtime's exit handlers may have
    // torn down the profiler's objects already, and another CUPTI tool saw a double free inside
    // libnvperf_host.so when it disabled PM sampling then.
    if (m_pm) {
        bool atExit = false;
        {
            std::lock_guard lock(m_mutex);
            atExit = m_exitDrain;
        }
        if (m_processLaunchesGraphs || atExit) {
            m_pm->pause(*batch, m_clock, windowStart, windowEnd);
            m_metadata.notes.emplace_back(
                "capture.gpu_metrics_note",
                atExit
                    ? std::string("PM sampling stopped but not disabled: the process was exiting")
                    : std::string("PM sampling stopped but left enabled for the next capture: this process "
                                  "launches CUDA graphs, and cuptiPmSamplingDisable may finalize CUPTI"));
        } else {
            m_pm->stop(*batch, m_clock, windowStart, windowEnd);
        }
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
        if (m_pm->samples() > 0) {
            gpuMetricsOutcome = std::to_string(m_pm->samples()) + " GPU metrics samples of " +
                                std::to_string(m_pm->metricCount()) + " metrics";
        } else {
            // Sampling ran but left nothing: a warning every view shows, with what the decoder saw
            // (its last note), not only a note that --json or info print.
            gpuMetricsOutcome =
                "no GPU metrics sample was kept (chokepoint-cli info on the trace shows what "
                "the decoder saw)";
            batch->stats.add("agent.gpu_metrics_empty", core::Severity::Warning, 1,
                             "GPU metrics were sampled but no sample was kept" +
                                 (m_pm->notes().empty() ? std::string() : ": " + m_pm->notes().back()));
        }
        if (m_pm->paused()) {
            m_pausedPm = std::move(m_pm);
        }
        m_pm.reset();
    } else if ((kinds & wire::CAPTURE_KIND_GPU_METRICS) != 0 && !m_pmProblem.empty()) {
        gpuMetricsOutcome = "no GPU metrics: " + m_pmProblem;
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
        m_metadata.notes.emplace_back(std::string(names::kCaptureWindowNote),
                                      std::to_string(windowStart) + ".." + std::to_string(windowEnd));
    }
    m_metadata.notes.emplace_back("capture.end_reason", endReason);
    encodeBatch(*batch, true);
    emit(m_encoder->encodeFooter(), 0);
    m_pool.trim();

    wire::CaptureDone done;
    done.captureId = captureId;
    done.ok = windowStart != kNever;
    done.message = gpuMetricsOutcome.empty() ? endReason : endReason + "; " + gpuMetricsOutcome;
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

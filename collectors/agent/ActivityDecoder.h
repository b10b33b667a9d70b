#pragma once
// Turns CUPTI activity buffers into model rows. Walks buffers with the real
// cuptiActivityGetNextRecord (works on plain memory, no driver needed) and appends to a batch
// TraceModel:
//   CONCURRENT_KERNEL -> kernels (demangled names), MEMCPY/MEMCPY2 -> memcpys, MEMSET -> memsets,
//   RUNTIME/DRIVER -> apiCalls (names without the "_vNNNN" suffix), INTERNAL_LAUNCH_API ->
//   apiCalls named "internal launch" (CUPTI leaves their cbid unset),
//   SYNCHRONIZATION -> syncs, but only those whose correlation id belongs to an allow-listed
//   *Synchronize / StreamWaitEvent API record (CUPTI also reports event and stream *queries* in
//   this kind; those are dropped and counted), with the thread of that API call,
//   GRAPH_TRACE -> ranges named "CUDA graph <id>" on the launching thread (never kernels: a
//   graph-level record stands for the whole graph, not for one kernel),
//   DEVICE -> devices (CUDA-invisible devices skipped, the name CUPTI allocated freed),
//   EXTERNAL_CORRELATION -> the external-id table below,
//   OVERHEAD -> counted (and its overheadData freed, as CUPTI requires).
// Windowing: API records are kept when they start inside the window; GPU records (kernels, copies,
// memsets, graphs) are kept when the API call that *launched* them started inside the window,
// whatever time they ran (the GPU runs behind the CPU markers that define the window). A GPU record
// whose launch record is unknown (API tracing off, or the launch record lost) falls back to its own
// start time. Each pass decodes API records of all its buffers before the GPU records, so the
// order of buffers within a flush does not matter.
// CUPTI timestamps are mapped to CLOCK_MONOTONIC with the ClockMap. Records without timestamps
// (start = end = 0) or with end < start are counted and skipped. Not thread-safe (one decoder
// thread).

#include <cupti.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "collectors/agent/ClockSync.h"
#include "core/model/TraceModel.h"

namespace chokepoint::collectors {

struct DecoderCounts {
    std::uint64_t records = 0;
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, apiCalls = 0, syncs = 0, graphs = 0, devices = 0;
    std::uint64_t externalCorrelations = 0, overhead = 0;
    std::int64_t overheadNs = 0;
    std::uint64_t noTimestamp = 0, inverted = 0, outsideWindow = 0, unknownKind = 0;
    std::uint64_t stillRunningAtStop = 0;    // end = 0 in a forced flush, launched inside the window
    std::uint64_t syncQueriesDropped = 0;    // SYNCHRONIZATION records of event/stream queries
    std::uint64_t invisibleDevices = 0;      // DEVICE records with isCudaVisible = 0
    std::uint64_t gpuWithoutLaunch = 0;      // GPU records windowed by their own start
    std::uint64_t launchesNeverMatched = 0;  // in-window launches forgotten before their GPU record came
    std::uint64_t bufferErrors = 0;          // cuptiActivityGetNextRecord failed other than at the end
};

struct ExternalCorrelation {
    std::uint32_t kind = 0;  // CUpti_ExternalCorrelationKind
    std::uint64_t externalId = 0;
};

class ActivityDecoder {
public:
    explicit ActivityDecoder(const ClockMap& clock) : m_clock(clock) {}

    // Rows whose (monotonic) start is outside [startNs, endNs) are skipped.
    void setWindow(core::TimestampNs startNs, core::TimestampNs endNs) {
        m_windowStart = startNs;
        m_windowEnd = endNs;
    }

    struct Buffer {
        std::uint8_t* data;
        std::size_t validBytes;
    };
    // Decodes every record of the buffers of one pass into `batch`: API-side records of all buffers
    // first, then GPU-side ones. Synchronization records whose API record has not been seen yet
    // wait for kSyncPassesToWait more passes, then count as queries.
    void decodePass(const std::vector<Buffer>& buffers, core::TraceModel& batch);
    // One buffer as one pass.
    void decode(std::uint8_t* buffer, std::size_t validBytes, core::TraceModel& batch) {
        decodePass({{buffer, validBytes}}, batch);
    }
    // The capture ends: pending synchronization records without their API record are queries.
    void finish();

    // API rows are added to the batch only when wanted; API records are always used for windowing
    // and for matching synchronization records.
    void setEmitApiRows(bool emit) { m_emitApiRows = emit; }
    // Buffers from now on come from a forced flush: a GPU record with end = 0 is still running.
    void setForcedFlush(bool forced) { m_forced = forced; }
    // In-window launches (kernel, copy, memset, graph) whose GPU record has not arrived yet.
    std::size_t outstandingLaunches() const { return m_outstanding.size(); }
    // True once a GPU record of work launched after the window end (or, launch unknown, that
    // started after it) was decoded: the GPU has caught up with the window. The drain's test when
    // the outstanding count cannot tell: GPU records without their launch, or graph launches
    // (one launch, many kernel records with its correlation id).
    bool gpuPastWindowEnd() const { return m_gpuPastWindowEnd; }
    bool graphLaunchInWindow() const { return m_graphLaunchInWindow; }
    // A CUDA graph launch was recorded at any time during the capture.
    bool graphLaunchSeen() const { return m_graphLaunchSeen; }
    // Outstanding now plus those forgotten earlier (their records were dropped or never came).
    std::uint64_t launchesWithoutGpuRecord() const {
        return m_outstanding.size() + m_counts.launchesNeverMatched;
    }

    // External correlation recorded for a CUPTI correlation id (e.g. Kineto's CUSTOM0 op id).
    const ExternalCorrelation* externalFor(std::uint32_t correlationId) const;
    // Device ordinal of a CUDA context, learned from kernel/memcpy/memset records.
    int deviceOfContext(std::uint32_t contextId) const;

    const DecoderCounts& counts() const { return m_counts; }
    // Adds the data-quality counters to `stats` (and resets nothing).
    void reportStats(core::TraceStats& stats) const;

    static constexpr int kSyncPassesToWait = 2;
    // Launch records remembered for windowing and sync matching (~14 MiB): seconds of history at
    // tens of thousands of launches per second, far more than the GPU runs behind.
    static constexpr std::size_t kMaxLaunchesKept = 1u << 18;

    // True for the API calls whose SYNCHRONIZATION record is a host wait or a stream dependency.
    static bool isSyncApi(CUpti_ActivityKind kind, CUpti_CallbackId cbid);
    // True for the API calls that put work on the GPU (a kernel, copy, memset or graph record).
    static bool isGpuWorkApi(CUpti_ActivityKind kind, CUpti_CallbackId cbid);
    static bool isGraphLaunch(CUpti_ActivityKind kind, CUpti_CallbackId cbid);

    // "cudaLaunchKernel" for CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000.
    static std::string apiName(CUpti_ActivityKind kind, CUpti_CallbackId cbid);
    static std::string demangle(const char* name);

private:
    struct Launch {
        core::TimestampNs startNs;
        std::uint32_t processId, threadId;
        bool sync;
    };
    struct PendingSync {
        std::uint64_t start, end;
        std::uint32_t contextId, streamId, correlationId;
        CUpti_ActivitySynchronizationType type;
        int passes;
    };
    bool inWindow(core::TimestampNs t) const { return t >= m_windowStart && t < m_windowEnd; }
    bool timesValid(std::uint64_t start, std::uint64_t end);
    void decodeRecord(CUpti_Activity* record, bool apiPhase, core::TraceModel& batch);
    void noteApi(const CUpti_ActivityAPI& a, core::TimestampNs startNs, core::TraceModel& batch);
    // Whether a GPU record belongs to the window: by its launch when known, else by its own start.
    bool gpuInWindow(std::uint32_t correlationId, core::TimestampNs ownStartNs);
    // A forced flush returned this GPU record unfinished (end = 0): lost when its launch was inside
    // the window, else outside it.
    void noteUnfinished(std::uint32_t correlationId, std::uint64_t cuptiStart);
    bool emitSync(const PendingSync& s, core::TraceModel& batch);
    const std::string& kernelName(const char* mangled);
    const std::string& cachedApiName(CUpti_ActivityKind kind, CUpti_CallbackId cbid);

    const ClockMap& m_clock;
    core::TimestampNs m_windowStart = std::numeric_limits<core::TimestampNs>::min();
    core::TimestampNs m_windowEnd = std::numeric_limits<core::TimestampNs>::max();
    DecoderCounts m_counts;
    std::unordered_map<const char*, std::string> m_kernelNames;  // CUPTI keeps name pointers alive
    std::map<std::pair<int, std::uint32_t>, std::string> m_apiNames;
    std::unordered_map<std::uint32_t, ExternalCorrelation> m_external;
    std::unordered_map<std::uint32_t, int> m_contextDevice;
    std::unordered_map<std::uint32_t, Launch> m_launches;  // correlation id -> API record
    std::vector<std::uint32_t> m_launchOrder;              // for bounding m_launches
    std::size_t m_launchOrderHead = 0;
    std::unordered_map<std::uint32_t, bool> m_outstanding;  // in-window GPU-work launches
    std::vector<PendingSync> m_pendingSyncs;
    bool m_emitApiRows = true;
    bool m_forced = false;
    bool m_gpuPastWindowEnd = false;
    bool m_graphLaunchInWindow = false;
    bool m_graphLaunchSeen = false;
};

}  // namespace chokepoint::collectors

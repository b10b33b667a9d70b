#pragma once
// Our own NVTX injection (guide §5.2): InitializeInjectionNvtx2 (exported by the agent) calls
// install(), which points the NVTX function tables of the calling module at our handlers. NVTX v3
// calls it once per module that uses NVTX (torch, NCCL, cuDNN...), so install() is idempotent.
//
// Modes (one relaxed atomic load on every NVTX call):
//   Idle      - handlers only keep the per-thread push depth (the value NVTX returns) and return.
//   Armed     - handlers also recognise step markers (no events stored).
//   Recording - events go into a per-thread ring, allocated on a thread's first recorded event:
//               fixed capacity, single producer (the thread) / single consumer (drainInto), no
//               locks or allocation on the hot path. A full ring drops the event and counts it.
// Message text is copied (PyTorch passes temporary strings), truncated to kTextBytes - 1 bytes.
// Timestamps are CLOCK_MONOTONIC nanoseconds.
//
// Step markers: a push/start/mark whose message begins with one of the configured prefixes
// (default: the name table's step-marker prefixes, core/names kProfilerStepPrefix,
// kHelperStepPrefix, kPlainStepPrefix) counts a step and reports its timestamp.
//
// drainInto() pairs push/pop per thread and domain (NVTX stacks are per domain), and start/end by
// id: ends may come from another thread, and an end drained before its start (the other thread's
// ring drained first) waits for it. Completed ranges (and marks, as zero-length ranges) are
// appended as RangeRows with source Nvtx.
//
// "chokepoint:meta ..." marks (model facts the Python helper publishes once, before the loop) are
// also kept in a small table in every mode, so a capture started later (attach) still gets them.
//
// Fork: the child's handler never destroys or clears a container another thread may have been
// changing at the fork; it constructs empty ones over them (the old ones leak) and goes Idle.

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nvtx3/nvToolsExt.h>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::collectors {

enum class NvtxMode : int { Idle = 0, Armed = 1, Recording = 2 };

enum class NvtxEventType : std::uint8_t { Push, Pop, Start, End, Mark };

struct NvtxEvent {
    static constexpr std::size_t kTextBytes = 120;
    core::TimestampNs timeNs;
    std::uint64_t id;    // start/end range id
    const void* domain;  // our domain record, nullptr for the default domain
    NvtxEventType type;
    char text[kTextBytes];
};

class NvtxRecorder {
public:
    static constexpr std::size_t kRingEvents = 4096;  // per thread, ~0.5 MiB
    static constexpr std::size_t kMaxStepMarkers = 8;

    // The process-wide recorder the NVTX handlers write to (NVTX handlers carry no user data).
    static NvtxRecorder& instance();

    // Fills the calling module's NVTX tables. Returns 1 on success, 0 to make NVTX unload us.
    int install(NvtxGetExportTableFunc_t getExportTable);
    int modulesInstalled() const { return m_modules.load(); }

    void setMode(NvtxMode mode);
    NvtxMode mode() const { return static_cast<NvtxMode>(m_mode.load(std::memory_order_relaxed)); }

    // Replaces the step marker prefixes (at most kMaxStepMarkers). Call while Idle.
    void setStepMarkers(const std::vector<std::string>& prefixes);
    std::uint64_t stepsSeen() const { return m_steps.load(std::memory_order_acquire); }
    // Timestamp of the n-th step marker seen since resetSteps() (1-based), or -1 if not yet seen.
    // The first kMaxStepTimes are kept.
    core::TimestampNs stepTimeNs(std::uint64_t n) const;
    void resetSteps();

    // Appends completed ranges and marks since the last drain whose start lies in
    // [windowStartNs, windowEndNs) (others are consumed and dropped). With `closeOpenAtNs` >= 0,
    // ranges still open are closed at that time (counted as nvtx.open_at_stop).
    void drainInto(core::TraceModel& batch, core::TimestampNs closeOpenAtNs = -1,
                   core::TimestampNs windowStartNs = std::numeric_limits<core::TimestampNs>::min(),
                   core::TimestampNs windowEndNs = std::numeric_limits<core::TimestampNs>::max());
    // Forgets everything recorded and all consumer state (between captures).
    void clear();
    std::uint64_t droppedEvents() const { return m_dropped.load(); }

    // In a forked child: the other threads are gone; forget their rings' consumer state.
    void resetAfterFork();

    // The latest "chokepoint:meta ..." marks seen in any mode (oldest first, at most kMaxMetaMarks).
    static constexpr std::size_t kMaxMetaMarks = 16;
    static constexpr std::size_t kMetaBytes = 512;
    std::vector<std::string> metaMarks();
    void noteMeta(const char* ascii);

    // --- used by the C handlers ---
    struct Ring;
    static Ring* threadRing();
    void record(NvtxEventType type, const void* domain, std::uint64_t id, const char* ascii,
                const wchar_t* wide);
    void noteStep(const char* ascii, core::TimestampNs timeNs);
    bool isStepMarker(const char* ascii) const;
    std::uint64_t nextRangeId() { return m_nextRangeId.fetch_add(1, std::memory_order_relaxed); }
    static core::TimestampNs nowNs();

    static constexpr std::size_t kMaxStepTimes = 4096;

private:
    NvtxRecorder() = default;

    struct OpenRange {
        core::TimestampNs startNs;
        const void* domain;
        std::string name;
        core::ThreadIndex thread;
        std::int64_t tid;
    };
    void consume(Ring& ring, core::TraceModel& batch, core::TimestampNs windowStartNs,
                 core::TimestampNs windowEndNs);

    std::atomic<int> m_mode{0};
    std::atomic<int> m_modules{0};
    std::atomic<std::uint64_t> m_dropped{0};
    std::atomic<std::uint64_t> m_steps{0};
    std::atomic<std::uint64_t> m_nextRangeId{1};
    std::atomic<core::TimestampNs> m_stepTimes[kMaxStepTimes] = {};

    // Step marker prefixes: written only while Idle, read by handlers.
    char m_markers[kMaxStepMarkers][64] = {};
    std::atomic<int> m_markerCount{0};

    std::mutex m_ringsMutex;  // ring registration and draining
    std::vector<Ring*> m_rings;
    // Consumer-side state, under m_ringsMutex.
    std::map<std::pair<Ring*, const void*>, std::vector<OpenRange>> m_stacks;  // (thread, domain)
    std::unordered_map<std::uint64_t, OpenRange> m_started;
    std::unordered_map<std::uint64_t, core::TimestampNs> m_earlyEnds;  // ends drained before starts
    static constexpr std::size_t kMaxEarlyEnds = 1u << 16;
    std::uint64_t m_unmatchedPops = 0;

    std::mutex m_metaMutex;
    char m_meta[kMaxMetaMarks][kMetaBytes] = {};
    std::size_t m_metaCount = 0;  // marks ever noted; slot = count % kMaxMetaMarks
};

}  // namespace chokepoint::collectors

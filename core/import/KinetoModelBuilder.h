#pragma once
// Turns decoded Kineto / Chrome-trace events into TraceModel rows: category dispatch (both the
// 2021 and the current category names, case-insensitive), memcpy/memset kinds from the event name,
// thread and stream lookup, flow-based launch links for events without a "correlation" arg, and
// the TraceStats counters for everything repaired or skipped. Independent of the JSON parser, so
// the rules can be tested on their own.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/import/KinetoMemoryEvents.h"
#include "core/model/TraceModel.h"

namespace chokepoint::core {

// A pid or tid as written: a number, or a string such as "Traces" or "stream 7".
struct KinetoId {
    bool present = false;
    bool isText = false;
    std::int64_t number = 0;
    std::string_view text;
};

// An optional integer argument.
struct OptInt {
    bool present = false;
    std::int64_t value = 0;
    void set(std::int64_t v) {
        present = true;
        value = v;
    }
};

// The fixed-size part of a decoded event, reset with one assignment per event.
struct KinetoEventFields {
    std::string_view phase;  // "X", "i", "M", "C", "s", "f", ...
    std::string_view category;
    std::string_view name;
    bool hasName = false;
    KinetoId pid, tid;
    bool hasTs = false;
    std::int64_t tsNs = 0;
    bool hasDur = false;
    std::int64_t durNs = 0;
    OptInt flowId;                // "id" of flow events
    bool bindsEnclosing = false;  // "bp": "e"

    // args
    OptInt device, stream, correlation, externalId, registersPerThread, sharedMemoryBytes, bytes;
    std::array<std::int32_t, 3> grid{}, block{};
    bool hasGrid = false, hasBlock = false;
    std::string_view inputDims;       // raw JSON of "Input Dims"/"Input dims"
    std::string_view inputTypes;      // raw JSON of "Input type"
    std::string_view concreteInputs;  // raw JSON of "Concrete Inputs" (scalar arguments, PyTorch 2.1+)
    std::string_view argName;         // args.name of metadata events
    std::string_view argLabels;       // args.labels of process_labels
    std::string_view memcpyKindArg;   // args.kind on AMD memcpy ("HtoD")
    // Collective parameters on NCCL/RCCL kernels (PyTorch 2.x).
    std::string_view collectiveName, processGroupName, processGroupDescription, processGroupRanks, dtype;
    OptInt inNelems, outNelems, groupSize;
    // "Seq" and "Comms Id" of NCCL collectives (PyTorch/Kineto 2026). Comms Id is an unsigned
    // 64-bit hash, written as a number or (older typed paths) a numeric string.
    OptInt seq;
    bool hasCommsId = false;
    std::uint64_t commsId = 0;
    // args.occupancy {limitingFactors, blockLimit*, ...} on kernels (Kineto 2026, CUDA occupancy
    // calculator): seen, not imported.
    bool hasOccupancy = false;
    // args.rank: trace mergers (TraceLens TraceFuse) tag every event of a fused multi-rank trace
    // with the rank it came from; GPU device ids then repeat across ranks (each host's GPU 0).
    OptInt rank;
    // Memory events ("[memory]" instants, KinetoMemoryEvents.h): "Device Type", "Device Id",
    // "Bytes", "Total Allocated", "Total Reserved".
    OptInt memoryDeviceType, memoryDeviceId, memoryBytes, totalAllocated, totalReserved;
};

// One event of "traceEvents", decoded. String views stay valid until the next event is decoded.
struct KinetoEvent : KinetoEventFields {
    std::vector<std::pair<std::string_view, double>> counterValues;  // args of "C" events

    void reset() {
        static_cast<KinetoEventFields&>(*this) = KinetoEventFields{};
        counterValues.clear();
    }
};

class KinetoModelBuilder {
public:
    explicit KinetoModelBuilder(TraceModel& model);

    // Adds one event. `eventIndex` is its position in traceEvents (for stats details).
    void addEvent(const KinetoEvent& event, std::uint64_t eventIndex);
    // Counts a problem found while decoding (wrong type, out-of-range number).
    void countIssue(std::string_view statName, Severity severity, std::string_view detail);
    // Resolves flows, derives syncs, writes stats. Call once after the last event; does not call
    // TraceModel::finalize().
    void finish();

    std::uint64_t eventCount() const { return m_events; }

private:
    enum class Kind : std::uint8_t {
        Kernel,
        Memcpy,
        Memset,
        Runtime,
        Driver,
        CpuOp,
        PythonFunction,
        UserAnnotation,
        GpuUserAnnotation,
        CudaSync,
        CudaEvent,  // "cuda_event": cudaEventRecord markers (CUDA 12.8+, Kineto 2025-11)
        LaunchFlow,
        OtherFlow,
        Instant,
        TraceSpan,
        RangeProfilerRecord,  // "cuda_profiler_range": Kineto's CUPTI range profiler, one per kernel
        ProfilerOverhead,
        OtherRuntime,  // xpu_runtime, mtia_runtime, privateuse1_runtime
        Unknown,
    };
    static Kind classify(std::string_view category);

    void addComplete(const KinetoEvent& e, Kind kind, std::uint64_t eventIndex);
    void addMetadata(const KinetoEvent& e);
    void addCounter(const KinetoEvent& e);
    void addMemoryEvent(const KinetoEvent& e);
    void addFlow(const KinetoEvent& e, Kind kind);
    void addCollectiveCall(const KinetoEvent& e, std::int64_t correlationId);
    ThreadIndex thread(const KinetoId& pid, const KinetoId& tid);
    std::int64_t idNumber(const KinetoId& id);
    std::int32_t gpuDevice(const KinetoEvent& e);
    std::int32_t gpuStream(const KinetoEvent& e);
    StringId intern(std::string_view text);
    void count(std::string_view statName, Severity severity, std::string_view detail, std::int64_t n = 1);

    TraceModel& m_model;
    std::uint64_t m_events = 0;

    // (pid, tid) -> thread row, with a one-entry cache for runs of events on one thread.
    struct PairHash {
        std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& p) const noexcept {
            return std::hash<std::int64_t>{}(p.first * 0x9E3779B97F4A7C15ll ^ p.second);
        }
    };
    std::unordered_map<std::pair<std::int64_t, std::int64_t>, ThreadIndex, PairHash> m_threads;
    std::int64_t m_lastPid = 0, m_lastTid = 0;
    ThreadIndex m_lastThread = kNoThread;
    // Names given to text pids/tids ("Traces") get synthetic numbers from here.
    std::unordered_map<std::string, std::int64_t> m_textIds;
    // Process names seen in metadata.
    std::unordered_map<std::int64_t, std::size_t> m_processRow;
    // Kineto lists each GPU as a pseudo-process ("process_labels": "GPU 0") whose thread_name
    // entries name its streams. Thread names wait until finish() to know which pids are GPUs.
    std::unordered_map<std::int64_t, bool> m_gpuPids;  // pid -> labelled "GPU N"
    // Fused multi-rank traces (events carry args.rank): the rank of each pid, and one device index
    // per (rank, recorded device) in first-seen order, since every host numbers its GPUs from 0.
    std::map<std::int64_t, std::int64_t> m_pidRank;
    std::map<std::pair<std::int64_t, std::int64_t>, std::int32_t> m_fusedDevice;
    struct PendingName {
        KinetoId pid, tid;
        std::string pidText, tidText;  // owned copies of text ids
        std::string name;
    };
    std::vector<PendingName> m_threadNames;
    // Counter tracks by "pid\nname".
    std::unordered_map<std::string, std::size_t> m_counterRow;

    // Names repeat millions of times: a direct-mapped cache indexed by a cheap hash of the length
    // and a few bytes, verified against the pooled text, saves hashing the whole name each time.
    struct NameCacheEntry {
        StringId id;
        std::uint32_t length = 0;
    };
    static constexpr std::size_t kNameCacheSize = 4096;
    std::vector<NameCacheEntry> m_nameCache = std::vector<NameCacheEntry>(kNameCacheSize);

    // Flow endpoints, kept to link events that lack a "correlation" arg.
    struct FlowPoint {
        std::int64_t pid, tid, tsNs, id;
    };
    std::vector<FlowPoint> m_flowStarts, m_flowEnds;
    struct PendingLink {
        std::uint8_t table;  // 0 api call, 1 kernel, 2 memcpy, 3 memset
        std::uint32_t row;
        std::int64_t pid, tid, tsNs;
    };
    std::vector<PendingLink> m_pendingLinks;

    // Runtime calls that synchronize, kept as syncs unless the trace has its own cuda_sync events.
    std::vector<std::uint32_t> m_syncCalls;
    bool m_sawCudaSync = false;
    bool m_sawHip = false;

    // Stat counters gathered locally and written once in finish() (TraceStats::add is linear).
    struct LocalStat {
        Severity severity;
        std::int64_t count;
        std::string detail;
    };
    std::vector<std::pair<std::string, LocalStat>> m_stats;
    std::uint64_t m_instants = 0, m_cpuInstants = 0, m_flowEvents = 0;
    KinetoMemoryEvents m_memory;
    std::uint64_t m_cudaEvents = 0, m_occupancyKernels = 0, m_pmSamples = 0, m_syncOnVirtualRow = 0;
};

}  // namespace chokepoint::core

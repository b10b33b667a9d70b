#pragma once
// RankSummary: what the job analysis needs from one rank's trace, small enough to ship from a
// cluster node (a few KB to a few hundred KB per rank; `.cpsum`, see SummaryFile.h). It is made
// from one rank's model and its single-rank analysis (summarizeRank), or read from a `.cpsum`.
//
// Times are int64 ns on the rank's OWN trace clock; the job analysis estimates each rank's clock
// offset and never edits the summary. Every collective carries the work its rank did since the
// previous collective on the same device ("segment"), so a late arrival can be explained from the
// summary alone, without the rank's full trace.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Time.h"

namespace chokepoint::job {

inline constexpr int kRankSummarySchemaVersion = 1;

// Where the rank number came from, in order of preference.
enum class RankSource : std::uint8_t {
    DistributedInfo = 0,  // the trace's own distributedInfo (Kineto) / recorded rank
    ProcessName,          // a process named like "RANK 3 - GPU", "rank3", "trainer:0:3"
    FileName,             // the file name: "rank-3", "rank3", "worker3"
    Order,                // the position in the list of inputs
};
std::string_view toString(RankSource source);

// Kinds of work a rank does between two collectives, compared across ranks to explain lateness.
enum class WorkKind : std::uint8_t {
    GpuKernels = 0,     // union of non-collective kernels, copies and memsets on the device
    DataWait,           // device idle while the host waits for input data
    HostWork,           // device idle while the host runs framework / Python code (launching too)
    Synchronization,    // device idle while the host is blocked in a sync
    GarbageCollection,  // host ranges / frames of the Python garbage collector
    Unexplained,        // device idle with no host activity recorded
};
inline constexpr std::size_t kWorkKindCount = 6;
std::string_view toString(WorkKind kind);

// A host frame (Python function or framework op) and its exclusive time inside a segment.
struct FrameTime {
    std::string name;
    core::DurationNs selfNs = 0;
};

// What the rank did in [segmentStartNs, collective start).
struct SegmentWork {
    core::TimestampNs segmentStartNs = 0;
    bool startsAtWindowStart = false;  // no earlier collective: the segment begins with the trace
    std::array<core::DurationNs, kWorkKindCount> ns{};  // index = WorkKind
    std::int32_t kernelCount = 0;                       // non-collective kernels started in it
    // How long the GPU stays busy with non-collective work from the segment's start on (work left
    // over from before it), clipped to the segment.
    core::DurationNs busyAtStartNs = 0;
    std::vector<FrameTime> topHostFrames;  // by exclusive time, at most 3
};

// One collective kernel on this rank.
struct RankCollective {
    std::string kind;             // normalised: "AllReduce", "AllGather", "ReduceScatter", "AllToAll", ...
    std::string groupKey;         // process group ("pg 0 [0, 1, 2, 3]") when recorded, else ""
    std::int32_t groupSize = 0;   // 0 when unknown
    std::int64_t sizeBytes = -1;  // message bytes (max of in and out), -1 when unknown
    std::string dtype;
    core::TimestampNs startNs = 0;
    core::TimestampNs endNs = 0;
    std::int16_t deviceIndex = 0;
    std::int32_t streamId = 0;
    std::int64_t stepNumber = -1;  // the step it belongs to (ProfilerStep#N number), -1 outside steps
    // Kineto's "Comms Id" and "Seq" of the call (PyTorch 2026+): the same on every participant, the
    // key for matching it across ranks. hasCommsId false / seq -1 when the trace does not have them.
    bool hasCommsId = false;
    std::uint64_t commsId = 0;
    std::int64_t seq = -1;
    SegmentWork before;
};

// One training step of this rank.
struct RankStep {
    std::int64_t number = 0;  // ProfilerStep#N's N, or the ordinal
    std::string name;
    core::TimeRange range;  // own clock, stretched over the GPU work launched inside it
    core::DurationNs busyNs = 0;
    core::DurationNs collectiveNs = 0;  // union of collective kernels in the step
    std::array<core::DurationNs, kWorkKindCount> workNs{};
    // Why the rank's own analysis leaves this step out of its step time (StepTimes.h: warm-up,
    // compilation, checkpointing), or "" for a steady step. The job's step time follows the same rule.
    std::string excludedReason;
};

// One GPU of a rank whose process drives several: its own figures, from its slice of the trace
// (core/model/DeviceSlice.h, AnalysisReport::deviceReports).
struct RankDevice {
    std::int16_t deviceIndex = 0;
    std::string deviceName;
    double busyFraction = 0;
    double idleFraction = 0;
    core::DurationNs meanStepNs = 0;
    std::string verdict;  // single-device bottleneck ("compute-bound", ...)
    std::string headline;
};

struct RankSummary {
    int schemaVersion = kRankSummarySchemaVersion;
    std::int32_t rank = -1;
    RankSource rankSource = RankSource::Order;
    std::int32_t worldSize = 0;  // 0 when the trace did not record it
    std::string backend;         // "nccl", "gloo", ...
    std::string sourcePath;
    std::string hostName;
    std::int64_t pid = 0;
    std::string processName;
    std::int16_t deviceIndex = -1;  // the GPU this summary describes
    std::string deviceName;         // as recorded ("NVIDIA A100-SXM4-80GB")
    std::string deviceId;           // device database id when matched ("a100-sxm-80gb"), else ""
    double linkBytesPerSecond = 0;  // one direction of the device's GPU interconnect, 0 unknown
    core::TimeRange window;         // first to last event of the trace, own clock
    std::vector<RankStep> steps;
    std::string stepSource;  // how steps were found ("ProfilerStep#N ranges")
    double busyFraction = 0;
    std::array<core::DurationNs, kWorkKindCount> workNs{};  // over all steps
    core::DurationNs exposedCommunicationNs = 0;            // collectives not overlapped by compute
    // The rank's own figure for communication that compute does not hide, as a share of its step
    // (DiagnosisSignals::exposedCommunicationShare of its single-rank analysis): what the rank's own
    // report says. Absent in summaries written before it existed.
    std::optional<double> exposedCommunicationShare;
    std::string verdict;   // single-rank bottleneck ("data-bound", ...)
    std::string headline;  // single-rank headline
    std::optional<double> mfu;
    std::vector<RankCollective> collectives;  // by start time
    std::vector<std::string> warnings;        // import and analysis warnings worth repeating
    // Several GPUs in the rank's process: each one's own accounting and verdict (scope = device);
    // the fields above describe `deviceIndex`, the busiest. Empty with one GPU.
    std::vector<RankDevice> devices;

    // Over the steady steps (excludedReason empty), the rule of the rank's own analysis; over every
    // step when none is steady.
    core::DurationNs meanStepNs() const;
    core::DurationNs medianStepNs() const;
    // exposedCommunicationShare, or for an older summary the exposed communication per step over
    // the mean step.
    double exposedCommunicationShareOfStep() const;
    // That share of the rank's mean step.
    core::DurationNs exposedCommunicationPerStepNs() const;
};

}  // namespace chokepoint::job

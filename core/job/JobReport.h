#pragma once
// JobReport: the analysis of a training job made of several ranks (analyzeJob, JobAnalysis.h):
// ranks and what is missing, one clock, collectives matched across ranks with arrival skew and bus
// bandwidth, the stragglers with their cause, a what-if estimate of the job's step time without
// them, and a job-level verdict with fixes. Plain data; writers (JobTextReport.h, JobJsonReport.h)
// and the GUI read it.
//
// Times: int64 ns. Rank-local times (RankSummary) are on each rank's own clock; every time in this
// report is on the JOB clock: rank time minus the rank's clockOffsetNs.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/Time.h"
#include "core/job/RankSummary.h"

namespace chokepoint::job {

// An input that could not be used. The job goes on without it.
struct RankProblem {
    std::string path;
    std::int32_t rank = -1;  // when known
    std::string message;     // names the file and the place
};

struct JobRank {
    std::shared_ptr<const RankSummary> summary;
    core::DurationNs clockOffsetNs = 0;  // job time = rank time - offset
    std::int32_t clockMatches = 0;       // collectives the offset was estimated from
    core::DurationNs meanStepNs = 0;
    core::DurationNs medianStepNs = 0;
    core::DurationNs collectiveWaitNs = 0;      // waiting for the last arriver, summed
    core::DurationNs collectiveTransferNs = 0;  // the shared transfer part, summed
    core::DurationNs lateNs = 0;                // arrival after the median arrival, summed (>= 0)
    std::int32_t timesLast = 0;                 // collectives at which it arrived last

    // lateNs over the rank's own steps (at least one): the rank table's "late/step".
    [[nodiscard]] core::DurationNs latePerStepNs() const;
};

struct ClockAlignment {
    bool estimated = false;                 // false: too few matched collectives, offsets are 0
    bool sameHost = false;                  // every rank recorded the same host name
    core::DurationNs medianResidualNs = 0;  // |end - median end| after alignment, median
    core::DurationNs maxResidualNs = 0;
    core::DurationNs maxAbsOffsetNs = 0;
    std::string note;  // "one host: offsets within 3 us of zero", ...
};

// How the collectives were paired across ranks (analyzeJob).
struct CollectiveMatching {
    std::int32_t byCommsId = 0;  // by Kineto's "Comms Id" + "Seq" (PyTorch 2026+): certain
    std::int32_t byOrder = 0;    // by (process group, kind, step, order within the step)
    std::int32_t byEnds = 0;     // re-paired by end time after an order pairing failed
    std::string method;          // "Comms Id + Seq", "order", "Comms Id + Seq and order", "none"
};

struct CollectiveArrival {
    std::int32_t rank = -1;
    core::TimestampNs startNs = 0;  // job clock
    core::TimestampNs endNs = 0;
    core::DurationNs waitNs = 0;        // last arrival - this start (0 for the last arriver)
    std::int32_t collectiveIndex = -1;  // index in that rank's summary->collectives
};

// One collective call matched across the ranks of its group.
struct CollectiveInstance {
    std::string kind;
    std::string groupKey;
    std::int32_t sequence = 0;    // index of this call within its group and kind
    std::int64_t sizeBytes = -1;  // -1 unknown
    std::int32_t groupSize = 0;   // ranks expected (recorded group size, else ranks seen)
    std::int64_t stepNumber = -1;
    std::vector<CollectiveArrival> arrivals;  // by rank
    bool complete = false;                    // every expected rank is present
    core::DurationNs skewNs = 0;              // last start - first start
    core::DurationNs transferNs = 0;          // shortest duration across ranks (the last arriver's)
    std::int32_t lastRank = -1;
    core::DurationNs lastLateNs = 0;  // last start - median start
    double algBytesPerSecond = 0;     // sizeBytes / transferNs; 0 when the size is unknown
    double busBytesPerSecond = 0;     // algbw x the collective's bus factor
};

// Per collective kind and message size.
struct CollectiveStats {
    std::string kind;
    std::int64_t sizeBytes = -1;
    std::int32_t groupSize = 0;
    std::int64_t count = 0;
    core::DurationNs totalTransferNs = 0;
    core::DurationNs totalWaitNs = 0;  // summed over ranks
    core::DurationNs p50SkewNs = 0;
    core::DurationNs p95SkewNs = 0;
    double busBytesPerSecond = 0;   // median over instances, 0 unknown
    double linkBytesPerSecond = 0;  // the link's one-direction peak, 0 unknown
};

enum class StragglerCause : std::uint8_t {
    DataWait = 0,       // waits for input data longer than the median rank
    HostWork,           // more host / Python work (frames named)
    MoreKernels,        // more kernels than the median rank: imbalanced work
    LongerKernels,      // the same kernels take longer: slower GPU, throttling or bigger inputs
    Synchronization,    // blocked in host-device syncs
    GarbageCollection,  // Python garbage collection
    BeforeWindow,       // the delay starts before the trace window: not visible in the trace
    Unknown,
};
std::string_view toString(StragglerCause cause);  // "data-wait", "host-work", ...
std::string_view describe(StragglerCause cause);  // "waits longer for input data", ...

struct Straggler {
    std::int32_t rank = -1;
    core::DurationNs lateNs = 0;         // arrival after the median caused by its own work, summed
    core::DurationNs latePerStepNs = 0;  // lateNs / steps
    // All its arrival after the median per step, as the rank table's "late/step" gives it: its own
    // lateness plus what it inherits from waiting for others or carries over from an earlier call.
    core::DurationNs arrivalLatePerStepNs = 0;
    double shareLast = 0;  // of the collectives it arrived last at
    StragglerCause cause = StragglerCause::Unknown;
    // The late rank's excess over the median rank in the segments before the collectives it was
    // last at (index = WorkKind; negative when it did less).
    std::array<core::DurationNs, kWorkKindCount> excessNs{};
    std::int32_t excessKernelCount = 0;
    std::vector<FrameTime> topHostFrames;  // its heaviest host frames in those segments
    std::vector<std::string> evidence;     // sentences with the numbers
    // "If this rank were on time": the job step time saved per step if this rank alone arrived
    // at each collective it is last at without its own lateness (the call then starts with the next
    // latest rank, so no more than the gap to that rank is saved). Other ranks' lateness stays.
    core::DurationNs whatIfSavingPerStepNs = 0;
    core::TimeRange showRange;            // job clock: the segment before its latest-by-most arrival
    std::vector<std::int64_t> lateSteps;  // step numbers where it was the last arriver
};

// "13.9 ms late per step from its own work (15.9 ms in all: ...)": its own lateness, and its whole
// arrival lateness (the rank table's late/step) where the two differ once printed.
std::string stragglerLateness(const Straggler& s);

// One step across ranks (steps matched by number).
struct JobStep {
    std::int64_t number = 0;
    std::vector<core::DurationNs> rankStepNs;  // index = position in JobReport::ranks; -1 missing
    std::vector<core::DurationNs> rankWaitNs;  // collective wait per rank in the step
    std::int32_t lastRank = -1;                // the rank last at the step's collectives (most late)
    core::DurationNs lastLateNs = 0;           // its lateness summed over the step's collectives
};

struct WhatIf {
    core::DurationNs measuredStepNs = 0;  // the job's step time (median over ranks of mean step)
    // "If every rank were on time": every rank arrives at every collective with the median rank.
    core::DurationNs idealStepNs = 0;
    core::DurationNs slowdownPerStepNs = 0;
    std::array<core::DurationNs, kWorkKindCount> savingByKindPerStepNs{};
    std::string basis;  // how it was computed, in one sentence
};

enum class JobBottleneck : std::uint8_t {
    Undetermined = 0,
    StragglerWait,         // communication time is mostly waiting for a late rank
    TransferBound,         // collectives transfer far below the link's bandwidth
    ExposedCommunication,  // communication not overlapped with compute
    RankBound,             // communication is minor: the ranks' own bottleneck decides
};
std::string_view toString(JobBottleneck bottleneck);     // "straggler-wait", ...
std::string_view displayName(JobBottleneck bottleneck);  // "Waiting for a late rank", ...

struct JobFix {
    std::string title;
    std::int32_t rank = -1;  // the rank to fix, -1 for every rank
    std::string detail;
    core::DurationNs predictedStepNs = 0;  // the job's step time after the fix, 0 when not predicted
    std::string basis;                     // how the prediction was made and its uncertainty
};

struct JobVerdict {
    JobBottleneck bottleneck = JobBottleneck::Undetermined;
    std::string rankVerdict;  // the per-rank verdict that decides for RankBound (most common)
    std::string headline;
    std::vector<std::string> evidence;
    std::vector<JobFix> fixes;
};

struct JobReport {
    std::vector<JobRank> ranks;    // by rank number
    std::int32_t medianRank = -1;  // the typical rank: its mean step is the median (lower middle)
    std::int32_t worldSize = 0;    // recorded world size (largest seen), else the number of ranks
    std::vector<std::int32_t> missingRanks;
    std::vector<RankProblem> problems;
    std::vector<std::string> warnings;
    std::string rankIdentityNote;  // "ranks from distributedInfo (2 files)"
    // Why the inputs do not look like the ranks of one job, "" when they may be (stages::notOneJobReason).
    std::string notOneJob;
    ClockAlignment clock;
    CollectiveMatching matching;
    std::vector<CollectiveInstance> collectives;  // by median start
    std::vector<CollectiveStats> collectiveStats;
    std::vector<Straggler> stragglers;  // worst first; empty when no rank is late beyond noise
    core::DurationNs noiseNs = 0;       // lateness below this per step is noise
    // Job clock time of the job's start (the earliest rank trace start): times shown to the user
    // are offsets from it, on the trace's own scale (never the clock's epoch).
    core::TimestampNs startNs = 0;
    std::vector<JobStep> steps;
    WhatIf whatIf;
    JobVerdict verdict;

    // Index in `ranks` of rank number `rank`, or -1.
    int indexOfRank(std::int32_t rank) const;
};

}  // namespace chokepoint::job

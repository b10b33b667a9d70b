#pragma once
// Statistics of one time range of a trace: what a profiler user reads after selecting a range
// (Shift+drag on the timeline, a step, an op, a bookmark).
//
// Per device with GPU work anywhere in the trace (or the one device asked for):
//   busy          |union of the device's kernels, memcpys and memsets| inside the range (the same
//                 union GpuTimeAccounting calls busy), busyShare = busy / range duration
//   idle          range duration - busy
//   idle by cause the analyzer's device-level idle intervals (GpuTimeAccountingResult::idleIntervals,
//                 streamId -1) clipped to the range and summed by cause; idle the analyzer did not
//                 list (outside the span of the steps, or gaps shorter than AccountingOptions::minIdleNs)
//                 is idleUnclassifiedNs, so the causes and it add up to idle. Without intervals all idle
//                 is unclassified.
//   kernels       grouped by short name (core::shortKernelName): count, total, mean, share of busy
//                 (total / busy; kernels on concurrent streams overlap, so shares can add up to more
//                 than 100 %)
//   copies        memcpys by direction and memsets: count, bytes, time
//   collectives   NCCL/RCCL collective kernels: count and time
// For the host: CPU ops grouped by name (count, total, mean; total is inclusive of nested ops).
//
// Clipping: an event partly inside the range counts once and contributes only its part inside the
// range to every time figure (total, mean, busy, idle); bytes are those of every copy or memset
// that overlaps the range, whole (a copy's bytes are not spread over its duration). An empty range
// (end <= start) gives zero figures; a range outside the trace gives no events and its devices
// 100 % idle (unclassified: the analyzer lists no gaps there).
// All times int64 ns on the trace clock. Pure function; linear in the events that start before the
// range's end, plus sorting the groups.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/metrics/GpuTimeAccounting.h"
#include "core/analysis/metrics/KernelClassifier.h"
#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

struct RangeKernelGroup {
    std::string shortName;       // core::shortKernelName of the kernels' names
    core::StringId exampleName;  // full name of the longest instance (the details show it)
    KernelClass kernelClass = KernelClass::Other;
    std::int64_t count = 0;
    core::DurationNs totalNs = 0;  // clipped to the range
    core::DurationNs meanNs = 0;   // totalNs / count
    double shareOfBusy = 0;        // totalNs / the device's busyNs (0 when the device is not busy)
    core::KernelId longest;        // the instance with the most time inside the range
};

struct RangeCopyGroup {
    bool memset = false;                                // a memset group (kind is then Unknown)
    core::MemcpyKind kind = core::MemcpyKind::Unknown;  // the copies' direction
    std::int64_t count = 0;
    std::int64_t sizeBytes = 0;    // bytes of every overlapping copy, whole
    core::DurationNs totalNs = 0;  // clipped, summed (not a union)
};

struct RangeDeviceStats {
    std::int16_t deviceIndex = 0;
    core::DurationNs busyNs = 0;
    double busyShare = 0;  // busyNs / the range's duration
    core::DurationNs idleNs = 0;
    std::array<core::DurationNs, kIdleCauseCount> idleByCauseNs{};  // index = IdleCause
    core::DurationNs idleUnclassifiedNs = 0;  // idle the analyzer did not list (see the file comment)
    std::vector<RangeKernelGroup> kernels;    // by totalNs descending
    std::int64_t kernelCount = 0;
    core::DurationNs kernelTimeNs = 0;   // summed clipped kernel durations (not a union)
    std::vector<RangeCopyGroup> copies;  // memcpy directions (by kind), then memsets
    std::int64_t collectiveCount = 0;    // collective kernels overlapping the range
    core::DurationNs collectiveNs = 0;   // their clipped durations, summed
};

struct RangeOpGroup {
    core::StringId name;
    core::CpuOpCategory category = core::CpuOpCategory::Operator;
    std::int64_t count = 0;
    core::DurationNs totalNs = 0;  // clipped, inclusive of nested ops
    core::DurationNs meanNs = 0;
    core::CpuOpId longest;  // the call with the most time inside the range
};

struct RangeStats {
    core::TimeRange range;
    core::DurationNs durationNs = 0;        // 0 for an empty range
    std::vector<RangeDeviceStats> devices;  // ascending device index
    std::vector<RangeOpGroup> cpuOps;       // by totalNs descending
    std::int64_t cpuOpCount = 0;
};

struct RangeStatsOptions {
    std::int16_t deviceIndex = -1;     // -1: every device with GPU work; else that device alone
    bool includePythonFrames = false;  // CPU op groups include Python stack frames
};

// The analyzer's results the statistics reuse; each may be null.
struct RangeStatsInputs {
    // Idle intervals with their causes (null: all idle is unclassified).
    const GpuTimeAccountingResult* accounting = nullptr;
    // Per-kernel classes (null: kernels are classified by name, as the analyzer does without ops).
    const KernelStatsResult* kernelStats = nullptr;
};

RangeStats computeRangeStats(const core::TraceModel& model, core::TimeRange range,
                             const RangeStatsInputs& inputs = {}, const RangeStatsOptions& options = {});

// Display name of a copy group: "Memcpy HtoD", "Memset".
std::string copyGroupName(const RangeCopyGroup& group);

}  // namespace chokepoint::analysis

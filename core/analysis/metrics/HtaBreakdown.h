#pragma once
// Holistic Trace Analysis (HTA 0.6.1) parity figures, computed with HTA's own definitions so our
// numbers can be compared with HTA's on the same window (see ../shared/traces/README.md):
//   * with >= 2 ProfilerStep#N ranges, HTA keeps only GPU work whose launch call (joined by
//     correlation id) starts before the start of the last ProfilerStep: later launches and GPU work
//     without a known launch call are dropped;
//   * times are whole microseconds as HTA ends up holding them: an op spans [ceil(start), floor(end))
//     in us (found by matching HTA's published figures on traces with fractional timestamps);
//   * window = last GPU op end - first GPU op start over all streams and devices (GPU op = kernel,
//     memcpy or memset);
//   * idle = window - |union of all GPU ops|; compute = |union of COMPUTATION ops|;
//     non-compute = window - idle - compute;
//   * op type by name only: COMMUNICATION = names starting "nccl" (or "hip"/"hccl" collectives) or
//     containing "ncclKernel"; MEMORY = memcpys/memsets and names starting "Memcpy"/"Memset"/"dma";
//     everything else COMPUTATION;
//   * per-stream idle split: for consecutive ops on a stream (sorted by start), gap = start - previous
//     end (may be negative); host_wait when the op's launch call started after the previous op ended,
//     else kernel_wait when gap < consecutiveKernelDelayNs, else other.
// Units: ns. Pure function, O(n log n).

#include <cstdint>
#include <vector>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

struct HtaOptions {
    // HTA's consecutive_kernel_delay default (30 trace units). Kineto timestamps are microseconds,
    // so 30 us; see README.md for how this was checked against HTA's published figures.
    core::DurationNs consecutiveKernelDelayNs = 30'000;
    // Round op times to whole microseconds the way HTA does ([ceil(start), floor(end)) in us).
    bool truncateToMicroseconds = true;
};

struct HtaStreamIdle {
    std::int16_t deviceIndex = 0;
    std::int32_t streamId = 0;
    std::int64_t opCount = 0;
    core::DurationNs busyNs = 0;  // sum of op durations on the stream
    core::DurationNs hostWaitNs = 0;
    core::DurationNs kernelWaitNs = 0;
    core::DurationNs otherNs = 0;
};

struct HtaBreakdown {
    bool hasGpuWork = false;
    bool droppedLastStep = false;  // the last-ProfilerStep rule applied
    core::TimeRange window;
    core::DurationNs windowNs = 0;
    core::DurationNs idleNs = 0;
    core::DurationNs computeNs = 0;
    core::DurationNs nonComputeNs = 0;
    std::vector<HtaStreamIdle> streams;  // by (device, stream)
    std::int32_t busiestStream = -1;     // index into streams with the largest busyNs, -1 if none

    double idlePercent() const { return percent(idleNs); }
    double computePercent() const { return percent(computeNs); }
    double nonComputePercent() const { return percent(nonComputeNs); }

private:
    double percent(core::DurationNs part) const {
        return windowNs > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(windowNs) : 0.0;
    }
};

HtaBreakdown computeHtaBreakdown(const core::TraceModel& model, const HtaOptions& options = {});

}  // namespace chokepoint::analysis

#pragma once
// The flat Ops table: CPU ops grouped by name (optionally name + input shapes), as the TensorBoard
// profiler's Operator view gave. Per group: calls, self and total CPU time, GPU kernel time the
// calls launched (inclusive of what they called), and the mean total per call. A recursive op
// counts every call's total (a call inside another call of the same op is counted in both).

#include <cstdint>
#include <vector>

#include "core/calltree/CallTreeOptions.h"
#include "core/model/TraceModel.h"

namespace chokepoint::calltree {

struct OpStatsRow {
    core::StringId name;
    core::StringId inputShapes;  // invalid unless grouped by input shapes
    core::CpuOpCategory category = core::CpuOpCategory::Operator;
    std::int64_t calls = 0;
    core::DurationNs selfNs = 0;
    core::DurationNs totalNs = 0;
    core::DurationNs gpuNs = 0;      // inclusive: kernels launched by the call and its callees
    core::DurationNs gpuSelfNs = 0;  // kernels launched directly by the call
    core::CpuOpId longestOp;
    core::DurationNs longestNs = 0;

    core::DurationNs meanTotalNs() const { return calls > 0 ? totalNs / calls : 0; }
};

struct OpStatsTable {
    std::vector<OpStatsRow> rows;          // by selfNs, largest first
    core::DurationNs topLevelTotalNs = 0;  // sum of the outermost ops' durations
};

// Linear in ops + kernels.
OpStatsTable buildOpStats(const core::TraceModel& model, const CallTreeOptions& options = {});

}  // namespace chokepoint::calltree

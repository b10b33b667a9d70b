#pragma once
// The measurement engine's single entry point: everything the diagnosis layer, CLI and GUI need
// from one trace, computed once. No I/O, no Qt; linear in events (sort + sweep + hash maps).

#include <string>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/metrics/CounterSummary.h"
#include "core/analysis/metrics/GpuTimeAccounting.h"
#include "core/analysis/metrics/HtaBreakdown.h"
#include "core/analysis/metrics/KernelClassifier.h"
#include "core/analysis/metrics/OpCost.h"
#include "core/analysis/metrics/PhaseDetection.h"
#include "core/analysis/metrics/Roofline.h"
#include "core/analysis/metrics/StackIdleProfile.h"
#include "core/analysis/metrics/StepDetection.h"
#include "core/analysis/metrics/StepTimes.h"
#include "core/analysis/metrics/TbPluginOverview.h"
#include "core/base/Progress.h"
#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

struct MetricsOptions {
    StepDetectionOptions steps;
    AccountingOptions accounting;
    HtaOptions hta;
    RooflineOptions roofline;
    // The TensorBoard plugin's Overview figures are a view (text report, JSON, GUI); no verdict reads
    // them. The job loader turns them off for its ranks, whose reports only feed the rank summaries.
    bool tensorBoardOverview = true;
};

struct TraceMetrics {
    bool hasGpuWork = false;
    core::TimeRange traceSpan;  // first to last event of the trace: every range shown lies inside
    StepsResult steps;
    StepTimeSummary stepTimes;  // the step time every output shows
    PhasesResult phases;
    KernelStatsResult kernels;
    GpuTimeAccountingResult accounting;
    StackIdleProfile stackIdle;  // the sampled frames that filled the GPU's idle (empty without samples)
    HtaBreakdown hta;
    TbPluginOverview tbPlugin;  // the TensorBoard profiler plugin's Overview figures
    OpCostResult opCosts;
    std::vector<CounterAverage> counters;
    RooflineResult roofline;
    std::vector<std::string> notes;  // what was missing or guessed, for the report
};

// Runs every stage. Returns Error{core::kCancelledMessage} when `progress` asks to stop.
// `device` may be null (no roofline ceilings, no bandwidth fractions).
core::Result<TraceMetrics> computeTraceMetrics(const core::TraceModel& model, const MetricsOptions& options,
                                               const DeviceSpec* device,
                                               const core::ProgressFn& progress = {});

}  // namespace chokepoint::analysis

#pragma once
// analyzeTrace: the whole analysis of one finalized trace — measurements (TraceMetrics), device
// match, MFU, D·A·M verdicts per step / phase / overall, the headline, fixes and warnings — as one
// immutable AnalysisReport. Pure: no I/O, no Qt. Linear in events (dominated by computeTraceMetrics).
//
// Cancellation: when `options.progress` returns false the call returns
// Error{core::kCancelledMessage}.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/devices/DeviceDatabase.h"
#include "core/analysis/diagnosis/AnalysisReport.h"
#include "core/analysis/diagnosis/DiagnosisConfig.h"
#include "core/analysis/metrics/TraceMetrics.h"
#include "core/base/Progress.h"
#include "core/base/Result.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

struct AnalysisOptions {
    // O_model per step: either FLOPs per step, or parameters and tokens per step (6·N·T).
    std::optional<double> modelFlopsPerStep;
    std::optional<double> parameterCount;
    std::optional<double> tokensPerStep;
    // Device: an explicit spec (e.g. the CLI's --device, or the device database's match) wins;
    // `deviceMethod` says how it was chosen ("override", "name", "properties"). Without one, MFU and
    // the roofline ceilings are not computed and the report says so.
    std::optional<DeviceSpec> device;
    std::string deviceMethod;
    // Else, with a device database: `deviceName` (id or name, e.g. "h100-sxm") is looked up, or the
    // trace's device is matched by name and properties. An unknown `deviceName` is an Error.
    const DeviceDatabase* devices = nullptr;
    std::string deviceName;
    // Memory capacity check (§2.3 step 0): the peak device memory the job needs (for example
    // torch.cuda.max_memory_allocated()), when the trace has no memory counter; and whether it hit
    // an out-of-memory error.
    std::optional<double> peakMemoryBytes;
    bool outOfMemoryObserved = false;
    std::optional<Precision> precision;  // precision of the peak for MFU; default: dominant op precision
    DiagnosisConfig config;
    MetricsOptions metrics;
    core::ProgressFn progress;
    // Analyse one GPU alone (its slice, AnalysisReport::scopeDeviceIndex); an Error when that GPU
    // has no work in the trace. Unset: the whole trace, verdicts for the busiest device.
    std::optional<std::int16_t> deviceIndex;
    // With GPU work on several devices: also analyse each device alone (AnalysisReport::
    // deviceReports). Costs one more analysis per device.
    bool perDeviceReports = true;
    // The file the user opened, shown in reports; empty: the path the trace recorded as its source
    // (a .cptrace converted from JSON records the JSON's path, synthetic traces record none).
    std::string sourcePath;
};

// The report refers to `model` (StringIds in metrics); keep the model alive while using them.
core::Result<std::shared_ptr<const AnalysisReport>> analyzeTrace(const core::TraceModel& model,
                                                                 const AnalysisOptions& options = {});
// Same, and the report keeps the model alive (report->model).
core::Result<std::shared_ptr<const AnalysisReport>> analyzeTrace(
    std::shared_ptr<const core::TraceModel> model, const AnalysisOptions& options = {});

}  // namespace chokepoint::analysis

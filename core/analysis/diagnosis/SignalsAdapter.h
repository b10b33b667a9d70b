#pragma once
// Fills DiagnosisSignals from the measurement engine's TraceMetrics for one device: per step, per
// phase kind (all steps together) and overall. Mapping (details in docs/ANALYSIS.md):
//   busy / compute / communication / copy / memset / exposed / idle   GpuTimeBreakdown shares
//   idle by cause                       GpuTimeBreakdown::idleByCauseNs (device-level idle)
//   CPU busy during gaps                coverage of the idle intervals with an explaining cause
//   kernel mix                          KernelStatsResult classes × kernel durations in the window
//   HBM bandwidth                       roofline step bandwidth (counters = measured; shape
//                                       estimate when ≥ half the kernels are costed), else the
//                                       share of busy time in memory-bound kernel classes
//   peak memory                         user value, else the peak of a bytes counter on the device
//                                       named like allocated/reserved/used memory
//   phases                              each phase's host span: device idle intervals inside it
//                                       and the kernels attributed to the phase
// Pure functions; linear in kernels + idle intervals.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/analysis/DeviceSpec.h"
#include "core/analysis/diagnosis/DiagnosisConfig.h"
#include "core/analysis/diagnosis/DiagnosisSignals.h"
#include "core/analysis/metrics/TraceMetrics.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

struct SignalsContext {
    const core::TraceModel* model = nullptr;
    const TraceMetrics* metrics = nullptr;
    const DeviceSpec* device = nullptr;  // may be null
    std::int16_t deviceIndex = 0;
    DiagnosisConfig config;
    std::optional<double> modelFlopsPerStep;  // for per-window MFU
    double peakFlopsPerSecond = 0;
    std::optional<double> parameterCount;
    std::optional<double> peakMemoryBytes;  // user-given; else the device's memory counter peak
    bool outOfMemoryObserved = false;
};

// The device the verdicts are about: the one with the most busy time (-1 when none).
std::int16_t busiestDevice(const TraceMetrics& metrics);
// "volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna" or "" from the trace's device info.
std::string architectureOf(const core::DeviceInfo& info);

// One entry per phase kind seen in the trace.
struct PhaseSignals {
    PhaseKind kind = PhaseKind::Forward;
    std::int64_t occurrences = 0;  // steps in which the phase was seen
    double cpuTimeNs = 0;
    double gpuTimeNs = 0;
    DiagnosisSignals signals;
};

struct TraceSignals {
    std::vector<DiagnosisSignals> steps;  // index = step index in metrics.steps
    DiagnosisSignals overall;
    std::vector<PhaseSignals> phases;
};

TraceSignals computeSignals(const SignalsContext& context);

}  // namespace chokepoint::analysis

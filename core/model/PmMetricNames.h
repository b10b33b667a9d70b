#pragma once
// Counter track names for CUPTI PM-sampling metrics. The agent's --gpu-metrics
// (collectors/agent/PmSampler.cpp, defaultPmMetrics) names its tracks "SM active", "DRAM
// throughput", ...; torch.profiler's own PM sampling (Kineto 2026, "ph": "C" events on pid
// "GPU N Counters") writes the raw CUPTI metric names. Mapping both to one name and unit lets the
// analysis (core/analysis/metrics/CounterSummary) read either source the same way.

#include <span>
#include <string>
#include <string_view>

namespace chokepoint::core {

// One CUPTI PM-sampling metric with its counter track name and unit. The literals are
// null-terminated, so the agent hands `cupti.data()` to CUPTI.
struct PmMetricInfo {
    std::string_view cupti;
    std::string_view name;
    std::string_view unit;
};

// The 17-metric GH100 set the agent samples by default (validated as one pass on GH100 with
// CUDA 13.0), in its order: the one list of these names, for the agent and the importers.
std::span<const PmMetricInfo> defaultPmMetricSet();

struct PmTrackName {
    std::string name;  // the agent's track name, or the CUPTI name when the metric is not one of its set
    std::string unit;  // "%", "bytes", "inst", "Hz", or "" when the name does not say
};

// The track name and unit for a CUPTI metric name ("gpu__dram_throughput.avg.pct_of_peak_sustained_
// elapsed" -> {"DRAM throughput", "%"}). Metrics outside the agent's set keep their CUPTI name, with
// the unit read from the name: ".pct_of_peak..." -> "%", ".per_second" -> "Hz", "bytes" -> "bytes".
PmTrackName pmTrackForMetric(std::string_view cuptiName);

}  // namespace chokepoint::core

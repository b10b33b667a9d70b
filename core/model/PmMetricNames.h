#pragma once
// Counter track names for CUPTI PM-sampling metrics. The agent's --gpu-metrics
// (collectors/agent/PmSampler.cpp, defaultPmMetrics) names its tracks "SM active", "DRAM
// throughput", ...; torch.profiler's own PM sampling (Kineto 2026, "ph": "C" events on pid
// "GPU N Counters") writes the raw CUPTI metric names. Mapping both to one name and unit lets the
// analysis (core/analysis/metrics/CounterSummary) read either source the same way.

#include <string>
#include <string_view>

namespace chokepoint::core {

struct PmTrackName {
    std::string name;  // the agent's track name, or the CUPTI name when the metric is not one of its set
    std::string unit;  // "%", "bytes", "inst", "Hz", or "" when the name does not say
};

// The track name and unit for a CUPTI metric name ("gpu__dram_throughput.avg.pct_of_peak_sustained_
// elapsed" -> {"DRAM throughput", "%"}). Metrics outside the agent's set keep their CUPTI name, with
// the unit read from the name: ".pct_of_peak..." -> "%", ".per_second" -> "Hz", "bytes" -> "bytes".
PmTrackName pmTrackForMetric(std::string_view cuptiName);

}  // namespace chokepoint::core

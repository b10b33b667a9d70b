#pragma once
// Hardware and host counter tracks (DRAM throughput, SM / tensor activity, CPU %) averaged per step.
// A sample at time t holds until the next sample (step function); the average over a window is the
// time-weighted mean of the samples' values inside it. Units are the track's own.

#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/metrics/StepDetection.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

enum class CounterKind : std::uint8_t {
    Other = 0,
    DramThroughput,  // "DRAM throughput", "dram__throughput", "HBM bandwidth", "mem bw"
    TensorActivity,  // "tensor active", "pipe_tensor", "Tensor Core"
    SmActivity,      // "SM active", "sm__throughput", "SM efficiency"
};

CounterKind classifyCounterName(const std::string& name);

struct CounterAverage {
    std::size_t track = 0;  // index into model.counters
    std::string name;
    std::string unit;
    CounterKind kind = CounterKind::Other;
    std::int16_t deviceIndex = -1;
    std::int32_t stepIndex = -1;  // -1: the whole trace
    double mean = 0;
    std::int64_t samples = 0;  // samples inside the window
};

// One row per (track, step) with samples in the step, plus one whole-trace row per track.
std::vector<CounterAverage> summarizeCounters(const core::TraceModel& model, const StepsResult& steps);

}  // namespace chokepoint::analysis

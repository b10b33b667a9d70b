#pragma once
// Hardware and host counter tracks (DRAM throughput, SM / tensor activity, CPU %) averaged per step.
// A sample at time t holds until the next sample (step function); the average over a window is the
// time-weighted mean of the samples' values inside it. Units are the track's own.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/metrics/StepDetection.h"
#include "core/model/TraceModel.h"

namespace chokepoint::analysis {

enum class CounterKind : std::uint8_t {
    Other = 0,
    DramThroughput,  // "DRAM throughput", "dram__throughput", "HBM bandwidth", "mem bw"
    TensorActivity,  // "tensor active", "pipe_tensor", "Tensor Core"
    SmActivity,      // "SM active", "SMs Active", "sm__throughput", "SM efficiency"
    PcieThroughput,  // "PCIe RX Throughput", "PCIe TX Throughput", "pcie read/write"
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

// Measured activity of one device in one window (stepIndex -1: the whole trace), from tracks in %
// (0..100, as Nsight Systems GPU_METRICS and CUPTI PM sampling report them), as fractions 0..1.
// DRAM: a total throughput track, else read + write (each a share of the same peak), capped at 1.
// PCIe: the busier direction (RX and TX each have their own peak). Unset when no such track.
struct MeasuredActivity {
    std::optional<double> smActive;
    std::optional<double> tensorActive;
    std::optional<double> dramThroughput;
    std::optional<double> pcieThroughput;
    bool any() const { return smActive || tensorActive || dramThroughput || pcieThroughput; }
};
MeasuredActivity measuredActivity(const std::vector<CounterAverage>& counters, std::int16_t deviceIndex,
                                  std::int32_t stepIndex);

}  // namespace chokepoint::analysis

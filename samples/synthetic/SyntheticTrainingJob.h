#pragma once
// Generates synthetic but realistic traces of a small transformer training loop, one per
// bottleneck, so the project can ship and test a sample before real captures exist. Every model it
// makes is labelled synthetic in its CaptureMetadata, and the GUI and CLI say so.
//
// The timings come from a simple cost model (FLOPs / achievable FLOP/s for GEMMs, bytes /
// achievable bandwidth for elementwise kernels, fixed CPU costs per launch), not from a GPU.

#include <cstdint>
#include <string_view>

#include "core/model/TraceModel.h"

namespace chokepoint::samples {

enum class SyntheticScenario {
    DataBound,       // num_workers=0, CPU-heavy transforms: the GPU waits for every batch
    DataBoundFixed,  // the same job with 4 workers, pinned memory and prefetching
    ComputeBound,    // large bf16 GEMMs back to back
    LaunchBound,     // tiny kernels, small batch: the CPU cannot launch fast enough
    MemoryBound,     // fp32 elementwise/normalization heavy, small hidden size
};

std::string_view scenarioName(SyntheticScenario scenario);  // "data-bound", ...

struct SyntheticOptions {
    SyntheticScenario scenario = SyntheticScenario::DataBound;
    int steps = 6;
    std::uint64_t seed = 1;  // jitter is deterministic for a given seed
};

// A finalized model with ProfilerStep#N ranges, CPU ops with input shapes, runtime calls,
// kernels, copies and one H100 device.
core::TraceModel makeSyntheticTrainingTrace(const SyntheticOptions& options);

}  // namespace chokepoint::samples

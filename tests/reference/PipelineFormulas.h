#pragma once
// Data-pipeline, overlap, gradient-accumulation and communication formulas of the seed spec (§1.6,
// §1.7, §1.8, §1.9). Rates in units per second (bytes/s, samples/s, tokens/s), times in seconds.

#include <cstdint>
#include <string>
#include <vector>

namespace chokepoint::analysis::formulas {

// --- Data pipeline (§1.6) ------------------------------------------------------------------------

// R_storage,eff = R_storage × F_access, F_access ≈ 0.1 for random access (L732).
double effectiveStorageBandwidth(double bandwidthBytesPerSecond, double accessFactor = 0.1);
// R_practical ≈ 0.5 × BW_theoretical (L778).
double practicalBandwidth(double theoreticalBytesPerSecond);
// Eq. 8: R_preprocessing = N_workers / T_transform (batches/s).
double preprocessingRate(double workers, double transformSecondsPerBatch);
// Time for `workers` parallel workers to process `items` at `itemsPerSecondPerWorker`.
double parallelProcessingSeconds(double items, double itemsPerSecondPerWorker, double workers);
// Throughput in samples/s of a step of `batch` samples lasting `stepSeconds`.
double samplesPerSecond(double batch, double stepSeconds);

// One stage of the input-to-accelerator chain with its sustainable rate.
struct PipelineStage {
    std::string name;
    double ratePerSecond = 0;
};
// Eq. 9/10: R = min over stages; the slowest stage is the bottleneck ("the system's throughput
// equals its bottleneck's throughput", L740).
struct PipelineThroughput {
    double ratePerSecond = 0;
    std::size_t bottleneckIndex = 0;
    std::string bottleneckName;
};
PipelineThroughput pipelineThroughput(const std::vector<PipelineStage>& stages);

// Eq. 11: accelerator utilization = R_pipeline / R_compute, capped at 1 (applies when the
// pipeline is slower than compute).
double utilizationFromRates(double pipelineRate, double computeRate);

// Eq. 13: overlapped stages take max(), serial stages the sum.
double overlappedIterationSeconds(const std::vector<double>& stageSeconds);
double serialIterationSeconds(const std::vector<double>& stageSeconds);
// (old − new) / old.
double reductionFraction(double before, double after);
// Eq. 15 design constraint: T_preprocessing < T_compute.
bool preprocessingKeepsUp(double preprocessingSeconds, double computeSeconds);
// Workers needed so that preprocessing keeps up: ceil(T_transform / T_compute) (§9.5).
std::int64_t requiredWorkers(double transformSecondsPerBatch, double computeSecondsPerBatch);

// --- Overlap / Amdahl (§1.7) ---------------------------------------------------------------------

// Standard Amdahl: speedup = 1 / ((1 − p) + p/s) [PROPOSAL in the spec].
double amdahlSpeedup(double fraction, double localSpeedup);
// Time saved by speeding stage `index` up by `speedup` (new = old / speedup) when the stages run
// serially (sum) or overlapped (max) (L912).
double stageSpeedupSavingSeconds(const std::vector<double>& stageSeconds, std::size_t index, double speedup,
                                 bool overlapped);

// --- Gradient accumulation (§1.8) ---------------------------------------------------------------

// Eq. 18: T_effective = k × T_micro + (k − 1) × T_sync.
double accumulationUpdateSeconds(double steps, double microSeconds, double syncSeconds);
// Effective batch = micro-batch × k × data-parallel workers.
double effectiveBatch(double microBatch, double accumulationSteps, double workers);
// k so that micro × k × workers reaches the target (rounded up).
std::int64_t accumulationStepsFor(double targetBatch, double microBatch, double workers);

// --- Communication (§1.9) ------------------------------------------------------------------------

// Ring AllReduce per-worker send volume: 2 (N − 1) / N × gradient bytes (L1789).
double ringAllReduceFactor(double workers);
double ringAllReduceBytes(double workers, double gradientBytes);
double transferSeconds(double bytes, double bandwidthBytesPerSecond);
// The network-wall test the classifier uses, networkWall, is in the product library
// (core/analysis/diagnosis/ComputeFormulas.h).
// Data-parallel speedup when a fraction r of each step is exposed communication: N × (1 − r).
double dataParallelSpeedup(double workers, double communicationFraction);

}  // namespace chokepoint::analysis::formulas

#pragma once
// Cost, energy, carbon and scaling-advice formulas of the seed spec (§1.10, §1.12, R4 format
// choice, R12 scale-out rules, Table 22). Seconds, hours, watts, kWh, kg CO₂, dollars.

#include <string>

namespace chokepoint::analysis::formulas {

constexpr double kSecondsPerHour = 3600.0;
constexpr double kSecondsPerDay = 86400.0;
constexpr double kSecondsPerYear = 365.25 * 86400.0;  // Julian year
constexpr double kCarbonKgPerKwh = 0.43;              // L1652
constexpr double kElectricityDollarsPerKwh = 0.10;    // L1651
constexpr double kHouseholdKwhPerMonth = 900.0;       // [DERIVED] 31,784.2 kWh = 35.3 months

// t = C / (R_peak × utilization × N_GPU) (L900–903). Seconds.
double trainingSeconds(double totalFlops, double peakFlopsPerSecond, double utilization, double gpus = 1);
// Rental: N_GPU × hours × $/GPU-hr. Purchase: N_GPU × unit price. Break-even = purchase / rental.
double rentalCostDollars(double gpus, double hours, double dollarsPerGpuHour);
double purchaseCostDollars(double gpus, double dollarsPerGpu);
double breakEvenRuns(double purchaseDollars, double rentalDollarsPerRun);
// E = (N_GPU × P_GPU + N_host × P_host) × hours (L1872). kWh.
double energyKwh(double gpus, double gpuWatts, double hosts, double hostWatts, double hours);
double carbonKg(double kwh, double kgPerKwh = kCarbonKgPerKwh);
double electricityDollars(double kwh, double dollarsPerKwh = kElectricityDollarsPerKwh);
// A quantity proportional to run time scales by oldUtilization / newUtilization (L2389).
double scaleByUtilization(double quantity, double oldUtilization, double newUtilization);

// --- Batch size and learning rate (§1.12, R9, R10) -----------------------------------------------

// Linear scaling rule: η_new = η_base × newBatch / baseBatch, valid up to the critical batch.
double linearScaledLearningRate(double baseLearningRate, double baseBatch, double newBatch);
// Updates per epoch scale by baseBatch / newBatch.
double updatesPerEpochRatio(double baseBatch, double newBatch);
// A batch increase without an LR increase leaves the run "throughput-healthy but
// optimization-starved" (L2167).
bool optimizationStarved(double baseBatch, double newBatch, double baseLearningRate, double newLearningRate);

// --- Scale-out advice (R12, Table 22) ------------------------------------------------------------

enum class ScaleRecommendation { SingleGpu, SingleNode, MultiNode, MultiNodeStreaming };
// Table 22: <1B params and <100 GB data → single GPU; 1–10B params, <1 TB → single node (1–8
// GPUs); >10B params → multi-node; >10 TB dataset → multi-node + streaming.
ScaleRecommendation scaleRecommendation(double parameterCount, double datasetBytes);
const char* toString(ScaleRecommendation recommendation);

enum class ParallelismChoice { DataParallel, ModelParallel };
// L1765: data parallelism when the model fits but training is too slow; model parallelism when the
// model does not fit.
ParallelismChoice parallelismChoice(bool modelFitsOnOneDevice);
const char* toString(ParallelismChoice choice);

// --- Precision choice (R4, Tables 11–12) --------------------------------------------------------

enum class WorkloadKind { Transformer, Cnn, Other };
enum class PrecisionChoice { Fp32, Fp16WithLossScaling, Bf16, Fp8TransformerEngine };
struct PrecisionAdvice {
    PrecisionChoice choice = PrecisionChoice::Fp32;
    std::string companions;  // what must come with it (loss scaling, clipping, per-tensor scaling)
};
// "Workload first, hardware second" (L1225). `architecture` is "volta", "ampere", "hopper",
// "blackwell", "cdna" or empty; small (<10M params) or stability-critical models stay FP32.
PrecisionAdvice precisionAdvice(WorkloadKind workload, const std::string& architecture, double parameterCount,
                                bool stabilityCritical, bool maximumThroughput);
const char* toString(PrecisionChoice choice);

}  // namespace chokepoint::analysis::formulas

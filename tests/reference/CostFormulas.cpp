#include "tests/reference/CostFormulas.h"

namespace chokepoint::analysis::formulas {

namespace {
double safeDivide(double numerator, double denominator) {
    return denominator > 0 ? numerator / denominator : 0.0;
}
}  // namespace

double trainingSeconds(double totalFlops, double peakFlopsPerSecond, double utilization, double gpus) {
    return safeDivide(totalFlops, peakFlopsPerSecond * utilization * gpus);
}

double rentalCostDollars(double gpus, double hours, double dollarsPerGpuHour) {
    return gpus * hours * dollarsPerGpuHour;
}

double purchaseCostDollars(double gpus, double dollarsPerGpu) {
    return gpus * dollarsPerGpu;
}

double breakEvenRuns(double purchaseDollars, double rentalDollarsPerRun) {
    return safeDivide(purchaseDollars, rentalDollarsPerRun);
}

double energyKwh(double gpus, double gpuWatts, double hosts, double hostWatts, double hours) {
    return (gpus * gpuWatts + hosts * hostWatts) * hours / 1000.0;
}

double carbonKg(double kwh, double kgPerKwh) {
    return kwh * kgPerKwh;
}

double electricityDollars(double kwh, double dollarsPerKwh) {
    return kwh * dollarsPerKwh;
}

double scaleByUtilization(double quantity, double oldUtilization, double newUtilization) {
    return quantity * safeDivide(oldUtilization, newUtilization);
}

double linearScaledLearningRate(double baseLearningRate, double baseBatch, double newBatch) {
    return baseLearningRate * safeDivide(newBatch, baseBatch);
}

double updatesPerEpochRatio(double baseBatch, double newBatch) {
    return safeDivide(baseBatch, newBatch);
}

bool optimizationStarved(double baseBatch, double newBatch, double baseLearningRate, double newLearningRate) {
    if (!(newBatch > baseBatch)) {
        return false;
    }
    // Anything short of the linear rule's LR counts; a tiny tolerance absorbs rounding.
    return newLearningRate < linearScaledLearningRate(baseLearningRate, baseBatch, newBatch) * 0.999;
}

ScaleRecommendation scaleRecommendation(double parameterCount, double datasetBytes) {
    if (datasetBytes > 10e12) {
        return ScaleRecommendation::MultiNodeStreaming;
    }
    if (parameterCount > 10e9) {
        return ScaleRecommendation::MultiNode;
    }
    if (parameterCount >= 1e9 || datasetBytes >= 100e9) {
        return ScaleRecommendation::SingleNode;
    }
    return ScaleRecommendation::SingleGpu;
}

const char* toString(ScaleRecommendation recommendation) {
    switch (recommendation) {
        case ScaleRecommendation::SingleGpu:
            return "single GPU";
        case ScaleRecommendation::SingleNode:
            return "single node (1-8 GPUs), model parallelism within the node";
        case ScaleRecommendation::MultiNode:
            return "multi-node";
        case ScaleRecommendation::MultiNodeStreaming:
            return "multi-node with streaming data";
    }
    return "unknown";
}

ParallelismChoice parallelismChoice(bool modelFitsOnOneDevice) {
    return modelFitsOnOneDevice ? ParallelismChoice::DataParallel : ParallelismChoice::ModelParallel;
}

const char* toString(ParallelismChoice choice) {
    return choice == ParallelismChoice::DataParallel ? "data parallelism"
                                                     : "model (tensor/pipeline) parallelism";
}

PrecisionAdvice precisionAdvice(WorkloadKind workload, const std::string& architecture, double parameterCount,
                                bool stabilityCritical, bool maximumThroughput) {
    PrecisionAdvice advice;
    if (stabilityCritical || (parameterCount > 0 && parameterCount < 10e6)) {
        advice.choice = PrecisionChoice::Fp32;
        advice.companions = "keep FP32: the setup cost may exceed the benefit under 10M parameters";
        return advice;
    }
    if (architecture == "volta") {
        // V100 has no BF16 (L1264).
        advice.choice = PrecisionChoice::Fp16WithLossScaling;
        advice.companions = "dynamic loss scaling (GradScaler), FP32 master weights, gradient clipping";
        return advice;
    }
    if (maximumThroughput && (architecture == "hopper" || architecture == "blackwell")) {
        advice.choice = PrecisionChoice::Fp8TransformerEngine;
        advice.companions = "TransformerEngine with per-tensor scaling: E4M3 forward, E5M2 gradients";
        return advice;
    }
    if (workload == WorkloadKind::Cnn) {
        advice.choice = PrecisionChoice::Fp16WithLossScaling;
        advice.companions = "dynamic loss scaling (GradScaler), FP32 master weights";
        return advice;
    }
    advice.choice = PrecisionChoice::Bf16;
    advice.companions = "autocast(dtype=torch.bfloat16); keep LayerNorm/softmax/loss in FP32";
    return advice;
}

const char* toString(PrecisionChoice choice) {
    switch (choice) {
        case PrecisionChoice::Fp32:
            return "FP32";
        case PrecisionChoice::Fp16WithLossScaling:
            return "FP16 + loss scaling";
        case PrecisionChoice::Bf16:
            return "BF16";
        case PrecisionChoice::Fp8TransformerEngine:
            return "FP8 (TransformerEngine)";
    }
    return "unknown";
}

}  // namespace chokepoint::analysis::formulas

#include "tests/reference/PipelineFormulas.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace chokepoint::analysis::formulas {

namespace {
double safeDivide(double numerator, double denominator) {
    return denominator > 0 ? numerator / denominator : 0.0;
}
}  // namespace

double effectiveStorageBandwidth(double bandwidthBytesPerSecond, double accessFactor) {
    return bandwidthBytesPerSecond * accessFactor;
}

double practicalBandwidth(double theoreticalBytesPerSecond) {
    return 0.5 * theoreticalBytesPerSecond;
}

double preprocessingRate(double workers, double transformSecondsPerBatch) {
    return safeDivide(workers, transformSecondsPerBatch);
}

double parallelProcessingSeconds(double items, double itemsPerSecondPerWorker, double workers) {
    return safeDivide(items, itemsPerSecondPerWorker * workers);
}

double samplesPerSecond(double batch, double stepSeconds) {
    return safeDivide(batch, stepSeconds);
}

PipelineThroughput pipelineThroughput(const std::vector<PipelineStage>& stages) {
    PipelineThroughput result;
    if (stages.empty()) {
        return result;
    }
    for (std::size_t i = 0; i < stages.size(); ++i) {
        if (i == 0 || stages[i].ratePerSecond < result.ratePerSecond) {
            result.ratePerSecond = stages[i].ratePerSecond;
            result.bottleneckIndex = i;
        }
    }
    result.bottleneckName = stages[result.bottleneckIndex].name;
    return result;
}

double utilizationFromRates(double pipelineRate, double computeRate) {
    return std::min(1.0, safeDivide(pipelineRate, computeRate));
}

double overlappedIterationSeconds(const std::vector<double>& stageSeconds) {
    return stageSeconds.empty() ? 0.0 : *std::max_element(stageSeconds.begin(), stageSeconds.end());
}

double serialIterationSeconds(const std::vector<double>& stageSeconds) {
    return std::accumulate(stageSeconds.begin(), stageSeconds.end(), 0.0);
}

double reductionFraction(double before, double after) {
    return safeDivide(before - after, before);
}

bool preprocessingKeepsUp(double preprocessingSeconds, double computeSeconds) {
    return preprocessingSeconds < computeSeconds;
}

std::int64_t requiredWorkers(double transformSecondsPerBatch, double computeSecondsPerBatch) {
    if (!(computeSecondsPerBatch > 0) || !(transformSecondsPerBatch > 0)) {
        return 1;
    }
    return std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(transformSecondsPerBatch / computeSecondsPerBatch - 1e-9)));
}

double amdahlSpeedup(double fraction, double localSpeedup) {
    const double p = std::clamp(fraction, 0.0, 1.0);
    if (!(localSpeedup > 0)) {
        return 1.0;
    }
    return 1.0 / ((1.0 - p) + p / localSpeedup);
}

double stageSpeedupSavingSeconds(const std::vector<double>& stageSeconds, std::size_t index, double speedup,
                                 bool overlapped) {
    if (index >= stageSeconds.size() || !(speedup > 0)) {
        return 0;
    }
    std::vector<double> after = stageSeconds;
    after[index] /= speedup;
    if (overlapped) {
        return overlappedIterationSeconds(stageSeconds) - overlappedIterationSeconds(after);
    }
    return serialIterationSeconds(stageSeconds) - serialIterationSeconds(after);
}

double accumulationUpdateSeconds(double steps, double microSeconds, double syncSeconds) {
    if (steps <= 0) {
        return 0;
    }
    return steps * microSeconds + (steps - 1.0) * syncSeconds;
}

double effectiveBatch(double microBatch, double accumulationSteps, double workers) {
    return microBatch * accumulationSteps * workers;
}

std::int64_t accumulationStepsFor(double targetBatch, double microBatch, double workers) {
    const double perStep = microBatch * workers;
    if (!(perStep > 0)) {
        return 0;
    }
    return static_cast<std::int64_t>(std::ceil(targetBatch / perStep - 1e-9));
}

double ringAllReduceFactor(double workers) {
    if (workers <= 0) {
        return 0;
    }
    return 2.0 * (workers - 1.0) / workers;
}

double ringAllReduceBytes(double workers, double gradientBytes) {
    return ringAllReduceFactor(workers) * gradientBytes;
}

double transferSeconds(double bytes, double bandwidthBytesPerSecond) {
    return safeDivide(bytes, bandwidthBytesPerSecond);
}

double dataParallelSpeedup(double workers, double communicationFraction) {
    return workers * (1.0 - std::clamp(communicationFraction, 0.0, 1.0));
}

}  // namespace chokepoint::analysis::formulas

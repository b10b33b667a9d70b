#include "tests/reference/MemoryFormulas.h"

#include <cmath>

namespace chokepoint::analysis::formulas {

double optimizerStateBytesPerParameter(OptimizerKind optimizer) {
    switch (optimizer) {
        case OptimizerKind::Sgd:
            return 0;
        case OptimizerKind::Momentum:
        case OptimizerKind::RmsProp:
            return 4;
        case OptimizerKind::Adam:
            return 8;  // m and v in FP32 (L429: 100M params → 800 MB)
    }
    return 0;
}

StaticMemory staticTrainingMemory(double parameterCount, const MemoryRecipe& recipe) {
    StaticMemory m;
    m.weightsBytes = parameterCount * recipe.weightBytesPerValue;
    m.gradientsBytes = parameterCount * recipe.gradientBytesPerValue;
    m.masterWeightsBytes = recipe.fp32MasterWeights ? parameterCount * 4.0 : 0.0;
    m.optimizerBytes = parameterCount * optimizerStateBytesPerParameter(recipe.optimizer);
    return m;
}

double simplifiedActivationBytes(double batch, double sequenceLength, double hiddenDim, double layers,
                                 double bytesPerValue, double activationFactor) {
    return batch * sequenceLength * hiddenDim * layers * bytesPerValue * activationFactor;
}

LayerActivations transformerLayerActivations(double batch, double sequenceLength, double hiddenDim,
                                             double heads, double bytesPerValue, double layerNormBytes) {
    LayerActivations a;
    a.attentionBytes = batch * sequenceLength * hiddenDim * 4.0 * bytesPerValue;
    a.ffnBytes = batch * sequenceLength * 4.0 * hiddenDim * bytesPerValue;
    a.scoresBytes = 5.0 * heads * sequenceLength * sequenceLength * batch;  // already bytes (L566)
    a.layerNormBytes = layerNormBytes;
    return a;
}

double checkpointMemoryLayers(double layers, double checkpoints) {
    if (checkpoints <= 0) {
        return layers;  // no checkpointing: all N_L layers are stored
    }
    return checkpoints + layers / checkpoints;
}

std::int64_t optimalCheckpointCount(double layers) {
    if (layers <= 0) {
        return 0;
    }
    return static_cast<std::int64_t>(std::llround(std::sqrt(layers)));
}

double checkpointMemorySavings(double layers, double checkpoints) {
    if (layers <= 0) {
        return 0;
    }
    return 1.0 - checkpointMemoryLayers(layers, checkpoints) / layers;
}

double standardAttentionBytesPerHead(double sequenceLength, double bytesPerValue) {
    return sequenceLength * sequenceLength * bytesPerValue;
}

double flashAttentionBytesPerHead(double sequenceLength, double headDim, double bytesPerValue) {
    return 3.0 * sequenceLength * headDim * bytesPerValue;
}

double attentionTileBytes(double tileSize, double bytesPerValue) {
    return tileSize * tileSize * bytesPerValue;
}

double prefetchBufferBatches(double numWorkers, double prefetchFactor) {
    return numWorkers * prefetchFactor;
}

double prefetchBufferBytes(double numWorkers, double prefetchFactor, double batchBytes) {
    return prefetchBufferBatches(numWorkers, prefetchFactor) * batchBytes;
}

double pipelineHostMemoryBytes(double prefetchBatches, double processingBatches, double transferBatches,
                               double batchBytes) {
    return (prefetchBatches + processingBatches + transferBatches) * batchBytes;
}

double tensorBytes(double elements, double bytesPerValue) {
    return elements * bytesPerValue;
}

}  // namespace chokepoint::analysis::formulas

#pragma once
// Training-memory formulas of the seed spec (§1.5): static state per parameter, transformer
// activations, checkpointing, attention footprints, prefetch buffers. All sizes in bytes (decimal
// GB = 1e9 bytes when printed); counts as doubles so billions of parameters do not overflow.

#include <cstdint>

namespace chokepoint::analysis::formulas {

enum class OptimizerKind { Sgd, Momentum, RmsProp, Adam };

// Optimizer state bytes per parameter kept in FP32 (Table 4: SGD 1×, Momentum/RMSprop 2×, Adam 3× of
// parameters + state, i.e. 0, 1 or 2 extra FP32 values).
double optimizerStateBytesPerParameter(OptimizerKind optimizer);

// How weights, gradients and master weights are stored.
struct MemoryRecipe {
    double weightBytesPerValue = 4;  // FP32 = 4, FP16/BF16 = 2
    double gradientBytesPerValue = 4;
    bool fp32MasterWeights = false;  // mixed precision keeps an FP32 copy (4 B/param)
    OptimizerKind optimizer = OptimizerKind::Adam;
};

// The non-activation part of M_total = M_weights + M_gradients + M_optimizer + M_activations (L540).
struct StaticMemory {
    double weightsBytes = 0;
    double gradientsBytes = 0;
    double masterWeightsBytes = 0;
    double optimizerBytes = 0;
    double totalBytes() const { return weightsBytes + gradientsBytes + masterWeightsBytes + optimizerBytes; }
};
StaticMemory staticTrainingMemory(double parameterCount, const MemoryRecipe& recipe);

// Simplified transformer activation estimate (L843): B × S × H × L × bytes × factor.
double simplifiedActivationBytes(double batch, double sequenceLength, double hiddenDim, double layers,
                                 double bytesPerValue, double activationFactor);

// GPT-2 style per-layer activation terms (L564–568).
struct LayerActivations {
    double attentionBytes = 0;  // B·S·d·4 values (Q, K, V, output)
    double ffnBytes = 0;        // B·S·4d values
    double scoresBytes = 0;     // 5 × heads × S² × B bytes (score, softmax, dropout)
    double layerNormBytes = 0;  // given (≈10 MB in the text)
    double totalBytes() const { return attentionBytes + ffnBytes + scoresBytes + layerNormBytes; }
};
LayerActivations transformerLayerActivations(double batch, double sequenceLength, double hiddenDim,
                                             double heads, double bytesPerValue, double layerNormBytes);

// Checkpointing with k checkpoints over N_L layers (Table 15): memory in units of one layer's
// activations A is k + N_L/k; the optimum is k = √N_L rounded to the nearest integer (L1477).
double checkpointMemoryLayers(double layers, double checkpoints);
std::int64_t optimalCheckpointCount(double layers);
// Fraction of activation memory saved: 1 − (k + N_L/k)/N_L.
double checkpointMemorySavings(double layers, double checkpoints);

// Attention footprints (L1289, L1317).
double standardAttentionBytesPerHead(double sequenceLength, double bytesPerValue);  // S² × bytes
double flashAttentionBytesPerHead(double sequenceLength, double headDim, double bytesPerValue);  // 3·S·d_head
double attentionTileBytes(double tileSize, double bytesPerValue);  // b × b × bytes

// Host memory for the DataLoader window: num_workers × prefetch_factor batches (L1076).
double prefetchBufferBatches(double numWorkers, double prefetchFactor);
double prefetchBufferBytes(double numWorkers, double prefetchFactor, double batchBytes);
// Eq. 14: (N_prefetch + N_processing + N_transfer) × M_batch.
double pipelineHostMemoryBytes(double prefetchBatches, double processingBatches, double transferBatches,
                               double batchBytes);

// A dense tensor's size: elements × bytes.
double tensorBytes(double elements, double bytesPerValue);

// The capacity check the classifier uses, fitsInMemory, is in the product library
// (core/analysis/diagnosis/ComputeFormulas.h).

}  // namespace chokepoint::analysis::formulas

#pragma once
// Compute-side reference arithmetic of the seed spec the analyzer does not use (§1.1 iron law,
// §1.3 FLOPs of layers, §1.4 arithmetic intensity and roofline regimes, §1.11 wave quantization):
// test-only. The formulas the analyzer uses are in core/analysis/diagnosis/ComputeFormulas.h, and
// ridgePoint here is the roofline's one ridge (core/analysis/metrics/Roofline.h ridgeFlopsPerByte).

#include <cstdint>

#include "core/analysis/diagnosis/ComputeFormulas.h"

namespace chokepoint::analysis::formulas {

// --- Iron law (§1.1) -----------------------------------------------------------------------------

// Simplified iron law, eq. 1: T = O / (R_peak × η_hw). Seconds.
double ironLawSeconds(double totalFlops, double peakFlopsPerSecond, double utilization);

// General form with three additive cost terms: T = D_vol/BW + O/(R_peak·η_hw) + L_lat. Seconds.
struct IronLawTerms {
    double dataSeconds = 0;     // D_vol / BW
    double computeSeconds = 0;  // O / (R_peak · η_hw)
    double latencySeconds = 0;  // L_lat
    double totalSeconds() const { return dataSeconds + computeSeconds + latencySeconds; }
};
IronLawTerms ironLawGeneral(double dataBytes, double bandwidthBytesPerSecond, double totalFlops,
                            double peakFlopsPerSecond, double utilization, double latencySeconds);

// The η_hw implied by a measured time: O / (R_peak × T).
double impliedUtilization(double totalFlops, double peakFlopsPerSecond, double seconds);

// --- FLOPs of layers (§1.3) ------------------------------------------------------------------------

// Step FLOPs = 3 × forward FLOPs (forward + 2× for backward).
double trainingStepFlopsFromForward(double forwardFlops);
// Dense layer N×M at batch B: N·M·B multiply-accumulates; 2 FLOPs per MAC.
double denseLayerMacs(double inputs, double outputs, double batch);
double flopsFromMacs(double macs);

// Per-layer forward FLOPs of a transformer block.
struct TransformerLayerFlops {
    double qkvProjection = 0;     // 2·3·B·S·d²
    double attentionScores = 0;   // QKᵀ: 2·B·h·S²·d_head
    double attentionValues = 0;   // A×V: same as QKᵀ
    double outputProjection = 0;  // 2·B·S·d²
    double ffn = 0;               // ≈16·B·S·d² (expansion 4)
    double total() const {
        return qkvProjection + attentionScores + attentionValues + outputProjection + ffn;
    }
};
TransformerLayerFlops transformerLayerForwardFlops(double batch, double sequenceLength, double hiddenDim,
                                                   double heads, double headDim);

// --- Arithmetic intensity and roofline (§1.4) -----------------------------------------------------

// AI = FLOPs / bytes moved (FLOP/byte).
double arithmeticIntensity(double flops, double bytes);
// Ridge point = R_peak / BW_mem (FLOP/byte): the roofline's ridgeFlopsPerByte.
double ridgePoint(double peakFlopsPerSecond, double bandwidthBytesPerSecond);
// attainable = min(R_peak, AI × BW_mem) (FLOP/s).
double attainableFlopsPerSecond(double intensity, double peakFlopsPerSecond, double bandwidthBytesPerSecond);

enum class RooflineRegime { Unknown, MemoryBound, ComputeBound };
// Below the ridge → memory-bound, at or above → compute-bound.
RooflineRegime rooflineRegime(double intensity, double ridge);
const char* toString(RooflineRegime regime);

// Materialized attention score path: 2·S²·d_head FLOPs over 4·S² bytes = d_head / 2.
double materializedAttentionIntensity(double headDim);
// Worst-case bandwidth demand when every FLOP needs fresh operands: R × bytes per operand.
double worstCaseBandwidthDemand(double flopsPerSecond, double bytesPerOperand);

// --- Wave quantization (§1.11, Table 6) -----------------------------------------------------------

struct WaveQuantization {
    std::int64_t units = 0;      // warps (or waves) needed: ceil(work / width)
    double laneUtilization = 0;  // work / (width × units)
    double relativeTime = 0;     // time relative to one full unit (time scales with units, not work)
};
WaveQuantization waveQuantization(std::int64_t work, std::int64_t width = 32);

}  // namespace chokepoint::analysis::formulas

#pragma once
// Compute-side formulas of the seed spec (§1.1 iron law, §1.2 MFU, §1.3 FLOPs accounting, §1.4
// arithmetic intensity and the roofline, §1.11 wave quantization), and the two checks the
// classifier makes with them (capacity, network wall). Pure functions on doubles. The spec's other
// reference arithmetic (memory, pipeline, cost) is not part of the product: it lives with its
// tests in tests/reference/. The roofline's ridge is defined once, in core/analysis/metrics/Roofline.h
// (ridgeFlopsPerByte); ridgePoint below is that function.
// Units: FLOPs (count), FLOP/s, bytes, seconds. Decimal units throughout (1 TFLOP/s = 1e12 FLOP/s).
// A non-positive denominator yields 0 rather than inf/NaN, so callers can print "unknown".

#include <cstdint>

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

// --- MFU / HFU (§1.2) ----------------------------------------------------------------------------

// MFU = O_model / (R_peak · T_step), Definition 1.4. O_model excludes recomputation and padding.
double modelFlopsUtilization(double modelFlopsPerStep, double peakFlopsPerSecond, double stepSeconds);
// HFU = (O_model + O_recompute + O_padding) / (R_peak · T_step) [PROPOSAL name, §1.2].
double hardwareFlopsUtilization(double hardwareFlopsPerStep, double peakFlopsPerSecond, double stepSeconds);

// The seed's reference bands for MFU (L957, L959; §9.1).
enum class MfuBand {
    Unknown,                   // no MFU
    Addressable,               // < 30 %: "a specific addressable bottleneck"
    TypicalProduction,         // 30–50 %
    BetweenTypicalAndCeiling,  // 50–55 %: the text leaves it unnamed; we call it "above typical"
    PracticalCeiling,          // 55–65 %: FlashAttention + tuned batch
    Suspicious,                // > 65 % and < 100 %
    Impossible,                // >= 100 %: measurement error
};
MfuBand mfuBand(double mfu);
const char* toString(MfuBand band);

// --- FLOPs accounting (§1.3) ---------------------------------------------------------------------

// C_train ≈ 6 × N_params × N_tokens (L900); also the per-step O_model with tokens per step.
double trainingFlops(double parameterCount, double tokens);
// Forward pass ≈ 2 FLOPs per parameter per token.
double forwardFlopsPerToken(double parameterCount);
// Step FLOPs = 3 × forward FLOPs (forward + 2× for backward).
double trainingStepFlopsFromForward(double forwardFlops);
// Dense layer N×M at batch B: N·M·B multiply-accumulates; 2 FLOPs per MAC.
double denseLayerMacs(double inputs, double outputs, double batch);
double flopsFromMacs(double macs);

// Per-layer forward FLOPs of a transformer block (napkin 1.1, L257–265).
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
// Below the ridge → memory-bound, at or above → compute-bound (L647).
RooflineRegime rooflineRegime(double intensity, double ridge);
const char* toString(RooflineRegime regime);

// Materialized attention score path: 2·S²·d_head FLOPs over 4·S² bytes = d_head / 2 (L645).
double materializedAttentionIntensity(double headDim);
// Worst-case bandwidth demand when every FLOP needs fresh operands: R × bytes per operand (L1230).
double worstCaseBandwidthDemand(double flopsPerSecond, double bytesPerOperand);

// Speedup of a step from a faster peak when only `computeBoundShare` of the step scales with the
// peak (Amdahl, §1.7 [PROPOSAL]); memory- and data-bound time does not move (T04, L650, L762).
double peakUpgradeSpeedup(double computeBoundShare, double peakRatio);

// --- Checks the classifier makes ------------------------------------------------------------------

// Does `requiredBytes` fit into `capacityBytes` keeping `headroomFraction` free? (The memory-capacity
// verdict's test.)
bool fitsInMemory(double requiredBytes, double capacityBytes, double headroomFraction = 0.0);
// The network is a wall when communication takes longer than computation (the communication
// verdict's network-wall evidence).
bool networkWall(double communicationSeconds, double computeSeconds);

// --- Wave quantization (§1.11, Table 6) -----------------------------------------------------------

struct WaveQuantization {
    std::int64_t units = 0;      // warps (or waves) needed: ceil(work / width)
    double laneUtilization = 0;  // work / (width × units)
    double relativeTime = 0;     // time relative to one full unit (time scales with units, not work)
};
WaveQuantization waveQuantization(std::int64_t work, std::int64_t width = 32);

}  // namespace chokepoint::analysis::formulas

#pragma once
// The formulas the analyzer uses (the spec's §1.2 MFU, §1.3 FLOPs accounting, §1.7 Amdahl), and the
// two checks the classifier makes with them (capacity, network wall). Pure functions on doubles.
// Units: FLOPs (count), FLOP/s, bytes, seconds. Decimal units throughout (1 TFLOP/s = 1e12 FLOP/s).
// A non-positive denominator yields 0 rather than inf/NaN, so callers can print "unknown".
// The roofline's ridge is defined once, in core/analysis/metrics/Roofline.h (ridgeFlopsPerByte).
// The spec's other reference arithmetic (iron-law forms, transformer FLOPs, wave quantization,
// memory sizing, input pipeline, cost) is not part of the product: it lives with its tests in
// tests/reference/.

namespace chokepoint::analysis::formulas {

// --- MFU / HFU (§1.2) ----------------------------------------------------------------------------

// MFU = O_model / (R_peak · T_step), Definition 1.4. O_model excludes recomputation and padding.
double modelFlopsUtilization(double modelFlopsPerStep, double peakFlopsPerSecond, double stepSeconds);
// HFU = (O_model + O_recompute + O_padding) / (R_peak · T_step) [PROPOSAL name, §1.2].
double hardwareFlopsUtilization(double hardwareFlopsPerStep, double peakFlopsPerSecond, double stepSeconds);

// The reference bands for MFU (§9.1).
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

// C_train ≈ 6 × N_params × N_tokens; also the per-step O_model with tokens per step.
double trainingFlops(double parameterCount, double tokens);
// Forward pass ≈ 2 FLOPs per parameter per token.
double forwardFlopsPerToken(double parameterCount);

// Speedup of a step from a faster peak when only `computeBoundShare` of the step scales with the
// peak (Amdahl, §1.7 [PROPOSAL]); memory- and data-bound time does not move.
double peakUpgradeSpeedup(double computeBoundShare, double peakRatio);

// --- Checks the classifier makes ------------------------------------------------------------------

// Does `requiredBytes` fit into `capacityBytes` keeping `headroomFraction` free? (The memory-capacity
// verdict's test.)
bool fitsInMemory(double requiredBytes, double capacityBytes, double headroomFraction = 0.0);
// The network is a wall when communication takes longer than computation (the communication
// verdict's network-wall evidence).
bool networkWall(double communicationSeconds, double computeSeconds);

}  // namespace chokepoint::analysis::formulas

#pragma once
// A D·A·M verdict: the bottleneck class of one window with the evidence that decided it, a
// confidence, the signals that were missing, and the share of the window each constraint holds.
//
// Classes (§2.1 Table 7 plus §2.2, §2.5, §9.4): Data-bound (Data axis), compute-bound (Algorithm
// axis), memory-bandwidth-bound (Machine axis, M-bw), memory-capacity-bound (Machine axis, M-cap),
// and, outside Table 7, communication-bound, launch-overhead-bound, host-bound (the host runs work
// that launches nothing) and copy-bound (exposed host-device transfers fill the busy time; Data
// axis, since they move the input, docs/ANALYSIS.md), and mixed compute/memory-bound (a busy GPU
// with its kernel time split near-evenly across the ridge).

#include <string>
#include <string_view>
#include <vector>

namespace chokepoint::analysis {

enum class Bottleneck {
    Undetermined = 0,  // the trace does not show why the GPU idles (missing host activity)
    NoGpuActivity,     // nothing ran on a GPU
    Data,
    Compute,
    MemoryBandwidth,
    MemoryCapacity,
    Communication,
    LaunchOverhead,
    HostBound,  // the host runs work that launches nothing (Python, compilation, checkpointing, GC)
    CopyBound,  // exposed host<->device copies (H2D/D2H not overlapped by kernels) fill the window
    // A busy GPU whose kernel time sits on both sides of the ridge in near-equal parts (compute-bound
    // and memory-bound shares within DiagnosisConfig::mixedBoundMargin, estimated from kernel
    // classes): neither class can be claimed, both shares are reported (docs/ANALYSIS.md).
    ComputeMemoryMixed,
};
inline constexpr int kBottleneckCount = 11;

enum class DamAxis { None = 0, Data, Algorithm, Machine, Communication, Overhead };

std::string_view toString(Bottleneck bottleneck);     // "data-bound", "compute-bound", ...
std::string_view displayName(Bottleneck bottleneck);  // "Data-bound", "Compute-bound (Algorithm)", ...
std::string_view toString(DamAxis axis);              // "Data", "Algorithm", ...
DamAxis axisOf(Bottleneck bottleneck);
// A kernel or op name as evidence text quotes it: at most `maxBytes`, cut at a UTF-8 character
// boundary with "..." appended (templated kernel names run to thousands of characters).
std::string evidenceName(std::string_view name, std::size_t maxBytes = 70);

// One number that took part in the decision.
struct Evidence {
    std::string signal;      // "busyFraction", "idleDataWaitFraction"
    double value = 0;        // in the signal's unit (fractions 0..1)
    std::string comparison;  // ">", ">=", "<", "<=", "" when informative only
    double threshold = 0;
    bool passed = false;     // the comparison held
    bool estimated = false;  // the value is an estimate (no counter)
    std::string note;        // human-readable, e.g. "GPU busy 93.1 % > 90 %"
};

// Share of the window held by one constraint (the scorecard row, §2.4 [PROPOSAL]).
struct ConstraintShare {
    Bottleneck bottleneck = Bottleneck::Undetermined;
    double shareOfWindow = 0;
    bool thresholdHit = false;
};

struct Verdict {
    std::string scope;  // copied from the signals
    Bottleneck bottleneck = Bottleneck::Undetermined;
    DamAxis axis = DamAxis::None;
    double confidence = 0;  // 0..1
    std::string rationale;  // one sentence: why this class
    // Compute-bound with an MFU above the typical production band (over 50 %, up to the 65 % where an
    // MFU becomes suspicious): nothing cheap is left. Never claimed without an MFU (an FP32
    // CUDA-core GEMM job at 4 % MFU is compute-bound, not done) nor at a typical 30-50 %.
    bool desiredEndState = false;
    std::vector<Evidence> evidence;
    std::vector<std::string> missingSignals;  // what would have made the verdict firmer
    std::vector<ConstraintShare> shares;      // every constraint with a measurable share, largest first
    std::vector<Bottleneck> secondary;        // other active constraints (share ≥ secondaryMinFraction)

    // "high" (≥ 0.75), "medium" (≥ 0.5) or "low".
    std::string_view confidenceLabel() const;
    double shareOf(Bottleneck b) const;
};

}  // namespace chokepoint::analysis

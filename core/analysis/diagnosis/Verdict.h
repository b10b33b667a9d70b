#pragma once
// A D·A·M verdict: the bottleneck class of one window with the evidence that decided it, a
// confidence, the signals that were missing, and the share of the window each constraint holds.
//
// Classes (§2.1 Table 7 plus §2.2, §2.5, §9.4): Data-bound (Data axis), compute-bound (Algorithm
// axis), memory-bandwidth-bound (Machine axis, M-bw), memory-capacity-bound (Machine axis, M-cap),
// and, outside Table 7, communication-bound and launch-overhead-bound.

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
};
inline constexpr int kBottleneckCount = 8;

enum class DamAxis { None = 0, Data, Algorithm, Machine, Communication, Overhead };

std::string_view toString(Bottleneck bottleneck);     // "data-bound", "compute-bound", ...
std::string_view displayName(Bottleneck bottleneck);  // "Data-bound", "Compute-bound (Algorithm)", ...
std::string_view toString(DamAxis axis);              // "Data", "Algorithm", ...
DamAxis axisOf(Bottleneck bottleneck);

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
    double confidence = 0;         // 0..1
    std::string rationale;         // one sentence: why this class
    bool desiredEndState = false;  // compute-bound is the desired endpoint (L1631)
    std::vector<Evidence> evidence;
    std::vector<std::string> missingSignals;  // what would have made the verdict firmer
    std::vector<ConstraintShare> shares;      // every constraint with a measurable share, largest first
    std::vector<Bottleneck> secondary;        // other active constraints (share ≥ secondaryMinFraction)

    // "high" (≥ 0.75), "medium" (≥ 0.5) or "low".
    std::string_view confidenceLabel() const;
    double shareOf(Bottleneck b) const;
};

}  // namespace chokepoint::analysis

#pragma once
// What a fix rule reads and writes while the engine walks the rule table (FixRules.h): the verdict,
// its signals and thresholds, the plan being built, and the gain models the rules share
// (docs/ANALYSIS.md, "Predicted gains"). Internal to chokepoint_diagnosis.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/analysis/diagnosis/DiagnosisConfig.h"
#include "core/analysis/diagnosis/DiagnosisSignals.h"
#include "core/analysis/diagnosis/FixEngine.h"
#include "core/analysis/diagnosis/Verdict.h"

namespace chokepoint::analysis {

// "12.5 %" and "61 ms", as the fix texts print them.
std::string fixPct(double fraction);
std::string fixDuration(double ns);
namespace fixrules {
inline std::string pct(double fraction) {
    return fixPct(fraction);
}
inline std::string duration(double ns) {
    return fixDuration(ns);
}
}  // namespace fixrules

// A fix that changes the peak the MFU is measured against: a faster part (R13), or tensor cores at
// 16 bits (R4). The MFU after it is over the new peak: the same FLOPs in a shorter step on a larger
// denominator, labelled ("of the BF16 tensor-core peak").
struct PeakChange {
    double ratio = 1.0;  // new peak / the peak the MFU is measured against now
    std::string label;   // "the faster part's 2.0x peak"
};

class FixContext {
public:
    FixContext(const Verdict& verdict, const DiagnosisSignals& signals, const DiagnosisConfig& config);

    const Verdict& verdict() const { return m_v; }
    const DiagnosisSignals& signals() const { return m_s; }
    const DiagnosisConfig& config() const { return m_c; }
    // The step the gains are computed on: the mean step, or the window for one step.
    double stepNs() const { return m_stepNs; }
    FixPlan& plan() { return m_plan; }
    const FixPlan& plan() const { return m_plan; }

    // The rule's decision: not shown (and why), or shown with its recommendation (titled from the table).
    void skip(const std::string& id, std::string reason);
    void show(Recommendation r, std::string reason);

    // A rule's code snippet from resources/fixes/<name>.py, with "{arch}"-style fields filled in.
    static std::string snippet(std::string_view name,
                               const std::vector<std::pair<std::string_view, std::string>>& fields = {});

    // A prediction: the step after the fix and the range it may fall in.
    struct Prediction {
        double afterNs = 0;
        double lowNs = 0;
        double highNs = 0;
    };

    // The host's critical path per step: the work the launching threads do outside data loading and
    // blocking waits (0 when the trace records no host activity).
    double hostPathNs() const { return m_s.hostWorkFraction.value_or(0.0) * m_stepNs; }
    // A fix that shortens the GPU's path by `savedNs` (between savedLowNs and savedHighNs; negative
    // lengthens it): the step cannot get shorter than the host's launch path.
    Prediction gpuSideFix(double savedLowNs, double savedNs, double savedHighNs) const;
    // "; the host's launch path (40 ms of work per step) binds: ..." when it does.
    std::string hostBoundNote(double savedNs) const;
    // The step after a fix that removes the data-wait idle (R1-R3), on the step's critical path:
    // the longer of the GPU's path (busy time plus the idle the fix leaves) and the host's (its
    // launch-path work, which stays on the training thread).
    Prediction dataFix(std::string& basis, std::string& uncertainty) const;
    // peak: the fix changes the peak the MFU is measured against (PeakChange above).
    ExpectedGain gainOf(Prediction p, bool upperBound, std::string basis, std::string uncertainty,
                        const PeakChange& peak = {}) const;
    // Host work that launches nothing moved off the step (R15): the host's path shortens with it,
    // so only the GPU's busy time bounds the step.
    ExpectedGain hostIdleGain(double savedNs, bool upperBound, const std::string& basis) const;
    // Exposed host-device copies overlapped or removed (R17): a GPU-side saving.
    ExpectedGain copyGain(double savedNs, bool upperBound, const std::string& basis) const;
    // Under-occupied kernels spread over every SM (R16): a GPU-side saving, an upper bound.
    ExpectedGain occupancyGain(double savedNs, bool upperBound, const std::string& basis) const;
    // A GPU-side fix saving savedNs (savedLowNs..savedHighNs) of the GPU's path, bounded by the host.
    ExpectedGain gpuGain(double savedLowNs, double savedNs, double savedHighNs, bool upperBound,
                         const std::string& basis, std::string uncertainty,
                         const PeakChange& peak = {}) const;

    double share(Bottleneck b) const { return m_v.shareOf(b); }
    // A mixed verdict heads both of its classes.
    bool headline(Bottleneck b) const;
    bool active(Bottleneck b) const;
    // Kernel time of the step (the kernel-mix shares are shares of it): busy time without copies
    // and memsets, i.e. compute plus the communication compute does not hide.
    double kernelTimeNs() const;

private:
    const Verdict& m_v;
    const DiagnosisSignals& m_s;
    const DiagnosisConfig& m_c;
    double m_stepNs = 0;
    FixPlan m_plan;
};

}  // namespace chokepoint::analysis

#include "core/analysis/diagnosis/FixContext.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/analysis/diagnosis/FixRules.h"
#include "core/analysis/diagnosis/FixSnippets.h"
#include "core/base/Format.h"

namespace chokepoint::analysis {

std::string fixPct(double fraction) {
    return core::formatPercent(fraction);
}

std::string fixDuration(double ns) {
    return core::formatDuration(static_cast<core::DurationNs>(std::llround(ns)));
}

namespace {

std::string_view titleOf(std::string_view id) {
    const FixRule* rule = findFixRule(id);
    return rule != nullptr ? rule->title : id;
}

std::string duration(double ns) {
    return fixDuration(ns);
}

}  // namespace

FixContext::FixContext(const Verdict& verdict, const DiagnosisSignals& signals, const DiagnosisConfig& config)
    : m_v(verdict), m_s(signals), m_c(config) {
    m_stepNs = signals.stepTimeNs > 0 ? signals.stepTimeNs : signals.windowNs;
}

void FixContext::skip(const std::string& id, std::string reason) {
    m_plan.decisions.push_back({id, std::string(titleOf(id)), false, std::move(reason)});
}

void FixContext::show(Recommendation r, std::string reason) {
    // A fix whose best case leaves the step as it is is no recommendation: "13.4 ms -> 13.4 ms
    // (range 13.4 ms - 13.4 ms) (1.00x)" (R16 on a 0.4 %-busy trace, the host bounding the step).
    // Capacity fixes are the exception: they make the job fit and cost time on purpose (R7, R8).
    constexpr double kNoMeasurableGain = 0.005;
    if (r.target != Bottleneck::MemoryCapacity && r.gain.computed && r.gain.stepTimeBeforeNs > 0 &&
        r.gain.stepTimeLowNs >= r.gain.stepTimeBeforeNs * (1.0 - kNoMeasurableGain)) {
        skip(r.ruleId,
             reason + ", but even its best case shortens the step by under 0.5 % (" + r.gain.summary + ")");
        return;
    }
    r.title = std::string(titleOf(r.ruleId));
    m_plan.decisions.push_back({r.ruleId, r.title, true, std::move(reason)});
    m_plan.recommendations.push_back(std::move(r));
}

std::string FixContext::snippet(std::string_view name,
                                const std::vector<std::pair<std::string_view, std::string>>& fields) {
    std::string text(fixSnippet(name));
    for (const auto& [field, value] : fields) {
        const std::string placeholder = "{" + std::string(field) + "}";
        for (std::size_t at = text.find(placeholder); at != std::string::npos;
             at = text.find(placeholder, at + value.size())) {
            text.replace(at, placeholder.size(), value);
        }
    }
    return text;
}

FixContext::Prediction FixContext::gpuSideFix(double savedLowNs, double savedNs, double savedHighNs) const {
    const double host = hostPathNs();
    return {std::max(m_stepNs - savedNs, host), std::max(m_stepNs - savedHighNs, host),
            std::max(m_stepNs - savedLowNs, host)};
}

// "; the host's launch path (40 ms of work per step) binds: ..." when it does.
std::string FixContext::hostBoundNote(double savedNs) const {
    const double host = hostPathNs();
    if (host <= m_stepNs - savedNs) {
        return "";
    }
    return "; the host's launch path binds: the busiest launching thread works " + duration(host) +
           " per step outside data loading and waits, so the step cannot get shorter than that";
}

// The step after a fix that removes the data-wait idle (R1-R3), on the step's critical path:
// the longer of the GPU's path (busy time plus the idle the fix leaves) and the host's (its
// launch-path work, which stays on the training thread).
FixContext::Prediction FixContext::dataFix(std::string& basis, std::string& uncertainty) const {
    const double dataWait = m_s.idleDataWaitFraction * m_stepNs;
    const double busy = m_s.busyFraction * m_stepNs;
    const double hostGaps = (m_s.idleLaunchOverheadFraction + m_s.idleSyncFraction) * m_stepNs;
    const double gpuPath = m_stepNs - dataWait;
    const double host = hostPathNs();
    basis = "critical path: the step after the fix is the longer of the GPU's path, busy " + duration(busy) +
            " + the idle this fix leaves " + duration(std::max(0.0, gpuPath - busy)) + " = " +
            duration(gpuPath) + ", and the host's launch path, " +
            (m_s.hostWorkFraction ? duration(host) +
                                        " of framework, Python and launch work per step outside data "
                                        "loading and waits on the busiest launching thread"
                                  : std::string("not recorded in this trace")) +
            "; the " + (host > gpuPath ? "host's" : "GPU's") + " path binds";
    // Only the parts there are: "synchronization 0 ns" reads as a measurement of nothing.
    std::string hostIdle;
    for (const auto& [label, fraction] : {std::pair{"launch ", m_s.idleLaunchOverheadFraction},
                                          std::pair{"synchronization ", m_s.idleSyncFraction}}) {
        if (fraction * m_stepNs >= 1e3) {
            hostIdle += (hostIdle.empty() ? "" : ", ") + std::string(label) + duration(fraction * m_stepNs);
        }
    }
    uncertainty =
        hostIdle.empty()
            ? std::string(
                  "low end: the longer of GPU busy and the host's path; high end: the expected step, as "
                  "no launch or synchronization idle is left to grow")
            : "low end: the idle the host still causes (" + hostIdle +
                  " per step) disappears as well, leaving the longer of GPU busy and the host's path; "
                  "high end: that idle doubles, as when loader worker processes compete with the training "
                  "thread for CPU cores";
    return {std::max(gpuPath, host), std::max(busy, host), std::max(gpuPath + hostGaps, host)};
}

ExpectedGain FixContext::gainOf(Prediction p, bool upperBound, std::string basis, std::string uncertainty,
                                const PeakChange& peak) const {
    const double peakRatio = peak.ratio > 0 ? peak.ratio : 1.0;
    ExpectedGain g;
    g.computed = m_stepNs > 0;
    g.stepTimeBeforeNs = m_stepNs;
    const double floorNs = m_stepNs * 0.01;
    g.stepTimeAfterNs = std::max(p.afterNs, floorNs);
    g.stepTimeLowNs = std::min(std::max(p.lowNs, floorNs), g.stepTimeAfterNs);
    g.stepTimeHighNs = std::max(std::max(p.highNs, floorNs), g.stepTimeAfterNs);
    // "At most" is the gain's best case: not when the range reaches below it ("at most: 77.5 ms ->
    // 70.6 ms (range 63.7 ms - 77.5 ms)" read as a bound the range then broke).
    g.upperBound = upperBound && g.stepTimeLowNs >= g.stepTimeAfterNs - 1.0;
    g.speedup = g.stepTimeAfterNs > 0 ? g.stepTimeBeforeNs / g.stepTimeAfterNs : 1.0;
    if (m_s.mfu) {
        g.mfuBefore = *m_s.mfu;
        g.mfuAfter = *m_s.mfu * g.speedup / peakRatio;  // same model FLOPs in a shorter step
    }
    const bool mfuImpossible = g.mfuAfter && *g.mfuAfter >= 1.0;
    g.summary = std::string(g.upperBound ? "at most: " : "") + "step time " + duration(g.stepTimeBeforeNs) +
                " -> " + duration(g.stepTimeAfterNs);
    if (g.stepTimeHighNs - g.stepTimeLowNs >= 1.0) {
        g.summary += " (range " + duration(g.stepTimeLowNs) + " - " + duration(g.stepTimeHighNs) + ")";
    }
    if (mfuImpossible) {
        // The model FLOPs given cannot fit the shorter step on this peak: do not print an MFU
        // above 100 %, say what is inconsistent instead.
        g.mfuAfter.reset();
        g.summary += ", MFU " + core::formatSmallPercent(*g.mfuBefore) +
                     " -> over 100 % (the model FLOPs or the peak are off)";
    } else if (g.mfuBefore) {
        g.summary += ", MFU " + core::formatSmallPercent(*g.mfuBefore) + " -> " +
                     core::formatSmallPercent(*g.mfuAfter);
        if (peakRatio != 1.0) {
            // A larger peak lowers MFU while it shortens the step: it grows more than the step shrinks.
            g.summary += " of " + (peak.label.empty() ? "a " + core::formatFixed(peakRatio, 1) + "x peak"
                                                      : peak.label);
        }
    }
    g.summary += " (" + core::formatFixed(g.speedup, 2) + "x)";
    g.basis = std::move(basis);
    g.uncertainty = std::move(uncertainty);
    return g;
}

// Host work that launches nothing moved off the step (R15): the host's path shortens with it,
// so only the GPU's busy time bounds the step.
ExpectedGain FixContext::hostIdleGain(double savedNs, bool upperBound, const std::string& basis) const {
    const double busy = m_s.busyFraction * m_stepNs;
    const double after = std::max(m_stepNs - savedNs, busy);
    return gainOf({after, after, m_stepNs}, upperBound,
                  basis + "; the step cannot get shorter than the GPU's busy time",
                  "high end: no gain, when the work still runs on the training thread between launches");
}
// Exposed host-device copies overlapped or removed (R17): a GPU-side saving.
ExpectedGain FixContext::copyGain(double savedNs, bool upperBound, const std::string& basis) const {
    return gpuGain(0, savedNs, savedNs, upperBound, basis,
                   "low end: no gain, when each copy's data is needed at once (a synchronization follows "
                   "it) and nothing can overlap it");
}
// Under-occupied kernels spread over every SM (R16): a GPU-side saving, an upper bound.
ExpectedGain FixContext::occupancyGain(double savedNs, bool upperBound, const std::string& basis) const {
    return gpuGain(0, savedNs, savedNs, upperBound, basis,
                   "low end: no gain, when the kernels are memory-bound and already saturate DRAM");
}

// A GPU-side fix saving savedNs (savedLowNs..savedHighNs) of the GPU's path, bounded by the host.
ExpectedGain FixContext::gpuGain(double savedLowNs, double savedNs, double savedHighNs, bool upperBound,
                                 const std::string& basis, std::string uncertainty,
                                 const PeakChange& peak) const {
    return gainOf(gpuSideFix(savedLowNs, savedNs, savedHighNs), upperBound, basis + hostBoundNote(savedNs),
                  std::move(uncertainty), peak);
}

// A mixed verdict heads both of its classes.
bool FixContext::headline(Bottleneck b) const {
    return m_v.bottleneck == b || (m_v.bottleneck == Bottleneck::ComputeMemoryMixed &&
                                   (b == Bottleneck::Compute || b == Bottleneck::MemoryBandwidth));
}
bool FixContext::active(Bottleneck b) const {
    return headline(b) || std::find(m_v.secondary.begin(), m_v.secondary.end(), b) != m_v.secondary.end();
}
// Kernel time of the step (the kernel-mix shares are shares of it): busy time without copies
// and memsets, i.e. compute plus the communication compute does not hide.
double FixContext::kernelTimeNs() const {
    const double kernels = m_s.computeFraction + m_s.exposedCommunicationFraction;
    return std::clamp(kernels > 0 ? kernels : m_s.busyFraction, 0.0, m_s.busyFraction) * m_stepNs;
}

}  // namespace chokepoint::analysis

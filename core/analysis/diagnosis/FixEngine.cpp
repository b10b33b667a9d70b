#include "core/analysis/diagnosis/FixEngine.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/diagnosis/FixContext.h"
#include "core/analysis/diagnosis/FixRules.h"
#include "core/base/Format.h"

namespace chokepoint::analysis {

std::string_view toString(IronLawTerm term) {
    switch (term) {
        case IronLawTerm::Utilization:
            return "utilization up";
        case IronLawTerm::PeakThroughput:
            return "peak throughput up";
        case IronLawTerm::TotalOperations:
            return "total operations up";
        case IronLawTerm::MemoryTraffic:
            return "memory traffic down, utilization up";
    }
    return "utilization up";
}

const Recommendation* FixPlan::find(std::string_view ruleId) const {
    for (const Recommendation& r : recommendations) {
        if (r.ruleId == ruleId) {
            return &r;
        }
    }
    return nullptr;
}

const RuleDecision* FixPlan::decision(std::string_view ruleId) const {
    for (const RuleDecision& d : decisions) {
        if (d.ruleId == ruleId) {
            return &d;
        }
    }
    return nullptr;
}

namespace {

// What a constraint's share of the step is made of, for the next-bottleneck line.
std::string_view constraintWhat(Bottleneck b) {
    switch (b) {
        case Bottleneck::Data:
            return "the input pipeline (data wait)";
        case Bottleneck::Compute:
            return "compute-bound kernels";
        case Bottleneck::MemoryBandwidth:
            return "memory-bandwidth-bound kernels";
        case Bottleneck::Communication:
            return "communication";
        case Bottleneck::LaunchOverhead:
            return "launch overhead";
        case Bottleneck::HostBound:
            return "host work";
        case Bottleneck::CopyBound:
            return "copies";
        default:
            return toString(b);
    }
}

// The next bottleneck from this trace's own shares: the largest constraint the first fix leaves,
// with its share of today's step and of the step the fix predicts. "" when no other constraint
// holds a measurable share.
std::string measuredNextBottleneck(const Verdict& v, const FixPlan& plan) {
    if (plan.recommendations.empty()) {
        return {};
    }
    const Recommendation& first = plan.recommendations.front();
    // A mixed verdict's fix (fusing memory-bound kernels) moves time between the two kernel classes,
    // so neither's share of today's step predicts what is left: the walkthrough's expectation stays.
    if (v.bottleneck == Bottleneck::ComputeMemoryMixed) {
        return {};
    }
    constexpr double kMeasurableShare = 0.01;
    // A fix on the peak (R4's tensor cores, R13's faster part) works on compute-bound kernel time
    // whatever class it is listed under: that time is not "left as it is".
    const bool actsOnCompute = first.term == IronLawTerm::PeakThroughput;
    const ConstraintShare* next = nullptr;
    for (const ConstraintShare& share : v.shares) {
        if (share.bottleneck == v.bottleneck || share.bottleneck == first.target ||
            (actsOnCompute && share.bottleneck == Bottleneck::Compute) ||
            share.bottleneck == Bottleneck::Undetermined || share.bottleneck == Bottleneck::NoGpuActivity ||
            share.shareOfWindow < kMeasurableShare) {
            continue;
        }
        if (next == nullptr || share.shareOfWindow > next->shareOfWindow) {
            next = &share;
        }
    }
    if (next == nullptr) {
        return {};
    }
    std::string out = std::string(constraintWhat(next->bottleneck)) + " (" +
                      core::formatPercent(next->shareOfWindow) + " of the step now";
    const ExpectedGain& gain = first.gain;
    if (gain.computed && gain.stepTimeAfterNs > 0 && gain.stepTimeBeforeNs > gain.stepTimeAfterNs) {
        const double after =
            std::min(1.0, next->shareOfWindow * gain.stepTimeBeforeNs / gain.stepTimeAfterNs);
        out += ", about " + core::formatPercent(after) + " of the " +
               core::formatDuration(static_cast<core::DurationNs>(std::llround(gain.stepTimeAfterNs))) +
               " step " + first.ruleId + " predicts, if it leaves them as they are";
    }
    return out + ")";
}

// The re-profile prompt and the likely next bottleneck (§9.9): measured from the trace's shares
// where it can be, else the walkthrough's expectation per class.
std::string nextStep(const Verdict& v, const FixPlan& plan) {
    std::string first = plan.recommendations.empty() ? std::string("a fix") : plan.recommendations[0].ruleId;
    std::string next = measuredNextBottleneck(v, plan);
    if (!next.empty() && v.bottleneck != Bottleneck::Undetermined) {
        return "Apply " + first + ", then re-profile. Likely next bottleneck: " + next + ".";
    }
    switch (v.bottleneck) {
        case Bottleneck::Data:
            next = "memory-bandwidth-bound kernels or compute";
            break;
        case Bottleneck::Compute:
            next = "the data pipeline or memory-bandwidth-bound activation kernels";
            break;
        case Bottleneck::MemoryBandwidth:
            next = "compute-bound, the desired end state";
            break;
        case Bottleneck::MemoryCapacity:
            next = "the data pipeline";
            break;
        case Bottleneck::Communication:
            next = "compute or the data pipeline";
            break;
        case Bottleneck::LaunchOverhead:
            next = "compute-bound kernels";
            break;
        case Bottleneck::HostBound:
            next = "launch overhead or the kernels themselves";
            break;
        case Bottleneck::CopyBound:
            next = "the kernels themselves (compute or memory bandwidth) once the copies overlap them";
            break;
        case Bottleneck::ComputeMemoryMixed:
            next = "compute-bound once the memory-bound kernels are fused";
            break;
        case Bottleneck::Undetermined:
        case Bottleneck::NoGpuActivity:
            return "Record host activity (CPU ops, Python functions, DataLoader ranges) and re-profile.";
    }
    return "Apply " + first + ", then re-profile. Likely next bottleneck: " + next + ".";
}

}  // namespace

// R14: the shown fixes ordered (headline class first, in its per-class order from the rule
// table; then by share of the step), and the conflicts the table names between shown rules.
void fixrules::orderAndCompose(FixContext& ctx) {
    const Verdict& v = ctx.verdict();
    FixPlan& plan = ctx.plan();
    // Busy > 90 % makes the verdict compute-bound even when memory-bound kernels hold more of the
    // step (§2.3, Run A); the fixes still start with the constraint holding the largest share
    // (R14), then the verdict's own.
    std::vector<Bottleneck> leadClasses = {v.bottleneck};
    if (v.bottleneck == Bottleneck::Compute && !v.shares.empty() &&
        v.shares.front().bottleneck != v.bottleneck &&
        v.shares.front().shareOfWindow > v.shareOf(v.bottleneck)) {
        leadClasses.insert(leadClasses.begin(), v.shares.front().bottleneck);
    }
    const auto rank = [&](const Recommendation& r) {
        for (std::size_t lead = 0; lead < leadClasses.size(); ++lead) {
            const bool mixedLead =
                leadClasses[lead] == Bottleneck::ComputeMemoryMixed &&
                (r.target == Bottleneck::Compute || r.target == Bottleneck::MemoryBandwidth);
            if (r.target == leadClasses[lead] || mixedLead) {
                const std::vector<std::string_view>& classOrder = headlineOrder(leadClasses[lead]);
                const auto it = std::find(classOrder.begin(), classOrder.end(), r.ruleId);
                return static_cast<int>(lead * 20) + static_cast<int>(it - classOrder.begin());
            }
        }
        return 100;
    };
    std::stable_sort(plan.recommendations.begin(), plan.recommendations.end(),
                     [&](const Recommendation& a, const Recommendation& b) {
                         const int ra = rank(a), rb = rank(b);
                         if (ra != rb) {
                             return ra < rb;
                         }
                         if (a.targetShare != b.targetShare) {
                             return a.targetShare > b.targetShare;  // dominant constraint first
                         }
                         return a.gain.speedup > b.gain.speedup;
                     });

    // Fixes that target the same constraint and predict the same step remove the same time
    // (prefetching, faster decoding and faster storage all end the one data wait): not additive.
    constexpr double kSameStepTolerance = 0.005;
    const auto sameStep = [&](double a, double b) {
        return std::abs(a - b) <= kSameStepTolerance * std::max(a, b);
    };
    for (std::size_t i = 1; i < plan.recommendations.size(); ++i) {
        Recommendation& later = plan.recommendations[i];
        for (std::size_t j = 0; j < i && later.gain.computed; ++j) {
            const Recommendation& earlier = plan.recommendations[j];
            if (earlier.target == later.target && earlier.gain.computed && earlier.sameGainAs.empty() &&
                sameStep(earlier.gain.stepTimeAfterNs, later.gain.stepTimeAfterNs) &&
                sameStep(earlier.gain.stepTimeLowNs, later.gain.stepTimeLowNs) &&
                sameStep(earlier.gain.stepTimeHighNs, later.gain.stepTimeHighNs)) {
                later.sameGainAs = earlier.ruleId;
                break;
            }
        }
    }

    std::string order;
    for (const Recommendation& r : plan.recommendations) {
        order += (order.empty() ? "" : ", ") + r.ruleId;
    }
    RuleDecision d{"R14", std::string(findFixRule("R14")->title), !plan.recommendations.empty(),
                   plan.recommendations.empty()
                       ? "nothing to order"
                       : "applied: " + order +
                             " (headline first, then by share of the step; one fix at a time, "
                             "then re-profile)"};
    for (const FixRule& rule : fixRules()) {
        if (rule.conflictsWith.empty() || plan.find(rule.id) == nullptr) {
            continue;
        }
        const bool conflicting =
            std::any_of(rule.conflictsWith.begin(), rule.conflictsWith.end(),
                        [&](std::string_view other) { return plan.find(other) != nullptr; });
        if (conflicting) {
            d.reason += "; conflict: " + std::string(rule.conflict);
        }
    }
    plan.decisions.push_back(std::move(d));
}

FixPlan recommendFixes(const Verdict& verdict, const DiagnosisSignals& signals,
                       const DiagnosisConfig& config) {
    FixContext ctx(verdict, signals, config);
    FixPlan& plan = ctx.plan();
    if (verdict.bottleneck == Bottleneck::NoGpuActivity) {
        for (const FixRule& rule : fixRules()) {
            plan.decisions.push_back({std::string(rule.id), std::string(rule.title), false,
                                      "no GPU activity in the trace: nothing to speed up"});
        }
        plan.nextStep = "Profile a window where the training loop runs on the GPU.";
        return plan;
    }
    for (const FixRuleStage stage : {FixRuleStage::Evaluate, FixRuleStage::Compose}) {
        for (const FixRule& rule : fixRules()) {
            if (rule.stage == stage) {
                rule.apply(ctx);
            }
        }
    }
    plan.nextStep = nextStep(verdict, plan);
    return std::move(plan);
}

std::string explain(const FixPlan& plan) {
    std::string out;
    for (const RuleDecision& d : plan.decisions) {
        out += d.ruleId + " " + d.title + ": " + (d.shown ? "shown: " : "not shown: ") + d.reason + "\n";
    }
    return out;
}

}  // namespace chokepoint::analysis

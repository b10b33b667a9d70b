#include "core/analysis/diagnosis/FixEngine.h"

#include <algorithm>
#include <cmath>

#include "core/analysis/diagnosis/FixContext.h"
#include "core/analysis/diagnosis/FixRules.h"

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

// The re-profile prompt and the likely next bottleneck (§9.9).
std::string nextStep(const Verdict& v, const FixPlan& plan) {
    std::string first = plan.recommendations.empty() ? std::string("a fix") : plan.recommendations[0].ruleId;
    std::string next;
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

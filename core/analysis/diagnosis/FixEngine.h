#pragma once
// Recommended fixes: the seed spec's rules R1–R14 (§3) applied to one verdict and its signals.
//
// Each rule has a guard (when it applies, and the §3 / §9.8 "do not apply" conditions). A rule
// whose guard fails is not shown; FixPlan::decisions records why, for every rule (explain()).
// Each shown recommendation names the bottleneck it targets, the iron-law term it moves (Table 1),
// the evidence, an expected gain computed from this trace's own numbers (step time before/after,
// MFU before/after when MFU is known; labelled "at most" when it is an upper bound), costs and
// risks, required companions, and a concrete PyTorch change.
//
// Ordering (R14): fixes for the headline verdict first, in the per-class order documented in
// docs/ANALYSIS.md (high impact / low complexity first, L1046; L1842 order for capacity); then
// fixes for secondary constraints by their share of the step (dominant first, L2218).
// Pure function.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/diagnosis/DiagnosisConfig.h"
#include "core/analysis/diagnosis/DiagnosisSignals.h"
#include "core/analysis/diagnosis/Verdict.h"

namespace chokepoint::analysis {

// The iron-law term a technique moves (Table 1).
enum class IronLawTerm { Utilization, PeakThroughput, TotalOperations, MemoryTraffic };
std::string_view toString(IronLawTerm term);

struct ExpectedGain {
    bool computed = false;    // derived from this trace's numbers
    bool upperBound = false;  // "at most": assumes the targeted time disappears entirely
    double stepTimeBeforeNs = 0;
    double stepTimeAfterNs = 0;
    std::optional<double> mfuBefore;
    std::optional<double> mfuAfter;
    double speedup = 1;   // before / after
    std::string summary;  // "step time 61 ms → 38 ms, MFU 21 % → 34 %"
    std::string basis;    // how it was computed, with the seed's figures used
};

struct Recommendation {
    std::string ruleId;  // "R1"
    std::string title;
    Bottleneck target = Bottleneck::Undetermined;
    IronLawTerm term = IronLawTerm::Utilization;
    double targetShare = 0;  // share of the step held by the targeted constraint
    std::string evidence;
    ExpectedGain gain;
    std::string costs;
    std::string risks;
    std::vector<std::string> companions;  // required companions (R14.4 / §9.8)
    std::string pytorchChange;            // a code snippet
    std::string seedReferences;           // "L1056, L1066, L1620"
};

struct RuleDecision {
    std::string ruleId;
    std::string title;
    bool shown = false;
    std::string reason;  // why it is shown, or which guard failed
};

struct FixPlan {
    std::vector<Recommendation> recommendations;  // ordered, best first
    std::vector<RuleDecision> decisions;          // R1..R14, one each
    std::string nextStep;                         // re-profile prompt and the likely next bottleneck (§9.9)

    const Recommendation* find(std::string_view ruleId) const;
    const RuleDecision* decision(std::string_view ruleId) const;
};

FixPlan recommendFixes(const Verdict& verdict, const DiagnosisSignals& signals,
                       const DiagnosisConfig& config = {});

// One line per rule: "R5 FlashAttention: not shown: no materialized attention (softmax 0.0 % ...)".
std::string explain(const FixPlan& plan);

}  // namespace chokepoint::analysis

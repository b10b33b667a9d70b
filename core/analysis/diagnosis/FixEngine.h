#pragma once
// Recommended fixes: the rules R1–R18 (docs/ANALYSIS.md, "Recommended fixes") applied to one verdict
// and its signals. The rules are one table (FixRules.h, FixRuleTable.cpp) that recommendFixes
// walks; their code snippets are resources/fixes/*.py, compiled in.
//
// Each rule has a guard (when it applies, and its "do not apply" conditions). A rule whose guard
// fails is not shown; FixPlan::decisions records why, for every rule (explain()). Each shown
// recommendation names the bottleneck it targets, the iron-law term it moves, the evidence, an
// expected gain computed from this trace's own numbers (step time before/after, MFU before/after
// when MFU is known; labelled "at most" when it is an upper bound) with its basis and its
// uncertainty (a range for the step time), costs and risks, required companions, a concrete
// PyTorch change, and public references.
//
// Predictions follow the step's critical path (docs/ANALYSIS.md, "Predicted gains"): after a fix
// the step is bounded below by the GPU's path (its busy time plus the idle the fix leaves) and by
// the host's (the work the fix leaves on the threads that launch the GPU's work); the prediction
// is the larger of the two. A fix that makes the GPU faster cannot take the step below the host's
// launch path, and a fix that removes data-wait idle leaves the host's framework and launch work.
//
// Ordering (R14): fixes for the headline verdict first, in the per-class order documented in
// docs/ANALYSIS.md (high impact / low complexity first; for capacity: precision, accumulation,
// checkpointing, then sharding); then fixes for secondary constraints by their share of the step
// (dominant first). Pure function.

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
    bool computed = false;  // derived from this trace's numbers
    // "at most": assumes the targeted time disappears entirely, and the range reaches no lower.
    bool upperBound = false;
    double stepTimeBeforeNs = 0;
    double stepTimeAfterNs = 0;
    // The range the step time after the fix may fall in (stepTimeLowNs <= after <= stepTimeHighNs),
    // from the uncertainty of the model's inputs; equal to stepTimeAfterNs when not computed.
    double stepTimeLowNs = 0;
    double stepTimeHighNs = 0;
    std::optional<double> mfuBefore;
    std::optional<double> mfuAfter;
    double speedup = 1;       // before / after
    std::string summary;      // "step time 61 ms -> 38 ms (range 35 ms - 45 ms), MFU 21 % -> 34 %"
    std::string basis;        // how it was computed: the model, its inputs, which bound binds
    std::string uncertainty;  // what the range comes from
};

struct Recommendation {
    std::string ruleId;  // "R1"
    std::string title;
    Bottleneck target = Bottleneck::Undetermined;
    IronLawTerm term = IronLawTerm::Utilization;
    double targetShare = 0;  // share of the step held by the targeted constraint
    std::string evidence;
    ExpectedGain gain;
    // An earlier fix that removes the same time with the same predicted step ("R1"), "" when none:
    // both end the same wait or work, so their gains do not add up.
    std::string sameGainAs;
    std::string costs;
    std::string risks;
    std::vector<std::string> companions;  // required companions (R14.4 / §9.8)
    std::string pytorchChange;            // a code snippet
    std::string references;               // public sources: papers, PyTorch documentation
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

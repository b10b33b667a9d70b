#pragma once
// The fix rules as a table: one entry per rule, in the order FixPlan::decisions lists them. Each
// entry says what the rule reads, when it is shown, how its gain is estimated (with its source),
// which snippets (resources/fixes/*.py) it may show, where it stands in the per-class order when its
// class heads the verdict, and which rules it conflicts with. recommendFixes walks the table:
// every Evaluate rule in table order, then the Compose rules (R14 orders what was shown).
// docs/ANALYSIS.md lists the rules from this table (fixRulesMarkdown(); FixRuleTableTest keeps them
// equal).

#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/diagnosis/Verdict.h"

namespace chokepoint::analysis {

class FixContext;

// A rule's place in the per-class order for a headline class (0 first).
struct HeadlineRank {
    Bottleneck bottleneck = Bottleneck::Undetermined;
    int position = 0;
};

enum class FixRuleStage {
    Evaluate,  // decides on the verdict and signals; shows a recommendation or records why not
    Compose,   // runs after every Evaluate rule, on the recommendations they made
};

struct FixRule {
    std::string_view id;     // "R1"
    std::string_view title;  // "Data prefetching and pipeline overlap"
    std::string_view reads;  // the verdict and DiagnosisSignals fields its guard and gain read
    std::string_view shownWhen;
    std::string_view gain;                   // how the expected gain is estimated, and its source
    std::vector<std::string_view> snippets;  // resources/fixes/<name>.py it may show
    std::vector<HeadlineRank> order;         // its place when one of these classes heads the verdict
    std::vector<std::string_view> conflictsWith;
    std::string_view conflict;  // the note R14 adds when it and one of conflictsWith are both shown
    FixRuleStage stage = FixRuleStage::Evaluate;
    void (*apply)(FixContext&) = nullptr;
};

const std::vector<FixRule>& fixRules();
const FixRule* findFixRule(std::string_view id);
// The rules in the order fixes for a headline class are listed (R14), from the table's `order`.
const std::vector<std::string_view>& headlineOrder(Bottleneck b);

// The rule table and the per-class order as Markdown, as docs/ANALYSIS.md shows them.
std::string fixRulesMarkdown();

// The rules' evaluations (FixRules*.cpp), named by the table.
namespace fixrules {
void prefetchData(FixContext& ctx);             // R1
void parallelPreprocessing(FixContext& ctx);    // R2
void fasterStorage(FixContext& ctx);            // R3
void mixedPrecision(FixContext& ctx);           // R4
void flashAttention(FixContext& ctx);           // R5
void fusion(FixContext& ctx);                   // R6
void gradientAccumulation(FixContext& ctx);     // R7
void activationCheckpointing(FixContext& ctx);  // R8
void batchSize(FixContext& ctx);                // R9
void learningRateScaling(FixContext& ctx);      // R10
void optimizerMemory(FixContext& ctx);          // R11
void communicationOverlap(FixContext& ctx);     // R12
void fasterHardware(FixContext& ctx);           // R13
void orderAndCompose(FixContext& ctx);          // R14
void hostWorkOffPath(FixContext& ctx);          // R15
void fillTheSms(FixContext& ctx);               // R16
void hostDeviceCopies(FixContext& ctx);         // R17
void fusedOptimizer(FixContext& ctx);           // R18
void removeHostSyncs(FixContext& ctx);          // R19
}  // namespace fixrules

}  // namespace chokepoint::analysis

#pragma once
// Writers for an AnalysisReport:
//   text      what an engineer reads in a terminal (headline, verdict + evidence, MFU, time
//             accounting, steps, phases, fixes with gains and snippets, warnings);
//   JSON      stable, versioned (schemaVersion), documented in docs/REPORT_JSON.md;
//   Markdown  the text content as a shareable document.
// Pure functions returning the document; no I/O.

#include <string>

#include "core/analysis/diagnosis/AnalysisReport.h"

namespace chokepoint::analysis {

struct TextReportOptions {
    bool showSnippets = true;   // PyTorch code of each fix
    bool showAllSteps = false;  // else at most 10 steps
    bool explainRules = false;  // why each rule was (not) shown
};

std::string writeTextReport(const AnalysisReport& report, const TextReportOptions& options = {});
std::string writeJsonReport(const AnalysisReport& report);
std::string writeMarkdownReport(const AnalysisReport& report);

// JSON strings in the writers: core::jsonString (core/base/JsonEscape.h), always valid UTF-8.

}  // namespace chokepoint::analysis

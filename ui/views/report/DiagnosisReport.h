#pragma once
// Builds the exportable diagnosis report (HTML / PDF through ReportDocument) from an
// AnalysisReport: the headline verdict and its evidence, key figures, MFU with band and source,
// the per-step breakdown and roofline plots (rendered offscreen to PNG), top kernels and ops, the
// recommended fixes with expected gains and code, and the warnings. Text and numbers come from the
// report; nothing is recomputed.

#include "core/model/TraceModel.h"
#include "ui/base/document/AnalysisReportQt.h"
#include "ui/views/report/ReportDocument.h"

namespace chokepoint::ui {

// `model` (may be null) supplies op names. Charts are rendered at `chartWidth` × 0.5·chartWidth px.
ReportDocument buildDiagnosisReport(const analysis::AnalysisReport& report, const core::TraceModel* model,
                                    int chartWidth = 1000);

}  // namespace chokepoint::ui

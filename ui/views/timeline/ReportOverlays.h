#pragma once
// Turns an AnalysisReport into what the timeline draws over the events: one band per step
// coloured by its D·A·M verdict, and the device-level GPU idle intervals coloured by their
// attributed cause, with legend entries for the colours in use. Only a mapping to colours; the
// verdicts and causes come from core.

#include <QColor>
#include <QString>
#include <utility>
#include <vector>

// Qt's `signals` macro would rewrite the report's `signals` fields: suspended while it is read.
#pragma push_macro("signals")
#undef signals
#include "core/analysis/diagnosis/AnalysisReport.h"
#pragma pop_macro("signals")

#include "ui/views/timeline/TimelineOverlays.h"

namespace chokepoint::ui {

// Colours come from the analysis pages' palette (ui/base/theme/ReportPalette: bottleneckColor,
// idleCauseColor), so a class has one colour everywhere.
// "Waiting for data" (capitalised core wording).
QString idleCauseLabel(analysis::IdleCause cause);

TimelineOverlays overlaysFromReport(const analysis::AnalysisReport& report);

// Details-panel rows for a kernel's roofline position, from the report's per-kernel roofline point
// (matched by name): arithmetic intensity, achieved FLOP/s and the share of attainable, and which
// roof bounds it. One row saying why when the report has no point for it.
std::vector<std::pair<QString, QString>> rooflineRows(const analysis::AnalysisReport& report,
                                                      const core::TraceModel& model, core::KernelId kernel);

}  // namespace chokepoint::ui

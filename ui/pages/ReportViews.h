#pragma once
// Presentation of an AnalysisReport: colours and names for its classes, and conversion of its
// already-computed figures into the plain chart data of ui/charts. No analysis happens here: every
// number is read from the report; only units change (ns → ms) and items are picked for display.

#include <QColor>
#include <QString>
#include <memory>

#include "core/model/TraceModel.h"
#include "ui/charts/RooflineChart.h"
#include "ui/charts/StepBarsChart.h"
#include "ui/charts/StepStrip.h"
#include "ui/models/AnalysisReportQt.h"

namespace chokepoint::ui {

QColor bottleneckColor(analysis::Bottleneck bottleneck);
// A pattern per bottleneck class, drawn over its colour (fillPatterned), so classes differ by more
// than hue: compute (the goal) is plain, every other class has its own hatch.
Qt::BrushStyle bottleneckPattern(analysis::Bottleneck bottleneck);
QColor kernelClassColor(analysis::KernelClass kernelClass);
QColor idleCauseColor(analysis::IdleCause cause);
QString bottleneckName(analysis::Bottleneck bottleneck);  // displayName() as QString
QString kernelClassName(analysis::KernelClass kernelClass);

// The device the report's verdicts are about (DeviceMatch::deviceIndex), else the first with work.
std::int16_t reportDevice(const analysis::AnalysisReport& report);

// One stacked bar per step of report.steps: compute, exposed communication, exposed copies, idle by
// cause, from metrics.accounting.perStep of the report's device.
StepBarsData stepBarsFromReport(const analysis::AnalysisReport& report);
// One cell per step coloured by the step's verdict.
std::vector<StepStripCell> stepStripFromReport(const analysis::AnalysisReport& report);

// Roofline chart data: memory and compute roofs from the matched device, one dot per roofline point
// (classes hollow, kernels and ops filled), and the seed's reference intensities (§1.4, §9.6).
// `pointIndex` receives, for each dot, the index of its metrics.roofline.points entry.
RooflineChartData rooflineFromReport(const analysis::AnalysisReport& report,
                                     std::vector<int>* pointIndex = nullptr);

// The text of a StringId in the report's model (empty without a model).
QString modelText(const core::TraceModel* model, core::StringId id);

// Where a finding can be seen on the timeline: one definition, in core (EvidenceRange.h).
using analysis::evidenceRange;

// "61.2 ms" etc. from a double of nanoseconds.
QString durationText(double ns);
QString percentText(double fraction);

}  // namespace chokepoint::ui

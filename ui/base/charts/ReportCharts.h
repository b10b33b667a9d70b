#pragma once
// Conversion of an AnalysisReport's already-computed figures into the plain chart data of
// ui/base/charts. No analysis happens here: every number is read from the report; only units change
// (ns → ms) and items are picked for display.

#include <cstdint>
#include <vector>

#include "ui/base/charts/RooflineChart.h"
#include "ui/base/charts/StepBarsChart.h"
#include "ui/base/charts/StepStrip.h"
#include "ui/base/document/AnalysisReportQt.h"

namespace chokepoint::ui {

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

}  // namespace chokepoint::ui

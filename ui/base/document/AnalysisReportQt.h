#pragma once
// Includes core's AnalysisReport in Qt code. The report has fields named `signals`
// (StepDiagnosis::signals, PhaseDiagnosis::signals), which Qt's `signals` keyword macro would
// rewrite to `public`; the macro is suspended while the header is read. Qt code that needs those
// fields reads them through diagnosisSignals() below, which is compiled without the macro too.

#pragma push_macro("signals")
#undef signals
#include "core/analysis/diagnosis/AnalysisReport.h"
#include "core/analysis/diagnosis/EvidenceRange.h"

namespace chokepoint::ui {
inline const analysis::DiagnosisSignals& diagnosisSignals(const analysis::StepDiagnosis& step) {
    return step.signals;
}
inline const analysis::DiagnosisSignals& diagnosisSignals(const analysis::PhaseDiagnosis& phase) {
    return phase.signals;
}
}  // namespace chokepoint::ui
#pragma pop_macro("signals")

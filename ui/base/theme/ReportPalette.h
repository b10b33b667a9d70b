#pragma once
// Presentation of an AnalysisReport's vocabulary: colours, hatches and names for its classes, and
// the texts of its figures. No analysis happens here: every value comes from the report.

#include <QColor>
#include <QString>

#include "core/model/TraceModel.h"
#include "ui/base/document/AnalysisReportQt.h"

namespace chokepoint::ui {

QColor bottleneckColor(analysis::Bottleneck bottleneck);
// A pattern per bottleneck class, drawn over its colour (fillPatterned), so classes differ by more
// than hue: compute (the goal) is plain, every other class has its own hatch.
Qt::BrushStyle bottleneckPattern(analysis::Bottleneck bottleneck);
QColor kernelClassColor(analysis::KernelClass kernelClass);
QColor idleCauseColor(analysis::IdleCause cause);
QString bottleneckName(analysis::Bottleneck bottleneck);  // displayName() as QString
QString kernelClassName(analysis::KernelClass kernelClass);

// The text of a StringId in the report's model (empty without a model).
QString modelText(const core::TraceModel* model, core::StringId id);

// Where a finding can be seen on the timeline: one definition, in core (EvidenceRange.h).
using analysis::evidenceRange;

// "61.2 ms" etc. from a double of nanoseconds.
QString durationText(double ns);
QString percentText(double fraction);
// Two significant digits below 0.1 % (core::formatSmallPercent): a roofline point at 0.004 % of its roof.
QString smallPercentText(double fraction);

}  // namespace chokepoint::ui

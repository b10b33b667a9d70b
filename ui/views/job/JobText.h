#pragma once
// Display text for the job report's figures and enums, shared by the job widgets: durations and
// sizes through core's formatting helpers, work kinds in words, and core's own names for causes
// and bottlenecks.

#include <QString>

#include "core/base/Time.h"
#include "core/job/JobReport.h"

namespace chokepoint::ui {

QString jobDuration(core::DurationNs ns);                  // "3.2 ms"
QString workKindLabel(job::WorkKind kind);                 // "waiting for data", "host work", ...
QString stragglerCauseText(job::StragglerCause cause);     // core's describe()
QString jobBottleneckText(job::JobBottleneck bottleneck);  // core's displayName()
// "2–127" style ranges from sorted rank numbers: "3, 5, 7–12".
QString rankRangesText(const std::vector<std::int32_t>& ranks, int maxParts = 8);

}  // namespace chokepoint::ui

#pragma once
// Where on the timeline a finding can be seen: one function for the fixes page ("Show me on the
// timeline"), the presenter's slides and bookmarks made from them.
//
// The range comes from the finding's own intervals: for a bottleneck explained by device idle time
// (data, launch overhead, communication) the longest idle interval of that cause, with a quarter of
// its length as context either side; otherwise the step where the bottleneck holds the largest
// share. The result always lies inside the trace (TraceMetrics::traceSpan): context that would leave
// it is cut at its edges. Empty only when the trace is.

#include "core/analysis/diagnosis/AnalysisReport.h"
#include "core/base/Time.h"

namespace chokepoint::analysis {

core::TimeRange evidenceRange(const AnalysisReport& report, Bottleneck target);

}  // namespace chokepoint::analysis

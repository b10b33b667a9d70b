#pragma once
// The cause of an idle interval as the verdict counts it. GPU time accounting gives each gap the
// cause the host activity shows; the verdict then moves launch-overhead and synchronization idle
// to collective waits when the busiest stream's next kernel was mostly already queued (HTA's
// "other" idle) and collectives run (SignalsAdapter's queued-wait adjustment). Views that draw
// single intervals (the timeline's idle strip) use this so they say what the verdict says. The
// verdict moves a share (1 - host-wait share, over one half) of that idle; an interval moves whole.

#include "core/analysis/diagnosis/AnalysisReport.h"

namespace chokepoint::analysis {

IdleCause judgedIdleCause(const AnalysisReport& report, const IdleInterval& interval);

}  // namespace chokepoint::analysis

#pragma once
// The sampled host stacks' hottest functions for the report (AnalysisReport::sampledFunctions):
// the bottom-up tree of core/calltree/SampledCallTree.h, function by function, by self time.

#include "core/analysis/diagnosis/AnalysisReport.h"

namespace chokepoint::analysis {

// Fills sampledFunctions (every function, by self time), stackSampleCount, sampledThreadCount and
// sampledTimeNs; leaves them empty / 0 without stack samples.
void fillSampledFunctions(const core::TraceModel& model, AnalysisReport& report);

}  // namespace chokepoint::analysis

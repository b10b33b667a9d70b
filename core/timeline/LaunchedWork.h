#pragma once
// Flows followed both ways: the GPU work (kernels, copies, memsets) a host event launched, and the
// launch call of a piece of GPU work. A runtime call launched the work whose launchCall is that
// call; a CPU op launched the work of every runtime call on its thread inside its time span (its
// own calls and those of the ops nested in it).

#include <vector>

#include "core/model/TraceModel.h"
#include "core/timeline/EventRef.h"

namespace chokepoint::timeline {

// The GPU work launched by `launcher` (an ApiCall or a CpuOp; empty for other kinds), sorted by
// start time. Linear in the GPU records.
std::vector<EventRef> launchedWork(const core::TraceModel& model, EventRef launcher);

// The runtime call that launched GPU work `work`; invalid when not recorded or not GPU work.
EventRef launchCallOf(const core::TraceModel& model, EventRef work);

}  // namespace chokepoint::timeline

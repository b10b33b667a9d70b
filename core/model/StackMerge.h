#pragma once
// Adds the stack samples of one model (a sampler's output, with its own string pool and threads) to
// another (a capture). Threads are matched by (pid, tid) and added when new; frames and stacks are
// interned by content, so merging the same samples twice keeps one copy of each frame and stack
// (the samples themselves are added again). Call `into.finalize()` afterwards to sort the samples.
//
// This is how samples recorded beside a capture get into its .cptrace file: read the capture, merge,
// finalize, write it again (CptraceWriter writes atomically).

#include <cstddef>

#include "core/model/TraceModel.h"

namespace chokepoint::core {

// Returns the number of samples added. Samples whose stack is not in `from` are skipped.
std::size_t mergeStackSamples(TraceModel& into, const TraceModel& from);

}  // namespace chokepoint::core

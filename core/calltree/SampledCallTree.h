#pragma once
// Call trees from sampled stacks (TraceModel::stackSamples: the agent's Python sampler, or native
// frames), for traces that record no CPU ops: what a py-spy-style profile shows.
//
// Top-down: the root's children are the sampled threads; under each, the frames from the outermost
// to the leaf, merged by (function, file) per parent, so a function's lines are one node. A sample
// stands for the time to its thread's next sample (core/model/SampleSpans.h): a node's total is the
// time of the samples through it, its self the time of those whose leaf it is, its calls the number
// of samples. Wall-clock time: a thread that sleeps is sampled sleeping, under its own thread node.
// GPU times stay 0 (a sample launches nothing). buildBottomUp (CallTree.h) turns it into callers.

#include "core/calltree/CallTree.h"

namespace chokepoint::calltree {

// Linear in samples x stack depth.
CallTree buildSampledTopDown(const core::TraceModel& model);

}  // namespace chokepoint::calltree

#pragma once
// Sampled call stacks (Python frames from the sampler, or native frames): interned frames, interned
// stacks of frame ids, and a columnar table of samples. A sample is an instant on one thread, never
// a range: "at timeNs, thread T was executing stack S". Times are on the trace clock.
//
// Frames and stacks are interned in the TraceModel (internFrame / internStack); the vectors stay
// public so the .cptrace reader can append what a file holds and views can read them directly.
// Stack s is stackFrameIds[stackOffsets[s] .. stackOffsets[s + 1]), leaf (innermost frame) first.

#include <cstdint>
#include <vector>

#include "core/base/Ids.h"
#include "core/base/Time.h"
#include "core/model/Dimensions.h"

namespace chokepoint::core {

// One frame, interned: file and function are StringIds of the model's pool. line 0 = unknown.
struct StackFrame {
    StringId file;
    StringId function;
    std::int32_t line = 0;
    bool operator==(const StackFrame&) const = default;
};

// Index into TraceModel::stackOffsets (a stack) or TraceModel::stackFrames (a frame).
using StackIndex = std::uint32_t;
using FrameIndex = std::uint32_t;

struct StackSampleRow {
    TimestampNs timeNs = 0;
    ThreadIndex thread = kNoThread;
    StackIndex stack = 0;
};

// Columnar samples, sorted by timeNs (then thread) once the model is finalized.
struct StackSampleTable {
    std::vector<TimestampNs> timeNs;
    std::vector<ThreadIndex> thread;
    std::vector<StackIndex> stack;

    std::size_t size() const { return timeNs.size(); }
    void add(const StackSampleRow& row);
    StackSampleRow row(std::size_t i) const { return {timeNs[i], thread[i], stack[i]}; }
    void permute(const std::vector<std::uint32_t>& order);
    void reserve(std::size_t n);
};

}  // namespace chokepoint::core

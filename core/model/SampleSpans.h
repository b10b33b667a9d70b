#pragma once
// The time each stack sample stands for. A sample is an instant ("at t, thread T was in stack S");
// for time sums it stands for the time from t to the thread's next sample, at most twice the
// thread's median sampling interval (a pause in sampling is not time spent in the last stack
// seen); the thread's last sample stands for one median interval. One thread's spans never
// overlap, so time summed over its samples never exceeds the time they cover. Pure; O(n log n).

#include <cstdint>
#include <vector>

#include "core/model/TraceModel.h"

namespace chokepoint::core {

struct SampleSpans {
    std::vector<TimeRange> span;                       // index = sample; empty for an unknown stack or thread
    std::vector<std::vector<std::uint32_t>> byThread;  // index = ThreadIndex: its samples in time order
};

SampleSpans stackSampleSpans(const TraceModel& model);

}  // namespace chokepoint::core

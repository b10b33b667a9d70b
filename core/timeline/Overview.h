#pragma once
// The activity of a whole trace in a fixed number of time buckets, for the overview strip above the
// timeline. For each bucket: the GPU busy share (time covered by kernels, copies and memsets, summed
// over streams and divided by the number of devices, at most 1) and the host busy share (top-level
// CPU ops, summed over threads with ops and divided by their number).
// Linear in the events plus the buckets.

#include <cstddef>
#include <vector>

#include "core/timeline/TimelineTracks.h"

namespace chokepoint::timeline {

struct Overview {
    core::TimeRange span;
    std::vector<float> gpuBusy;   // per bucket, 0..1
    std::vector<float> hostBusy;  // per bucket, 0..1
};

Overview computeOverview(const TrackSet& tracks, std::size_t buckets);

}  // namespace chokepoint::timeline

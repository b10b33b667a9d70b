#pragma once
// The synchronisations that wait on one GPU stream (cudaStreamSynchronize, event and stream waits
// whose model row names a device and stream), grouped by the timeline's stream tracks so the
// timeline can draw each under its stream. Kineto 2025+ writes these rows on a virtual thread id
// (stream id + 1,000,000, "stream N (sync)"); the importer gives them their stream back, and
// .cptrace / Nsight Systems syncs carry it already. Syncs that are not stream-specific (device or
// context syncs, streamId -1) belong to no stream track.

#include <vector>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"
#include "core/timeline/TimelineTracks.h"

namespace chokepoint::timeline {

// One list per track of `tracks` (same index): the time ranges of the syncs on that GPU stream,
// sorted by start; empty for host, counter and other stream tracks.
std::vector<std::vector<core::TimeRange>> streamSyncsByTrack(const core::TraceModel& model,
                                                             const TrackSet& tracks);

}  // namespace chokepoint::timeline

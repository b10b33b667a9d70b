#pragma once
// One row of the search results list: what the user reads for a match (name, the track it sits on,
// start relative to the trace, duration). Built per visible row, so a list of a million matches
// costs nothing until it is scrolled.

#include <string>

#include "core/timeline/TimelineSearch.h"
#include "core/timeline/TimelineTracks.h"

namespace chokepoint::timeline {

struct SearchRow {
    std::string name;
    std::string track;  // "GPU 0 · H100 / Stream 7"; empty when the event is on no track
    core::DurationNs startFromTraceNs = 0;
    core::DurationNs durationNs = 0;
};

// O(tracks + log n) for the track lookup.
SearchRow searchRow(const core::TraceModel& model, const TrackSet& tracks, const SearchHit& hit);

}  // namespace chokepoint::timeline

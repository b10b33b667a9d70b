#include "core/timeline/SearchRows.h"

namespace chokepoint::timeline {

SearchRow searchRow(const core::TraceModel& model, const TrackSet& tracks, const SearchHit& hit) {
    SearchRow row;
    if (!isValid(model, hit.ref)) {
        return row;
    }
    row.name = eventName(model, hit.ref);
    const core::TimeRange times = eventTimes(model, hit.ref);
    row.startFromTraceNs = times.startNs - tracks.span.startNs;
    row.durationNs = times.durationNs();
    if (const EventLocation where = locateEvent(tracks, model, hit.ref); where.valid()) {
        const Track& track = tracks.tracks[static_cast<std::size_t>(where.track)];
        row.track = track.group + " / " + track.label;
    }
    return row;
}

}  // namespace chokepoint::timeline

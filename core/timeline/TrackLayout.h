#pragma once
// What the user changed about a timeline's tracks: hidden tracks, collapsed groups and the order of
// groups and of tracks within a group. Plain data keyed by stable track and group keys
// (Track::key, Track::group), so the review sidecar can remember it per trace and it survives a
// re-import (row and track indices may change; keys do not). Keys that match no track of the
// current trace are kept but ignored.
//
// applyTrackLayout() turns a TrackSet and a layout into the groups to draw, in order, each with its
// visible tracks in order. Pure functions; linear in the tracks (plus a sort).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/timeline/TimelineTracks.h"

namespace chokepoint::timeline {

struct TrackLayout {
    std::vector<std::string> groupOrder;       // group keys in the preferred order
    std::vector<std::string> trackOrder;       // track keys in the preferred order (within groups)
    std::vector<std::string> hiddenTracks;     // sorted, unique
    std::vector<std::string> collapsedGroups;  // sorted, unique

    bool empty() const {
        return groupOrder.empty() && trackOrder.empty() && hiddenTracks.empty() && collapsedGroups.empty();
    }
    bool operator==(const TrackLayout&) const = default;
};

// One group as drawn: its key (the group title), whether it is collapsed, and its visible tracks
// (indices into TrackSet::tracks) in display order. `firstTrack` is the group's first track in
// build order (used to draw a collapsed or fully hidden group's header).
struct TrackGroupView {
    std::string key;
    bool collapsed = false;
    std::size_t firstTrack = 0;
    std::size_t trackCount = 0;   // all tracks of the group, hidden ones included
    std::size_t hiddenCount = 0;  // hidden tracks of the group
    std::vector<std::size_t> tracks;
};

// The layout of a trace the user has not arranged: per-thread CPU counters of threads that never
// used more than kIdleThreadCpuPercent of a core are hidden (the agent samples every thread of the
// job, and a PyTorch process has a dozen that never run; on an H100 capture ten such rows pushed
// the training threads' counters off the screen). They stay one "Show all hidden tracks" away.
inline constexpr double kIdleThreadCpuPercent = 1.0;
TrackLayout defaultTrackLayout(const TrackSet& tracks, const core::TraceModel& model);

// The groups of `tracks` in display order with their visible tracks. Unknown keys are ignored.
std::vector<TrackGroupView> applyTrackLayout(const TrackSet& tracks, const TrackLayout& layout);

bool isTrackHidden(const TrackLayout& layout, std::string_view trackKey);
bool isGroupCollapsed(const TrackLayout& layout, std::string_view groupKey);
void setTrackHidden(TrackLayout& layout, std::string_view trackKey, bool hidden);
void setGroupCollapsed(TrackLayout& layout, std::string_view groupKey, bool collapsed);
// Shows every hidden track (collapsed groups stay collapsed).
void showAllTracks(TrackLayout& layout);
// Moves a group `delta` places (−1 up, +1 down) among the groups of `tracks`; false when it cannot
// move (unknown key, already first or last). Records the whole current order in the layout.
bool moveGroup(TrackLayout& layout, const TrackSet& tracks, std::string_view groupKey, int delta);
// Moves a track past its `delta` visible neighbours within its group; false when it cannot.
bool moveTrack(TrackLayout& layout, const TrackSet& tracks, std::string_view trackKey, int delta);

}  // namespace chokepoint::timeline

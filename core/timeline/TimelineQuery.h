#pragma once
// Level-of-detail queries for drawing timelines. Given a lane and the visible window at some
// zoom (nanoseconds per pixel), collect() returns what to draw: events at least `minWidthPx` wide
// one by one, and runs of narrower events merged into folded blocks (count, extent, a dominant
// member for the label and colour). It binary-searches the visible window and, inside a block,
// jumps to the next pixel boundary with another binary search, so the cost grows with the number
// of pixels, not of events. Pure functions over const data: callable from any thread.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/base/Time.h"
#include "core/model/Tables.h"
#include "core/timeline/Lane.h"

namespace chokepoint::timeline {

struct QueryWindow {
    core::TimeRange visible;  // the window's time range; pixel 0 is at visible.startNs
    double nsPerPixel = 1.0;  // > 0
    double minWidthPx = 2.0;  // events narrower than this are folded
};

struct DrawItem {
    core::TimestampNs startNs = 0;  // extent of the item (a folded block covers all its members)
    core::TimestampNs endNs = 0;
    std::uint32_t first = 0;     // lane index of the first member
    std::uint32_t count = 1;     // number of members; 1 = one event drawn as itself
    std::uint32_t dominant = 0;  // lane index of the member that names and colours the item
    bool folded() const { return count > 1; }
};

// Appends the draw items of `lane` that overlap `window.visible` to `out`, in time order. Every
// event overlapping the window is a member of exactly one item (sum of counts = events shown).
// The dominant member of a folded block is the longest among up to 64 evenly sampled members.
void collect(const Lane& lane, const QueryWindow& window, std::vector<DrawItem>& out);

// Number of events in `lane` overlapping `visible` (for tests and statistics). O(log n + k).
std::size_t countOverlapping(const Lane& lane, core::TimeRange visible);

// The event of `lane` under time `timeNs`, or the closest one within `toleranceNs`; the
// innermost (latest-starting) one when several overlap. Returns lane.size() when none.
std::size_t hitTest(const Lane& lane, core::TimestampNs timeNs, core::DurationNs toleranceNs);

// One pixel column of a counter track: the minimum, maximum and last value of the samples that
// fall into it (a sample holds until the next one).
struct CounterColumn {
    double x = 0;  // pixel offset of the column's left edge from the window start
    double minValue = 0;
    double maxValue = 0;
};

// Downsamples a counter to at most one column per pixel over the window, each sample holding its
// value until the next. Samples before the window carry their value into it. `timesNs` must be
// sorted ascending; sizes must match.
std::vector<CounterColumn> counterColumns(std::span<const core::TimestampNs> timesNs,
                                          std::span<const double> values, const QueryWindow& window);
// The same for a counter track, read by its kind (core/model/CounterSemantics.h): a per-thread CPU
// use sample covers the interval before it, so its value is drawn there.
std::vector<CounterColumn> counterColumns(const core::CounterTrack& track, const QueryWindow& window);

}  // namespace chokepoint::timeline

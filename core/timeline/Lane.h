#pragma once
// A lane is one row of a timeline track: events drawn at the same height, sorted by start time.
// Events in a lane normally do not overlap (one CUDA stream, one nesting depth); when they do,
// queries stay correct through a prefix maximum of end times (kept only when needed).
// Times are int64 nanoseconds on the trace clock.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/Time.h"
#include "core/timeline/EventRef.h"

namespace chokepoint::timeline {

class Lane {
public:
    // Appends an event (any order). Call finish() before querying.
    void add(core::TimestampNs startNs, core::TimestampNs endNs, EventRef ref);
    // Sorts by start (stable, so ties keep insertion order) and builds the search index.
    void finish();
    void reserve(std::size_t n);

    std::size_t size() const { return m_startNs.size(); }
    bool empty() const { return m_startNs.empty(); }
    core::TimestampNs startNs(std::size_t i) const { return m_startNs[i]; }
    core::TimestampNs endNs(std::size_t i) const { return m_endNs[i]; }
    EventRef ref(std::size_t i) const { return EventRef{m_kinds[i], m_rows[i]}; }
    // Largest end time among events 0..i (equals endNs(i) when ends are non-decreasing).
    core::TimestampNs maxEndThrough(std::size_t i) const {
        return m_maxEndNs.empty() ? m_endNs[i] : m_maxEndNs[i];
    }
    // Index of the first event whose span could reach past `timeNs` (its end, or an earlier
    // event's end, is > timeNs); size() when none. O(log n).
    std::size_t firstEndingAfter(core::TimestampNs timeNs) const;
    // Index of the first event starting at or after `timeNs`, searching from `from` (galloping
    // over a coarse index: O(log d) where d is the distance from `from` to the answer).
    std::size_t firstStartingAtOrAfter(core::TimestampNs timeNs, std::size_t from = 0) const;
    // Index of the lane's event (in this lane) with this reference, or size(). O(n).
    std::size_t find(EventRef ref) const;
    // Earliest start and latest end; empty range for an empty lane.
    core::TimeRange span() const;
    std::size_t memoryBytes() const;

private:
    std::vector<core::TimestampNs> m_startNs, m_endNs;
    std::vector<core::TimestampNs> m_maxEndNs;  // empty when ends are already non-decreasing
    static constexpr std::size_t kCoarseStride = 64;
    std::vector<core::TimestampNs> m_coarseStartNs;  // startNs of every kCoarseStride-th event
    std::vector<std::uint32_t> m_rows;
    std::vector<EventKind> m_kinds;
};

}  // namespace chokepoint::timeline

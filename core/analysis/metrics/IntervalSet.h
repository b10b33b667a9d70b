#pragma once
// Sorted, disjoint half-open time intervals and the set operations the analyzer needs: union of
// many (possibly overlapping, zero-length or inverted) intervals, total length, intersection and
// difference with another set, clipping to a window. Every operation is a linear merge over
// already sorted inputs (plus one sort in fromUnsorted), so analyses stay O(n log n) at worst.
// Units: nanoseconds on the trace clock.

#include <vector>

#include "core/base/Time.h"

namespace chokepoint::analysis {

class IntervalSet {
public:
    IntervalSet() = default;

    // Builds the union of `intervals` (any order; empty and inverted ones are dropped).
    static IntervalSet fromUnsorted(std::vector<core::TimeRange> intervals);
    // Builds the union of intervals already sorted by start (empty/inverted ones are dropped).
    static IntervalSet fromSortedByStart(const std::vector<core::TimeRange>& intervals);

    // Appends an interval whose start is >= the start of every interval added before (merges
    // with the last one when they touch or overlap).
    void appendSorted(core::TimeRange range);

    const std::vector<core::TimeRange>& intervals() const { return m_intervals; }
    bool empty() const { return m_intervals.empty(); }
    std::size_t size() const { return m_intervals.size(); }

    // Sum of the interval lengths in ns.
    core::DurationNs totalNs() const;
    // Length of the part of the set inside `window`.
    core::DurationNs coveredNs(core::TimeRange window) const;

    IntervalSet clippedTo(core::TimeRange window) const;
    IntervalSet unionWith(const IntervalSet& other) const;
    IntervalSet intersect(const IntervalSet& other) const;
    IntervalSet subtract(const IntervalSet& other) const;
    // The gaps of the set inside `window` (window minus the set).
    IntervalSet gapsWithin(core::TimeRange window) const;

private:
    std::vector<core::TimeRange> m_intervals;  // sorted, disjoint, non-empty, not touching
};

}  // namespace chokepoint::analysis

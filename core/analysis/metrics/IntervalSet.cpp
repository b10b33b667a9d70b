#include "core/analysis/metrics/IntervalSet.h"

#include <algorithm>

namespace chokepoint::analysis {

using core::DurationNs;
using core::TimeRange;

IntervalSet IntervalSet::fromUnsorted(std::vector<TimeRange> intervals) {
    std::sort(intervals.begin(), intervals.end(),
              [](const TimeRange& a, const TimeRange& b) { return a.startNs < b.startNs; });
    return fromSortedByStart(intervals);
}

IntervalSet IntervalSet::fromSortedByStart(const std::vector<TimeRange>& intervals) {
    IntervalSet set;
    set.m_intervals.reserve(intervals.size() / 2 + 1);
    for (const TimeRange& r : intervals) {
        set.appendSorted(r);
    }
    return set;
}

void IntervalSet::appendSorted(TimeRange range) {
    if (range.empty()) {
        return;
    }
    if (!m_intervals.empty() && range.startNs <= m_intervals.back().endNs) {
        m_intervals.back().endNs = std::max(m_intervals.back().endNs, range.endNs);
        return;
    }
    m_intervals.push_back(range);
}

DurationNs IntervalSet::totalNs() const {
    DurationNs total = 0;
    for (const TimeRange& r : m_intervals) {
        total += r.endNs - r.startNs;
    }
    return total;
}

DurationNs IntervalSet::coveredNs(TimeRange window) const {
    if (window.empty() || m_intervals.empty()) {
        return 0;
    }
    auto it = std::lower_bound(m_intervals.begin(), m_intervals.end(), window.startNs,
                               [](const TimeRange& r, core::TimestampNs t) { return r.endNs <= t; });
    DurationNs total = 0;
    for (; it != m_intervals.end() && it->startNs < window.endNs; ++it) {
        total += it->intersect(window).durationNs();
    }
    return total;
}

IntervalSet IntervalSet::clippedTo(TimeRange window) const {
    IntervalSet result;
    if (window.empty()) {
        return result;
    }
    auto it = std::lower_bound(m_intervals.begin(), m_intervals.end(), window.startNs,
                               [](const TimeRange& r, core::TimestampNs t) { return r.endNs <= t; });
    for (; it != m_intervals.end() && it->startNs < window.endNs; ++it) {
        result.appendSorted(it->intersect(window));
    }
    return result;
}

IntervalSet IntervalSet::unionWith(const IntervalSet& other) const {
    IntervalSet result;
    result.m_intervals.reserve(m_intervals.size() + other.m_intervals.size());
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < m_intervals.size() || j < other.m_intervals.size()) {
        bool takeMine = j >= other.m_intervals.size() ||
                        (i < m_intervals.size() && m_intervals[i].startNs <= other.m_intervals[j].startNs);
        result.appendSorted(takeMine ? m_intervals[i++] : other.m_intervals[j++]);
    }
    return result;
}

IntervalSet IntervalSet::intersect(const IntervalSet& other) const {
    IntervalSet result;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < m_intervals.size() && j < other.m_intervals.size()) {
        TimeRange both = m_intervals[i].intersect(other.m_intervals[j]);
        if (!both.empty()) {
            result.appendSorted(both);
        }
        if (m_intervals[i].endNs < other.m_intervals[j].endNs) {
            ++i;
        } else {
            ++j;
        }
    }
    return result;
}

IntervalSet IntervalSet::subtract(const IntervalSet& other) const {
    IntervalSet result;
    std::size_t j = 0;
    for (const TimeRange& mine : m_intervals) {
        core::TimestampNs cursor = mine.startNs;
        // Skip what ends before this interval by galloping, then a binary search: a short set
        // (one step's window) subtracted from a long one costs O(log n), not a walk from its start.
        const auto endsBefore = [cursor](const TimeRange& r) { return r.endNs <= cursor; };
        std::size_t bound = j;
        for (std::size_t stride = 1; bound < other.m_intervals.size() && endsBefore(other.m_intervals[bound]);
             stride *= 2) {
            j = bound + 1;
            bound += stride;
        }
        const auto first = other.m_intervals.begin() + static_cast<std::ptrdiff_t>(j);
        const auto last = other.m_intervals.begin() +
                          static_cast<std::ptrdiff_t>(std::min(bound, other.m_intervals.size()));
        j = static_cast<std::size_t>(std::partition_point(first, last, endsBefore) -
                                     other.m_intervals.begin());
        std::size_t k = j;
        while (k < other.m_intervals.size() && other.m_intervals[k].startNs < mine.endNs) {
            if (other.m_intervals[k].startNs > cursor) {
                result.appendSorted({cursor, other.m_intervals[k].startNs});
            }
            cursor = std::max(cursor, other.m_intervals[k].endNs);
            if (other.m_intervals[k].endNs > mine.endNs) {
                break;
            }
            ++k;
        }
        if (cursor < mine.endNs) {
            result.appendSorted({cursor, mine.endNs});
        }
    }
    return result;
}

IntervalSet IntervalSet::gapsWithin(TimeRange window) const {
    IntervalSet whole;
    whole.appendSorted(window);
    return whole.subtract(*this);
}

}  // namespace chokepoint::analysis

#pragma once
// Search events by name (case-insensitive substring) across kernels, ranges, CPU ops and runtime
// calls, and "Memcpy HtoD"-style names for copies and memsets. Names are matched once per
// distinct string, then rows are selected by string id, so a search over 10 M rows compares ids,
// not text. Results are sorted by start time, ties by kind and row.

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/model/TraceModel.h"
#include "core/timeline/EventRef.h"

namespace chokepoint::timeline {

struct SearchHit {
    core::TimestampNs startNs = 0;
    EventRef ref;
};

class SearchResults {
public:
    SearchResults() = default;
    SearchResults(const core::TraceModel& model, std::string_view query);

    std::size_t size() const { return m_hits.size(); }
    bool empty() const { return m_hits.empty(); }
    const SearchHit& operator[](std::size_t i) const { return m_hits[i]; }
    const std::vector<SearchHit>& hits() const { return m_hits; }
    // Index of the first hit that comes after (startNs, ref) in result order, wrapping to 0; or
    // size() when there are no hits.
    std::size_t nextAfter(core::TimestampNs startNs, EventRef ref) const;
    // Index of the last hit before (startNs, ref), wrapping to the last hit.
    std::size_t previousBefore(core::TimestampNs startNs, EventRef ref) const;
    // Index of `ref` among the hits, or size().
    std::size_t indexOf(core::TimestampNs startNs, EventRef ref) const;

private:
    std::vector<SearchHit> m_hits;
};

// Case-insensitive (ASCII) substring test.
bool containsIgnoreCase(std::string_view text, std::string_view needle);

}  // namespace chokepoint::timeline

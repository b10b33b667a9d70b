#pragma once
// Clock anchors: CUPTI activity timestamps (CUPTI's clock, CLOCK_REALTIME by default, or whatever
// timestamp callback another tool registered) are mapped onto CLOCK_MONOTONIC, the trace clock of
// every agent source (NVTX rings, /proc samples). An anchor is {cuptiNs, monoNs, realNs} taken
// together; monoNs is the midpoint of two monotonic reads around the CUPTI read.
//
// Mapping: piecewise linear between consecutive anchors (absorbs NTP slew and a CUPTI clock that
// runs at a different rate); before the first / after the last anchor, the offset of that anchor.

#include <cstdint>
#include <functional>
#include <vector>

#include "core/base/Time.h"

namespace chokepoint::collectors {

struct ClockAnchor {
    std::int64_t cuptiNs = 0;
    std::int64_t monoNs = 0;
    std::int64_t realNs = 0;
};

class ClockMap {
public:
    // Anchors may arrive in any order; equal CUPTI times keep the first.
    void addAnchor(const ClockAnchor& anchor);
    bool empty() const { return m_anchors.empty(); }
    const std::vector<ClockAnchor>& anchors() const { return m_anchors; }
    void clear() { m_anchors.clear(); }

    // CUPTI time -> monotonic ns. Identity when there are no anchors.
    core::TimestampNs toMonotonic(std::uint64_t cuptiNs) const;
    // Wall-clock ns of monotonic zero, from the latest anchor (0 when none).
    std::int64_t realtimeOfMonotonicZero() const;

private:
    std::vector<ClockAnchor> m_anchors;  // sorted by cuptiNs
};

std::int64_t monotonicNowNs();
std::int64_t realtimeNowNs();
// Takes an anchor with `cuptiNow` as the CUPTI clock.
ClockAnchor takeAnchor(const std::function<std::uint64_t()>& cuptiNow);

}  // namespace chokepoint::collectors

#pragma once
// Time in core is int64 nanoseconds on one trace clock. Conversion to floating milliseconds or
// microseconds happens only at presentation boundaries (see Format.h).

#include <algorithm>
#include <cstdint>

namespace chokepoint::core {

using TimestampNs = std::int64_t;
using DurationNs = std::int64_t;

constexpr DurationNs kNsPerUs = 1000;
constexpr DurationNs kNsPerMs = 1000 * 1000;
constexpr DurationNs kNsPerSecond = 1000 * 1000 * 1000;

// Half-open interval [startNs, endNs). An empty or inverted range has zero duration.
struct TimeRange {
    TimestampNs startNs = 0;
    TimestampNs endNs = 0;

    constexpr DurationNs durationNs() const { return endNs > startNs ? endNs - startNs : 0; }
    constexpr bool empty() const { return endNs <= startNs; }
    constexpr bool contains(TimestampNs t) const { return t >= startNs && t < endNs; }
    constexpr bool overlaps(const TimeRange& other) const {
        return startNs < other.endNs && other.startNs < endNs;
    }
    constexpr TimeRange intersect(const TimeRange& other) const {
        return {std::max(startNs, other.startNs), std::min(endNs, other.endNs)};
    }
    constexpr bool operator==(const TimeRange&) const = default;
};

}  // namespace chokepoint::core

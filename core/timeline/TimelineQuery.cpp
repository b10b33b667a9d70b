#include "core/timeline/TimelineQuery.h"

#include <algorithm>
#include <cmath>

#include "core/model/CounterSemantics.h"

namespace chokepoint::timeline {

namespace {

// Half-open overlap; an instant event (start == end) overlaps when its start is inside.
bool overlaps(core::TimestampNs startNs, core::TimestampNs endNs, core::TimeRange visible) {
    if (startNs >= visible.endNs) {
        return false;
    }
    return endNs > visible.startNs || (endNs == startNs && startNs >= visible.startNs);
}

// The first pixel boundary strictly after `timeNs`; pixels are counted from `originNs`.
core::TimestampNs nextPixelBoundary(core::TimestampNs timeNs, core::TimestampNs originNs, double nsPerPixel) {
    const double offsetPx = static_cast<double>(timeNs - originNs) / nsPerPixel;
    const double nextPx = std::floor(offsetPx) + 1.0;
    core::TimestampNs boundary = originNs + static_cast<core::TimestampNs>(std::ceil(nextPx * nsPerPixel));
    return std::max(boundary, timeNs + 1);
}

constexpr std::size_t kDominantSamples = 64;

std::uint32_t dominantMember(const Lane& lane, std::size_t first, std::size_t count) {
    std::size_t best = first;
    core::DurationNs bestDuration = -1;
    const std::size_t step = count <= kDominantSamples ? 1 : count / kDominantSamples;
    for (std::size_t k = 0; k < count; k += step) {
        const std::size_t i = first + k;
        const core::DurationNs d = lane.endNs(i) - lane.startNs(i);
        if (d > bestDuration) {
            bestDuration = d;
            best = i;
        }
    }
    return static_cast<std::uint32_t>(best);
}

}  // namespace

void collect(const Lane& lane, const QueryWindow& window, std::vector<DrawItem>& out) {
    const core::TimeRange visible = window.visible;
    if (lane.empty() || visible.empty() || !(window.nsPerPixel > 0)) {
        return;
    }
    const double minWidthNsF = std::max(window.minWidthPx, 0.0) * window.nsPerPixel;
    const auto minWidthNs = static_cast<core::DurationNs>(std::ceil(minWidthNsF));
    // Every event overlapping the window lies in [i, endIndex).
    std::size_t i = lane.firstEndingAfter(visible.startNs - 1);
    const std::size_t endIndex = lane.firstStartingAtOrAfter(visible.endNs, i);

    while (i < endIndex) {
        if (!overlaps(lane.startNs(i), lane.endNs(i), visible)) {
            ++i;  // only in lanes with overlapping events: ended before the window
            continue;
        }
        const core::TimestampNs startNs = lane.startNs(i);
        core::TimestampNs blockEndNs = lane.endNs(i);
        if (blockEndNs - startNs >= minWidthNs) {
            out.push_back(DrawItem{startNs, blockEndNs, static_cast<std::uint32_t>(i), 1,
                                   static_cast<std::uint32_t>(i)});
            ++i;
            continue;
        }
        // Fold: take every event starting before the pixel boundary that follows the block's end
        // (or its minimum width) by one pixel, then repeat from the new end. One binary search
        // per pixel.
        std::size_t j = i + 1;
        while (j < endIndex) {
            const core::TimestampNs limitNs = std::max(blockEndNs, startNs + minWidthNs);
            // Events starting in the pixel after the block's end join it: a block ends only at a
            // gap of at least one empty pixel, so every iteration advances at least one pixel.
            const core::TimestampNs boundaryNs =
                nextPixelBoundary(limitNs + static_cast<core::DurationNs>(window.nsPerPixel), visible.startNs,
                                  window.nsPerPixel);
            std::size_t k = std::min(lane.firstStartingAtOrAfter(boundaryNs, j), endIndex);
            if (k == j) {
                break;
            }
            // A wide event right at the edge keeps its own item.
            bool stop = false;
            if (lane.endNs(k - 1) - lane.startNs(k - 1) >= minWidthNs) {
                --k;
                stop = true;
                if (k == j) {
                    break;
                }
            }
            if (lane.maxEndThrough(k - 1) == lane.endNs(k - 1)) {
                blockEndNs = std::max(blockEndNs, lane.endNs(k - 1));
            } else {
                // Overlapping events in this lane: the prefix maximum may come from before the
                // block, so take the exact maximum of the new members.
                for (std::size_t m = j; m < k; ++m) {
                    blockEndNs = std::max(blockEndNs, lane.endNs(m));
                }
            }
            j = k;
            if (stop) {
                break;
            }
        }
        const std::size_t count = j - i;
        out.push_back(DrawItem{startNs, blockEndNs, static_cast<std::uint32_t>(i),
                               static_cast<std::uint32_t>(count),
                               count == 1 ? static_cast<std::uint32_t>(i) : dominantMember(lane, i, count)});
        i = j;
    }
}

std::size_t countOverlapping(const Lane& lane, core::TimeRange visible) {
    if (lane.empty() || visible.empty()) {
        return 0;
    }
    std::size_t i = lane.firstEndingAfter(visible.startNs - 1);
    const std::size_t endIndex = lane.firstStartingAtOrAfter(visible.endNs, i);
    std::size_t count = 0;
    for (; i < endIndex; ++i) {
        count += overlaps(lane.startNs(i), lane.endNs(i), visible) ? 1 : 0;
    }
    return count;
}

std::size_t hitTest(const Lane& lane, core::TimestampNs timeNs, core::DurationNs toleranceNs) {
    const std::size_t n = lane.size();
    if (n == 0) {
        return n;
    }
    // The last event starting at or before timeNs, then a bounded look back for an enclosing
    // event in lanes whose events overlap.
    const std::size_t after = lane.firstStartingAtOrAfter(timeNs + 1);
    constexpr std::size_t kLookBack = 64;
    std::size_t best = n;
    core::DurationNs bestDistance = toleranceNs + 1;
    for (std::size_t back = 0; back < kLookBack && back < after; ++back) {
        const std::size_t i = after - 1 - back;
        if (lane.maxEndThrough(i) < timeNs - toleranceNs) {
            break;  // nothing at or before i reaches timeNs
        }
        const core::DurationNs distance = lane.endNs(i) > timeNs ? 0 : timeNs - lane.endNs(i);
        if (distance < bestDistance) {
            best = i;
            bestDistance = distance;
        }
        if (distance == 0) {
            return i;  // the latest-starting event containing timeNs
        }
    }
    if (after < n) {
        const core::DurationNs distance = lane.startNs(after) - timeNs;
        if (distance < bestDistance) {
            best = after;
            bestDistance = distance;
        }
    }
    return bestDistance <= toleranceNs ? best : n;
}

std::vector<CounterColumn> counterColumns(std::span<const core::TimestampNs> timesNs,
                                          std::span<const double> values, const QueryWindow& window) {
    std::vector<CounterColumn> columns;
    const std::size_t n = std::min(timesNs.size(), values.size());
    const core::TimeRange visible = window.visible;
    if (n == 0 || visible.empty() || !(window.nsPerPixel > 0)) {
        return columns;
    }
    // Samples at or before the window start carry their value into the first column.
    auto first =
        std::upper_bound(timesNs.begin(), timesNs.begin() + static_cast<std::ptrdiff_t>(n), visible.startNs);
    std::size_t i = static_cast<std::size_t>(first - timesNs.begin());
    bool haveCarry = i > 0;
    double carry = haveCarry ? values[i - 1] : 0.0;
    const auto widthPx =
        static_cast<std::int64_t>(std::ceil(static_cast<double>(visible.durationNs()) / window.nsPerPixel));
    std::int64_t px = 0;
    while (px < widthPx) {
        const core::TimestampNs columnEndNs =
            visible.startNs +
            static_cast<core::TimestampNs>(std::ceil(static_cast<double>(px + 1) * window.nsPerPixel));
        const auto endIt = std::lower_bound(timesNs.begin() + static_cast<std::ptrdiff_t>(i),
                                            timesNs.begin() + static_cast<std::ptrdiff_t>(n), columnEndNs);
        const std::size_t k = static_cast<std::size_t>(endIt - timesNs.begin());
        if (k == i && !haveCarry) {
            if (k >= n) {
                break;
            }
            // Jump straight to the pixel of the next sample.
            px = std::max(px + 1, static_cast<std::int64_t>(
                                      static_cast<double>(timesNs[k] - visible.startNs) / window.nsPerPixel));
            continue;
        }
        CounterColumn column{static_cast<double>(px), carry, carry};
        if (!haveCarry) {
            column.minValue = column.maxValue = values[i];
        }
        for (std::size_t m = i; m < k; ++m) {
            column.minValue = std::min(column.minValue, values[m]);
            column.maxValue = std::max(column.maxValue, values[m]);
        }
        if (k > i) {
            carry = values[k - 1];
            haveCarry = true;
        }
        columns.push_back(column);
        i = k;
        ++px;
    }
    return columns;
}

}  // namespace chokepoint::timeline

namespace chokepoint::timeline {

std::vector<CounterColumn> counterColumns(const core::CounterTrack& track, const QueryWindow& window) {
    const std::size_t n = std::min(track.timesNs.size(), track.values.size());
    if (!core::sampleCoversPreviousInterval(track)) {
        return counterColumns(std::span(track.timesNs).first(n), std::span(track.values).first(n), window);
    }
    if (n < 2) {
        return {};  // one sample of a rate covers no interval
    }
    // Value i over (t[i-1], t[i]]: drawn from t[i-1] until the next value takes over at t[i].
    return counterColumns(std::span(track.timesNs).first(n - 1), std::span(track.values).subspan(1, n - 1),
                          window);
}

}  // namespace chokepoint::timeline

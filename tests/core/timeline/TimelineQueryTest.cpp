#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/timeline/TimelineQuery.h"

namespace chokepoint::timeline {
namespace {

EventRef kernelRef(std::uint32_t row) {
    return {EventKind::Kernel, row};
}

// A lane of `n` events of `durationNs` every `periodNs`, starting at `firstNs`.
Lane regularLane(std::size_t n, core::DurationNs durationNs, core::DurationNs periodNs,
                 core::TimestampNs firstNs = 0) {
    Lane lane;
    lane.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        const core::TimestampNs start = firstNs + static_cast<core::TimestampNs>(i) * periodNs;
        lane.add(start, start + durationNs, kernelRef(static_cast<std::uint32_t>(i)));
    }
    lane.finish();
    return lane;
}

std::size_t memberCount(const std::vector<DrawItem>& items) {
    std::size_t total = 0;
    for (const DrawItem& item : items) {
        total += item.count;
    }
    return total;
}

// Items are in time order, members are contiguous and do not repeat.
void expectWellFormed(const std::vector<DrawItem>& items) {
    for (std::size_t i = 1; i < items.size(); ++i) {
        EXPECT_EQ(items[i].first, items[i - 1].first + items[i - 1].count) << "item " << i;
        EXPECT_GE(items[i].startNs, items[i - 1].startNs) << "item " << i;
    }
    for (const DrawItem& item : items) {
        EXPECT_GE(item.dominant, item.first);
        EXPECT_LT(item.dominant, item.first + item.count);
        EXPECT_LE(item.startNs, item.endNs);
    }
}

TEST(TimelineQueryTest, EmptyLaneAndDegenerateWindowsGiveNothing) {
    Lane empty;
    empty.finish();
    std::vector<DrawItem> out;
    collect(empty, {{0, 1000}, 1.0, 2.0}, out);
    EXPECT_TRUE(out.empty());

    Lane lane = regularLane(10, 5, 10);
    collect(lane, {{50, 50}, 1.0, 2.0}, out);  // empty window
    EXPECT_TRUE(out.empty());
    collect(lane, {{0, 100}, 0.0, 2.0}, out);  // no zoom
    EXPECT_TRUE(out.empty());
    collect(lane, {{1000, 2000}, 1.0, 2.0}, out);  // after all events
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(countOverlapping(lane, {1000, 2000}), 0u);
}

TEST(TimelineQueryTest, SingleWideEventIsDrawnAsItself) {
    Lane lane;
    lane.add(100, 900, kernelRef(0));
    lane.finish();
    std::vector<DrawItem> out;
    collect(lane, {{0, 1000}, 1.0, 2.0}, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].count, 1u);
    EXPECT_FALSE(out[0].folded());
    EXPECT_EQ(out[0].startNs, 100);
    EXPECT_EQ(out[0].endNs, 900);
}

TEST(TimelineQueryTest, SingleNarrowEventStaysOneItem) {
    Lane lane;
    lane.add(500, 501, kernelRef(0));
    lane.finish();
    std::vector<DrawItem> out;
    collect(lane, {{0, 1'000'000}, 1000.0, 2.0}, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].count, 1u);
    EXPECT_EQ(out[0].first, 0u);
}

TEST(TimelineQueryTest, DenseNarrowEventsFoldIntoOneBlockWithDominantMember) {
    // 100 events of 10 ns every 20 ns at 100 ns per pixel: all sub-pixel and touching.
    Lane lane;
    for (std::uint32_t i = 0; i < 100; ++i) {
        const core::TimestampNs start = i * 20;
        lane.add(start, start + (i == 42 ? 19 : 10), kernelRef(i));
    }
    lane.finish();
    std::vector<DrawItem> out;
    collect(lane, {{0, 100'000}, 100.0, 2.0}, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(out[0].folded());
    EXPECT_EQ(out[0].count, 100u);
    EXPECT_EQ(out[0].startNs, 0);
    EXPECT_EQ(out[0].endNs, 99 * 20 + 10);
    EXPECT_EQ(out[0].dominant, 42u);
}

TEST(TimelineQueryTest, GapsWiderThanAPixelSplitBlocks) {
    // Two clusters of narrow events separated by 10 pixels of nothing.
    Lane lane;
    std::uint32_t row = 0;
    for (int i = 0; i < 5; ++i) {
        lane.add(i * 10, i * 10 + 5, kernelRef(row++));
    }
    for (int i = 0; i < 5; ++i) {
        lane.add(2000 + i * 10, 2000 + i * 10 + 5, kernelRef(row++));
    }
    lane.finish();
    std::vector<DrawItem> out;
    collect(lane, {{0, 10'000}, 100.0, 2.0}, out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].count, 5u);
    EXPECT_EQ(out[1].count, 5u);
    EXPECT_EQ(out[1].first, 5u);
    expectWellFormed(out);
}

TEST(TimelineQueryTest, WideEventNextToNarrowOnesKeepsItsOwnItem) {
    Lane lane;
    lane.add(0, 10, kernelRef(0));
    lane.add(20, 30, kernelRef(1));
    lane.add(40, 5000, kernelRef(2));  // 49 px wide
    lane.add(5010, 5020, kernelRef(3));
    lane.finish();
    std::vector<DrawItem> out;
    collect(lane, {{0, 10'000}, 100.0, 2.0}, out);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].count, 2u);
    EXPECT_EQ(out[1].count, 1u);
    EXPECT_EQ(out[1].first, 2u);
    EXPECT_EQ(out[2].first, 3u);
    expectWellFormed(out);
}

TEST(TimelineQueryTest, DeepZoomDrawsEveryEventSingly) {
    Lane lane = regularLane(1000, 500, 1000);
    std::vector<DrawItem> out;
    // 10 ns per pixel: each event is 50 px wide; the window touches events 100..200.
    collect(lane, {{100'250, 200'250}, 10.0, 2.0}, out);
    EXPECT_EQ(out.size(), 101u);
    EXPECT_EQ(out.front().first, 100u);
    for (const DrawItem& item : out) {
        EXPECT_EQ(item.count, 1u);
    }
    EXPECT_EQ(memberCount(out), countOverlapping(lane, {100'250, 200'250}));
}

TEST(TimelineQueryTest, EventsStraddlingTheWindowEdgesAreIncluded) {
    Lane lane;
    lane.add(0, 1000, kernelRef(0));
    lane.add(1500, 3000, kernelRef(1));
    lane.finish();
    std::vector<DrawItem> out;
    collect(lane, {{500, 2000}, 1.0, 2.0}, out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].first, 0u);
    EXPECT_EQ(out[1].first, 1u);
    // An event ending exactly at the window start is outside (half-open ranges).
    out.clear();
    collect(lane, {{1000, 1200}, 1.0, 2.0}, out);
    EXPECT_TRUE(out.empty());
}

TEST(TimelineQueryTest, InstantEventsAreVisible) {
    Lane lane;
    lane.add(100, 100, kernelRef(0));
    lane.add(300, 300, kernelRef(1));
    lane.finish();
    std::vector<DrawItem> out;
    collect(lane, {{0, 1000}, 1.0, 2.0}, out);
    EXPECT_EQ(memberCount(out), 2u);
    EXPECT_EQ(countOverlapping(lane, {100, 101}), 1u);
}

TEST(TimelineQueryTest, UnsortedInputIsSortedByFinish) {
    Lane lane;
    lane.add(300, 310, kernelRef(3));
    lane.add(100, 110, kernelRef(1));
    lane.add(200, 210, kernelRef(2));
    lane.finish();
    EXPECT_EQ(lane.startNs(0), 100);
    EXPECT_EQ(lane.ref(0).row, 1u);
    EXPECT_EQ(lane.ref(2).row, 3u);
    EXPECT_EQ(lane.find(kernelRef(2)), 1u);
    EXPECT_EQ(lane.find(kernelRef(9)), lane.size());
}

TEST(TimelineQueryTest, OverlappingEventsInOneLaneAreFoundThroughPrefixMaximum) {
    // A long event that starts first and outlasts many short ones after it.
    Lane lane;
    lane.add(0, 1'000'000, kernelRef(0));
    for (std::uint32_t i = 1; i <= 100; ++i) {
        lane.add(i * 100, i * 100 + 10, kernelRef(i));
    }
    lane.finish();
    EXPECT_EQ(lane.maxEndThrough(50), 1'000'000);
    // A window after all the short events still sees the long one.
    EXPECT_EQ(countOverlapping(lane, {500'000, 600'000}), 1u);
    std::vector<DrawItem> out;
    collect(lane, {{500'000, 600'000}, 100.0, 2.0}, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].first, 0u);
    // A window over the start sees everything.
    out.clear();
    collect(lane, {{0, 20'000}, 100.0, 2.0}, out);
    EXPECT_EQ(memberCount(out), 101u);
    expectWellFormed(out);
}

TEST(TimelineQueryTest, OneMillionEventsFullyZoomedOutCostPixelsNotEvents) {
    // 1 M kernels of 3 µs every 5 µs: 5 s of trace on 1,000 px (5 ms per pixel).
    const std::size_t n = 1'000'000;
    Lane lane = regularLane(n, 3'000, 5'000);
    const core::TimeRange all{0, static_cast<core::TimestampNs>(n) * 5'000};
    std::vector<DrawItem> out;
    collect(lane, {all, static_cast<double>(all.durationNs()) / 1000.0, 2.0}, out);
    // Touching sub-pixel events fold into a single block covering the whole lane.
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].count, n);
    EXPECT_EQ(out[0].startNs, 0);
    EXPECT_EQ(out[0].endNs, lane.endNs(n - 1));

    // Sparse pattern: bursts of 100 kernels separated by gaps of 10 pixels. Each burst is one block.
    Lane bursts;
    bursts.reserve(n);
    const core::DurationNs pixelNs = 5'000'000;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t burst = i / 100;
        const core::TimestampNs start = static_cast<core::TimestampNs>(burst) * 11 * pixelNs +
                                        static_cast<core::TimestampNs>(i % 100) * 1'000;
        bursts.add(start, start + 500, kernelRef(static_cast<std::uint32_t>(i)));
    }
    bursts.finish();
    const core::TimeRange burstWindow{0, 200 * 11 * pixelNs};  // first 200 bursts
    out.clear();
    collect(bursts, {burstWindow, static_cast<double>(pixelNs), 2.0}, out);
    EXPECT_EQ(out.size(), 200u);
    EXPECT_EQ(memberCount(out), 20'000u);
    EXPECT_EQ(memberCount(out), countOverlapping(bursts, burstWindow));
    expectWellFormed(out);
}

TEST(TimelineQueryTest, ItemCountIsBoundedByPixelsAtEveryZoom) {
    // Irregular durations and gaps; the number of items never exceeds the window's pixels.
    Lane lane;
    std::uint64_t state = 12345;
    core::TimestampNs t = 0;
    const std::size_t n = 200'000;
    for (std::size_t i = 0; i < n; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const core::DurationNs duration = 100 + static_cast<core::DurationNs>((state >> 33) % 20'000);
        const core::DurationNs gap = static_cast<core::DurationNs>((state >> 13) % 5'000);
        lane.add(t, t + duration, kernelRef(static_cast<std::uint32_t>(i)));
        t += duration + gap;
    }
    lane.finish();
    const double widthPx = 1200;
    for (double fraction : {1.0, 0.1, 0.01, 0.0001}) {
        const auto span = static_cast<core::DurationNs>(static_cast<double>(t) * fraction);
        const core::TimeRange window{t / 3, t / 3 + span};
        std::vector<DrawItem> out;
        collect(lane, {window, static_cast<double>(span) / widthPx, 2.0}, out);
        EXPECT_LE(out.size(), static_cast<std::size_t>(widthPx) + 2) << "fraction " << fraction;
        EXPECT_EQ(memberCount(out), countOverlapping(lane, window)) << "fraction " << fraction;
        expectWellFormed(out);
    }
}

TEST(TimelineQueryTest, IndexedSearchAgreesWithPlainBinarySearch) {
    // Starts with duplicates and gaps; every (from, time) pair must match std::lower_bound.
    Lane lane;
    std::vector<core::TimestampNs> starts;
    std::uint64_t state = 7;
    core::TimestampNs t = 0;
    for (std::uint32_t i = 0; i < 5'000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        t += static_cast<core::TimestampNs>((state >> 40) % 3);  // 0, 1 or 2: many equal starts
        lane.add(t, t + 1, kernelRef(i));
        starts.push_back(t);
    }
    lane.finish();
    for (std::size_t from : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64},
                             std::size_t{65}, std::size_t{1000}, std::size_t{4999}, std::size_t{5000}}) {
        for (core::TimestampNs q = -1; q <= t + 2; q += 7) {
            const auto expected = static_cast<std::size_t>(
                std::lower_bound(starts.begin() + static_cast<std::ptrdiff_t>(from), starts.end(), q) -
                starts.begin());
            ASSERT_EQ(lane.firstStartingAtOrAfter(q, from), expected) << "from " << from << " time " << q;
        }
    }
}

TEST(TimelineQueryTest, HitTestFindsContainingOrNearestEvent) {
    Lane lane = regularLane(10, 50, 100);  // [0,50) [100,150) ...
    EXPECT_EQ(hitTest(lane, 120, 0), 1u);
    EXPECT_EQ(hitTest(lane, 160, 5), lane.size());  // 10 ns from the nearest edge
    EXPECT_EQ(hitTest(lane, 160, 10), 1u);
    EXPECT_EQ(hitTest(lane, 195, 10), 2u);  // 5 ns before event 2
    EXPECT_EQ(hitTest(lane, 5000, 10), lane.size());
    Lane empty;
    EXPECT_EQ(hitTest(empty, 0, 100), 0u);

    // Overlapping lane: the latest-starting event containing the time wins.
    Lane nested;
    nested.add(0, 1000, kernelRef(0));
    nested.add(100, 200, kernelRef(1));
    nested.finish();
    EXPECT_EQ(hitTest(nested, 150, 0), 1u);
    EXPECT_EQ(hitTest(nested, 500, 0), 0u);
}

TEST(TimelineQueryTest, CounterColumnsKeepMinMaxPerPixelAndCarryValues) {
    const std::vector<core::TimestampNs> times = {0, 10, 20, 30, 1000};
    const std::vector<double> values = {1, 5, -2, 3, 7};
    // 100 ns per pixel over [0, 500): the first four samples share pixel 0.
    auto columns = counterColumns(times, values, {{0, 500}, 100.0, 2.0});
    ASSERT_EQ(columns.size(), 5u);
    EXPECT_EQ(columns[0].x, 0.0);
    EXPECT_EQ(columns[0].minValue, -2.0);
    EXPECT_EQ(columns[0].maxValue, 5.0);
    // Later pixels hold the last value.
    EXPECT_EQ(columns[3].minValue, 3.0);
    EXPECT_EQ(columns[3].maxValue, 3.0);

    // A window starting after samples carries the previous value in.
    columns = counterColumns(times, values, {{500, 700}, 100.0, 2.0});
    ASSERT_EQ(columns.size(), 2u);
    EXPECT_EQ(columns[0].minValue, 3.0);

    // A window before the first sample has nothing until it.
    const std::vector<core::TimestampNs> later = {450};
    const std::vector<double> one = {2};
    columns = counterColumns(later, one, {{0, 1000}, 100.0, 2.0});
    ASSERT_FALSE(columns.empty());
    EXPECT_EQ(columns.front().x, 4.0);
    EXPECT_TRUE(counterColumns({}, {}, {{0, 1000}, 100.0, 2.0}).empty());
}

// A thread's CPU use is a rate over the interval before its sample (the agent's /proc reads):
// 80 % at 200 ns is the use over (100, 200], drawn there, not after it. Other counters hold their
// value until the next sample.
TEST(CounterColumns, ThreadCpuUseIsDrawnOverTheIntervalItCovers) {
    // 10 ns per pixel over [0, 400): the value drawn in the pixel of time t.
    auto valueAt = [](const std::vector<CounterColumn>& columns, core::TimestampNs t) {
        for (const CounterColumn& c : columns) {
            if (c.x == static_cast<double>(t / 10)) {
                return c.maxValue;
            }
        }
        return -1.0;  // nothing drawn there
    };
    const QueryWindow window{{0, 400}, 10.0, 2.0};
    const core::CounterTrack cpu{"CPU %", "%", -1, 5, 6, {100, 200, 300}, {0, 80, 10}};
    auto columns = counterColumns(cpu, window);
    EXPECT_EQ(valueAt(columns, 50), -1.0);   // before the first interval
    EXPECT_EQ(valueAt(columns, 150), 80.0);  // (100, 200]
    EXPECT_EQ(valueAt(columns, 250), 10.0);  // (200, 300]
    EXPECT_TRUE(counterColumns(core::CounterTrack{"CPU %", "%", -1, 5, 6, {100}, {50}}, window).empty());

    // The same samples on a GPU metric: each holds from its time.
    const core::CounterTrack level{"SM active", "%", 0, 0, 0, {100, 200, 300}, {0, 80, 10}};
    columns = counterColumns(level, window);
    EXPECT_EQ(valueAt(columns, 150), 0.0);
    EXPECT_EQ(valueAt(columns, 250), 80.0);  // [200, 300)
    EXPECT_EQ(valueAt(columns, 350), 10.0);
}

}  // namespace
}  // namespace chokepoint::timeline

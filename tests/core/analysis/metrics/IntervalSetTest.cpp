#include "core/analysis/metrics/IntervalSet.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace chokepoint::analysis {
namespace {

using core::TimeRange;

TEST(IntervalSet, UnionMergesOverlapsAndDropsEmptyAndInvertedIntervals) {
    IntervalSet set =
        IntervalSet::fromUnsorted({{50, 80}, {0, 10}, {5, 20}, {30, 30}, {40, 35}, {20, 25}, {70, 90}});
    ASSERT_EQ(set.size(), 2u);
    EXPECT_EQ(set.intervals()[0], (TimeRange{0, 25}));  // touching intervals merge
    EXPECT_EQ(set.intervals()[1], (TimeRange{50, 90}));
    EXPECT_EQ(set.totalNs(), 65);
}

TEST(IntervalSet, CoveredClippedAndGaps) {
    IntervalSet set = IntervalSet::fromSortedByStart({{0, 10}, {20, 30}, {40, 50}});
    EXPECT_EQ(set.coveredNs({5, 45}), 5 + 10 + 5);
    EXPECT_EQ(set.coveredNs({10, 20}), 0);
    EXPECT_EQ(set.coveredNs({}), 0);
    IntervalSet clipped = set.clippedTo({5, 25});
    ASSERT_EQ(clipped.size(), 2u);
    EXPECT_EQ(clipped.intervals()[0], (TimeRange{5, 10}));
    EXPECT_EQ(clipped.intervals()[1], (TimeRange{20, 25}));
    IntervalSet gaps = set.gapsWithin({-5, 60});
    ASSERT_EQ(gaps.size(), 4u);
    EXPECT_EQ(gaps.intervals()[0], (TimeRange{-5, 0}));
    EXPECT_EQ(gaps.intervals()[3], (TimeRange{50, 60}));
    EXPECT_EQ(gaps.totalNs(), 65 - set.totalNs());
}

TEST(IntervalSet, IntersectSubtractAndUnion) {
    IntervalSet a = IntervalSet::fromSortedByStart({{0, 100}, {150, 200}});
    IntervalSet b = IntervalSet::fromSortedByStart({{50, 180}});
    IntervalSet both = a.intersect(b);
    ASSERT_EQ(both.size(), 2u);
    EXPECT_EQ(both.totalNs(), 50 + 30);
    IntervalSet onlyB = b.subtract(a);
    ASSERT_EQ(onlyB.size(), 1u);
    EXPECT_EQ(onlyB.intervals()[0], (TimeRange{100, 150}));
    IntervalSet onlyA = a.subtract(b);
    ASSERT_EQ(onlyA.size(), 2u);
    EXPECT_EQ(onlyA.intervals()[0], (TimeRange{0, 50}));
    EXPECT_EQ(onlyA.intervals()[1], (TimeRange{180, 200}));
    EXPECT_EQ(a.unionWith(b).totalNs(), 200);
    // One long interval subtracted from many short ones and the reverse.
    IntervalSet many = IntervalSet::fromSortedByStart({{0, 1}, {2, 3}, {4, 5}, {6, 7}});
    EXPECT_EQ(many.subtract(IntervalSet::fromSortedByStart({{1, 6}})).totalNs(), 2);
    EXPECT_EQ(IntervalSet::fromSortedByStart({{0, 7}}).subtract(many).totalNs(), 3);
}

// subtract skips the other set's intervals that end before each of its own by galloping: checked
// against a nanosecond-by-nanosecond reference on random sets of every relative size, including a
// single window over a long set (gapsWithin per step) and the reverse.
TEST(IntervalSet, SubtractMatchesAPointByPointReference) {
    std::mt19937 random(20261127);
    const auto randomSet = [&](int count, int spanNs) {
        std::vector<TimeRange> ranges;
        std::uniform_int_distribution<int> start(0, spanNs), length(1, 12);
        for (int i = 0; i < count; ++i) {
            const core::TimestampNs s = start(random);
            ranges.push_back({s, s + length(random)});
        }
        return IntervalSet::fromUnsorted(std::move(ranges));
    };
    constexpr int kSpanNs = 600;
    for (int trial = 0; trial < 300; ++trial) {
        const int mineCount = trial % 3 == 0 ? 1 : 1 + trial % 40;
        const int otherCount = trial % 3 == 1 ? 1 : 1 + (trial * 7) % 90;
        const IntervalSet mine = randomSet(mineCount, kSpanNs);
        const IntervalSet other = randomSet(otherCount, kSpanNs);
        const IntervalSet difference = mine.subtract(other);
        for (core::TimestampNs t = 0; t < kSpanNs + 20; ++t) {
            const auto in = [t](const IntervalSet& set) {
                for (const TimeRange& r : set.intervals()) {
                    if (r.contains(t)) {
                        return true;
                    }
                }
                return false;
            };
            ASSERT_EQ(in(difference), in(mine) && !in(other)) << "trial " << trial << " at " << t;
        }
    }
}

}  // namespace
}  // namespace chokepoint::analysis

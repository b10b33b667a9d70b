// Idle gaps binned into pixel columns: a column's share is the time covered, its key the cause that
// covers most of it (core/timeline/ColumnCoverage.h).
#include "core/timeline/ColumnCoverage.h"

#include <gtest/gtest.h>

namespace chokepoint::timeline {
namespace {

TEST(ColumnCoverage, ManyShortGapsBetweenBusyKernelsAreAFaintColumnNotASolidOne) {
    // 10 columns of 1 ms; in each, ten 4 µs gaps between kernels: 4 % idle.
    ColumnCoverage coverage({0, 10'000'000}, 10, 2);
    for (core::TimestampNs t = 0; t < 10'000'000; t += 100'000) {
        coverage.add({t + 50'000, t + 54'000}, 0);
    }
    for (const ColumnCover& c : coverage.columns()) {
        EXPECT_NEAR(c.share, 0.04, 1e-4);
        EXPECT_EQ(c.key, 0);
    }
}

TEST(ColumnCoverage, AGapSpanningColumnsCoversEachByItsOverlap) {
    ColumnCoverage coverage({0, 4'000}, 4, 1);  // 1 µs columns
    coverage.add({500, 2'250}, 0);
    const std::vector<ColumnCover> c = coverage.columns();
    ASSERT_EQ(c.size(), 4u);
    EXPECT_NEAR(c[0].share, 0.5, 1e-6);
    EXPECT_NEAR(c[1].share, 1.0, 1e-6);
    EXPECT_NEAR(c[2].share, 0.25, 1e-6);
    EXPECT_EQ(c[3].share, 0);
    EXPECT_EQ(c[3].key, -1);
}

TEST(ColumnCoverage, TheCauseCoveringMostOfAColumnNamesIt) {
    ColumnCoverage coverage({0, 1'000}, 1, 3);
    coverage.add({0, 100}, 0);
    coverage.add({200, 500}, 2);
    coverage.add({600, 700}, 0);
    const ColumnCover c = coverage.columns().at(0);
    EXPECT_EQ(c.key, 2);
    EXPECT_NEAR(c.share, 0.5, 1e-6);
}

TEST(ColumnCoverage, IntervalsOutsideTheViewAndBadKeysAreIgnored) {
    ColumnCoverage coverage({1'000, 2'000}, 2, 1);
    coverage.add({0, 900}, 0);
    coverage.add({2'100, 3'000}, 0);
    coverage.add({1'000, 2'000}, 5);
    coverage.add({1'000, 2'000}, -1);
    coverage.add({500, 1'250}, 0);  // clipped at the view's start
    const std::vector<ColumnCover> c = coverage.columns();
    EXPECT_NEAR(c[0].share, 0.5, 1e-6);
    EXPECT_EQ(c[1].share, 0);
    // Overlapping intervals never make a column more than full; an empty view has nothing to cover.
    ColumnCoverage twice({0, 1'000}, 1, 1);
    twice.add({0, 1'000}, 0);
    twice.add({0, 1'000}, 0);
    EXPECT_EQ(twice.columns().at(0).share, 1.0f);
    ColumnCoverage none({5, 5}, 3, 1);
    none.add({0, 10}, 0);
    for (const ColumnCover& cover : none.columns()) {
        EXPECT_EQ(cover.share, 0);
    }
}

}  // namespace
}  // namespace chokepoint::timeline

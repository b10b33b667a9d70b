#include <gtest/gtest.h>

#include "core/timeline/TimeAxis.h"

namespace chokepoint::timeline {
namespace {

TEST(TimeAxisTest, StepsFollowOneTwoFive) {
    EXPECT_EQ(chooseTickStep(0.01, 90), 1);  // never below 1 ns
    EXPECT_EQ(chooseTickStep(1.0, 90), 100);
    EXPECT_EQ(chooseTickStep(1.2, 90), 200);  // 108 ns wanted
    EXPECT_EQ(chooseTickStep(3.0, 90), 500);  // 270 ns wanted
    EXPECT_EQ(chooseTickStep(6.0, 90), 1000);
    EXPECT_EQ(chooseTickStep(1e7, 100), core::kNsPerSecond);
}

TEST(TimeAxisTest, LabelsUseTheStepsUnitWithEnoughDecimals) {
    EXPECT_EQ(formatTickLabel(0, 100), "0");
    EXPECT_EQ(formatTickLabel(300, 100), "300 ns");
    EXPECT_EQ(formatTickLabel(1500, 500), "1.5 µs");
    EXPECT_EQ(formatTickLabel(2'000'000, 1'000'000), "2 ms");
    EXPECT_EQ(formatTickLabel(12'250'000, 250'000), "12.25 ms");
    EXPECT_EQ(formatTickLabel(3 * core::kNsPerSecond, core::kNsPerSecond), "3 s");
    EXPECT_EQ(formatTickLabel(-2'000, 1'000), "-2 µs");
}

TEST(TimeAxisTest, TicksCoverTheWindowAlignedToTheOrigin) {
    // 1 ms over 1000 px relative to an origin 1 s before: step 100 µs (90 px at 1 µs/px).
    const core::TimestampNs origin = 5'000'000'000;
    const core::TimeRange visible{origin + 1'000'000'050, origin + 1'001'000'050};
    AxisTicks ticks = computeTicks(visible, 1000.0, origin);
    EXPECT_EQ(ticks.stepNs, 100'000);
    ASSERT_FALSE(ticks.ticks.empty());
    int major = 0;
    for (const AxisTick& tick : ticks.ticks) {
        EXPECT_TRUE(visible.contains(tick.timeNs));
        EXPECT_EQ((tick.timeNs - origin) % 20'000, 0);
        if (tick.major) {
            ++major;
            EXPECT_FALSE(tick.label.empty());
        } else {
            EXPECT_TRUE(tick.label.empty());
        }
    }
    EXPECT_EQ(major, 10);  // 1000.1 ms .. 1001.0 ms
    EXPECT_EQ(ticks.ticks.front().label, "");
    bool sawLabel = false;
    for (const AxisTick& tick : ticks.ticks) {
        if (tick.major && tick.label == "1.0001 s") {
            sawLabel = true;
        }
    }
    EXPECT_TRUE(sawLabel);
}

TEST(TimeAxisTest, EmptyInputsGiveNoTicks) {
    EXPECT_TRUE(computeTicks({10, 10}, 100, 0).ticks.empty());
    EXPECT_TRUE(computeTicks({0, 100}, 0, 0).ticks.empty());
}

}  // namespace
}  // namespace chokepoint::timeline

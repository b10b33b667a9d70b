// The one step-time definition (StepTimes.h): only steps that are clearly not training (warm-up,
// compilation, checkpointing) are flagged, said so, and kept out of the mean and the median; a slow
// step in the middle of the run is part of what the job costs and counts, named as far from the
// median; regular jitter is not even that.

#include "core/analysis/metrics/StepTimes.h"

#include <gtest/gtest.h>

#include <vector>

namespace chokepoint::analysis {
namespace {

StepsResult stepsOf(const std::vector<core::DurationNs>& durations) {
    StepsResult r;
    r.source = StepSource::ProfilerStep;
    r.stretched = true;
    core::TimestampNs t = 0;
    for (std::size_t i = 0; i < durations.size(); ++i) {
        Step s;
        s.number = static_cast<std::int64_t>(i + 1);
        s.name = "ProfilerStep#" + std::to_string(i + 1);
        s.cpuRange = s.range = {t, t + durations[i]};
        t += durations[i];
        r.steps.push_back(s);
    }
    return r;
}

TEST(StepTimes, ASlowFirstStepIsWarmUpAndLeftOutOfTheMean) {
    const StepTimeSummary s = summarizeStepTimes(stepsOf({400, 100, 102, 98, 101, 99}));
    EXPECT_EQ(s.allCount, 6);
    EXPECT_EQ(s.count, 5);
    ASSERT_EQ(s.excluded.size(), 1u);
    EXPECT_EQ(s.excluded[0].stepIndex, 0);
    EXPECT_TRUE(s.excluded[0].warmUp);
    EXPECT_NE(s.excluded[0].reason.find("warm-up"), std::string::npos) << s.excluded[0].reason;
    EXPECT_DOUBLE_EQ(s.meanNs, 100.0);
    EXPECT_DOUBLE_EQ(s.medianNs, 100.0);
    EXPECT_DOUBLE_EQ(s.allMeanNs, 150.0);
    EXPECT_FALSE(s.isSteady(0));
    EXPECT_TRUE(s.isSteady(1));
    const std::string text = describeStepTimes(s);
    EXPECT_NE(text.find("over 5 of 6"), std::string::npos) << text;
    EXPECT_NE(text.find("ProfilerStep#1"), std::string::npos) << text;
    EXPECT_NE(text.find("left out"), std::string::npos) << text;
}

// min and max bound the steady steps, and the sentence says them before the definition, where a
// reader takes them with the mean and median, not after "mean of all 6 steps" (which once read
// "mean of all 5 steps 154 ms (min 65.4 ms, max 66.1 ms)" under a 505 ms warm-up step).
TEST(StepTimes, MinAndMaxAreOfTheSteadyStepsAndStandWithTheMean) {
    const StepTimeSummary s =
        summarizeStepTimes(stepsOf({400'000, 100'000, 102'000, 98'000, 101'000, 99'000}));
    EXPECT_DOUBLE_EQ(s.minNs, 98'000.0);
    EXPECT_DOUBLE_EQ(s.maxNs, 102'000.0);
    const std::string text = describeStepTimes(s);
    const std::size_t range = text.find("min 98.0 µs, max 102 µs");
    ASSERT_NE(range, std::string::npos) << text;
    EXPECT_LT(range, text.find("over 5 of 6")) << text;
    EXPECT_LT(range, text.find("mean of all 6 steps")) << text;
}

TEST(StepTimes, ASlowStepInTheMiddleCountsAndIsNamed) {
    // resnet50-nw4's shape: a DataLoader batch that comes late makes one step 1.8x the others.
    const StepTimeSummary s = summarizeStepTimes(stepsOf({100, 101, 99, 180, 100, 102}));
    EXPECT_TRUE(s.excluded.empty());
    EXPECT_EQ(s.count, 6);
    EXPECT_NEAR(s.meanNs, 682.0 / 6.0, 1e-9);
    EXPECT_DOUBLE_EQ(s.medianNs, 100.5);  // the robust figure beside the mean
    ASSERT_EQ(s.keptFar.size(), 1u);
    EXPECT_EQ(s.keptFar[0].stepIndex, 3);
    const std::string text = describeStepTimes(s);
    EXPECT_NE(text.find("over all 6"), std::string::npos) << text;
    EXPECT_NE(text.find("kept"), std::string::npos) << text;
    EXPECT_NE(text.find("ProfilerStep#4"), std::string::npos) << text;
    EXPECT_NE(text.find("robust"), std::string::npos) << text;
}

// A step that saves a checkpoint (or logs, or evaluates) for a good part of its window and is slower
// than the others is not training: it is left out, and the reason says what it did.
TEST(StepTimes, ACheckpointStepIsLeftOutWithItsReason) {
    const StepTimeSummary s =
        summarizeStepTimes(stepsOf({100, 101, 99, 400, 100, 102}), {}, {}, {0, 0, 0, 290, 0, 0});
    ASSERT_EQ(s.excluded.size(), 1u);
    EXPECT_EQ(s.excluded[0].stepIndex, 3);
    EXPECT_FALSE(s.excluded[0].warmUp);
    EXPECT_NE(s.excluded[0].reason.find("checkpoint"), std::string::npos) << s.excluded[0].reason;
    EXPECT_TRUE(s.keptFar.empty());
    EXPECT_EQ(s.count, 5);
    EXPECT_NE(describeStepTimes(s).find("left out"), std::string::npos);
    // Logging in every step is the steady state: nothing left out for it.
    EXPECT_TRUE(summarizeStepTimes(stepsOf({150, 151, 149, 150}), {}, {}, {40, 40, 40, 40}).excluded.empty());
}

// Counter-example: steps that jitter by a few per cent are all kept, even when one of them is many
// MADs from the median (very regular steps have a tiny MAD).
TEST(StepTimes, JitterWithinTenPercentIsNotAnOutlier) {
    const StepTimeSummary s = summarizeStepTimes(stepsOf({1000, 1000, 1001, 1000, 999, 1060}));
    EXPECT_TRUE(s.excluded.empty());
    EXPECT_EQ(s.count, 6);
    EXPECT_NE(describeStepTimes(s).find("over all 6"), std::string::npos);
}

// Counter-example: too few steps to tell an outlier from the steady state.
TEST(StepTimes, ThreeStepsAreNeverTrimmed) {
    const StepTimeSummary s = summarizeStepTimes(stepsOf({500, 100, 100}));
    EXPECT_TRUE(s.excluded.empty());
    EXPECT_NEAR(s.meanNs, 700.0 / 3.0, 1e-9);
}

// Counter-example: two regimes of equal size have no steady state; nothing is dropped (the median
// absolute deviation is as large as the difference).
TEST(StepTimes, TwoRegimesOfEqualSizeAreBothKept) {
    const StepTimeSummary s = summarizeStepTimes(stepsOf({100, 100, 100, 300, 300, 300}));
    EXPECT_TRUE(s.excluded.empty());
    EXPECT_EQ(s.count, 6);
}

// A recompilation in the middle of the run is a warm-up step too, and with only three steps (too
// few for the outlier tests) the compiling step is still left out.
TEST(StepTimes, AStepThatCompilesIsWarmUpWhereverItFalls) {
    const StepTimeSummary s = summarizeStepTimes(stepsOf({100, 101, 250}), {}, {0, 0, 120});
    ASSERT_EQ(s.excluded.size(), 1u);
    EXPECT_EQ(s.excluded[0].stepIndex, 2);
    EXPECT_TRUE(s.excluded[0].warmUp);
    EXPECT_NE(s.excluded[0].reason.find("compiling"), std::string::npos) << s.excluded[0].reason;
    EXPECT_EQ(s.count, 2);
    EXPECT_DOUBLE_EQ(s.meanNs, 100.5);
}

// A slow first step that the outlier test already excluded gets the compilation as its reason.
TEST(StepTimes, ACompilingFirstStepSaysItCompiles) {
    const StepTimeSummary s =
        summarizeStepTimes(stepsOf({400, 100, 102, 98, 101, 99}), {}, {300, 0, 0, 0, 0, 0});
    ASSERT_EQ(s.excluded.size(), 1u);
    EXPECT_EQ(s.excluded[0].stepIndex, 0);
    EXPECT_NE(s.excluded[0].reason.find("compiling 300 ns"), std::string::npos) << s.excluded[0].reason;
}

// Counter-examples: compiling in every step is the steady state (a recompilation each step is a
// host-bound problem, not a warm-up); a step that compiles a little and is not slower counts; a
// little compilation (under 10 % of the step) is not a reason.
TEST(StepTimes, CompilationThatIsNotAWarmUpKeepsTheStep) {
    EXPECT_TRUE(summarizeStepTimes(stepsOf({250, 240, 260}), {}, {120, 110, 130}).excluded.empty());
    EXPECT_TRUE(summarizeStepTimes(stepsOf({100, 101, 99, 100}), {}, {0, 50, 0, 0}).excluded.empty());
    EXPECT_TRUE(summarizeStepTimes(stepsOf({100, 101, 150}), {}, {0, 0, 10}).excluded.empty());
}

}  // namespace
}  // namespace chokepoint::analysis

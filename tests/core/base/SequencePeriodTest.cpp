#include "core/base/SequencePeriod.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace chokepoint::core {
namespace {

// One training step: a forward of `layers` identical layers (3 kernels each), a loss, a backward
// of the layers (2 kernels each) and an optimizer kernel.
std::vector<std::uint32_t> step(int layers) {
    std::vector<std::uint32_t> s;
    for (int l = 0; l < layers; ++l) {
        s.insert(s.end(), {10, 11, 12});
    }
    s.push_back(20);
    for (int l = 0; l < layers; ++l) {
        s.insert(s.end(), {30, 31});
    }
    s.push_back(40);
    return s;
}

std::vector<std::uint32_t> job(int startUpLaunches, int steps, int layers) {
    std::vector<std::uint32_t> seq;
    for (int i = 0; i < startUpLaunches; ++i) {
        seq.push_back(static_cast<std::uint32_t>(100 + i % 37));  // model build, autotuning
    }
    for (int k = 0; k < steps; ++k) {
        const std::vector<std::uint32_t> s = step(layers);
        seq.insert(seq.end(), s.begin(), s.end());
    }
    return seq;
}

TEST(SequencePeriodTest, FindsTheStepAfterAStartUpAndNotTheLayerInsideIt) {
    const int layers = 12;
    const std::size_t launchesPerStep = step(layers).size();
    const std::vector<std::uint32_t> seq = job(200, 8, layers);
    const SequencePeriod found = findSequencePeriod(seq);
    // A layer's kernels recur every 3 launches inside the forward, but that does not hold for
    // the whole step: the period is the step.
    EXPECT_EQ(found.period, launchesPerStep);
    EXPECT_EQ(found.repetitionStarts.size(), 8u);
    ASSERT_FALSE(found.repetitionStarts.empty());
    EXPECT_GE(found.repetitionStarts.front(), 200u) << "the start-up belongs to no step";
    for (std::size_t k = 1; k < found.repetitionStarts.size(); ++k) {
        EXPECT_EQ(found.repetitionStarts[k] - found.repetitionStarts[k - 1], launchesPerStep);
    }
}

TEST(SequencePeriodTest, NoPeriodInASequenceThatDoesNotRepeat) {
    std::vector<std::uint32_t> seq;
    for (std::uint32_t i = 0; i < 500; ++i) {
        seq.push_back(i);
    }
    EXPECT_EQ(findSequencePeriod(seq).period, 0u);
    EXPECT_TRUE(findSequencePeriod(seq).repetitionStarts.empty());
    EXPECT_EQ(findSequencePeriod({}).period, 0u);
}

TEST(SequencePeriodTest, OneRepetitionIsNotAPeriodButTwoAre) {
    const std::vector<std::uint32_t> once = job(0, 1, 4);
    EXPECT_EQ(findSequencePeriod(once).period, 0u);
    const std::vector<std::uint32_t> twice = job(0, 2, 4);
    EXPECT_EQ(findSequencePeriod(twice).period, step(4).size());
    EXPECT_EQ(findSequencePeriod(twice).repetitionStarts.size(), 2u);
}

TEST(SequencePeriodTest, AStartUpLongerThanTheStepsHidesThePeriodUntilTheStepsAreMost) {
    // The periodic part must hold at least half of the sequence.
    const std::size_t launchesPerStep = step(4).size();
    EXPECT_EQ(findSequencePeriod(job(static_cast<int>(launchesPerStep * 5), 3, 4)).period, 0u);
    EXPECT_EQ(findSequencePeriod(job(static_cast<int>(launchesPerStep * 5), 6, 4)).period, launchesPerStep);
}

TEST(SequencePeriodTest, AMinimumPeriodIgnoresTheShortLoopsOfAStartUp) {
    // Weight initialisation: the same two kernels for each of 150 layers. Seen on its own (what a
    // capture sees before the first step) it repeats; a minimum period says it is no step.
    std::vector<std::uint32_t> seq;
    for (int layer = 0; layer < 150; ++layer) {
        seq.insert(seq.end(), {500, 501});
    }
    SequencePeriodOptions options;
    options.minPeriod = 8;
    EXPECT_EQ(findSequencePeriod(seq).period, 2u);
    EXPECT_EQ(findSequencePeriod(seq, options).period, 0u);
    // Once the steps have come, they are the period either way.
    const std::vector<std::uint32_t> steps = job(0, 20, 4);
    seq.insert(seq.end(), steps.begin(), steps.end());
    const SequencePeriod found = findSequencePeriod(seq, options);
    EXPECT_EQ(found.period, step(4).size());
    ASSERT_FALSE(found.repetitionStarts.empty());
    EXPECT_GE(found.repetitionStarts.front(), 300u);
}

TEST(SequencePeriodTest, ToleratesAFewLaunchesThatDifferBetweenSteps) {
    std::vector<std::uint32_t> seq = job(0, 10, 6);
    const std::size_t launchesPerStep = step(6).size();
    seq[launchesPerStep * 4 + 5] = 999;  // one step launched another kernel in one place
    const SequencePeriod found = findSequencePeriod(seq);
    EXPECT_EQ(found.period, launchesPerStep);
    EXPECT_EQ(found.repetitionStarts.size(), 10u);
}

}  // namespace
}  // namespace chokepoint::core

#include "collectors/agent/LaunchStepCounter.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "collectors/agent/ClockSync.h"

namespace chokepoint::collectors {
namespace {

constexpr core::TimestampNs kLater = LaunchStepCounter::kMinRecountNs;

// One training step's kernels (at least LaunchStepCounter::kMinLaunchesPerStep of them).
const std::vector<std::string> kStep = {
    "ampere_sgemm_128x64_tn",   "vectorized_elementwise_kernel", "cunn_SoftMaxForward",   "nll_loss_forward",
    "nll_loss_backward",        "cunn_SoftMaxBackward",          "ampere_sgemm_64x64_nn", "reduce_kernel",
    "multi_tensor_apply_kernel"};

void launchSteps(LaunchStepCounter& counter, int steps) {
    for (int k = 0; k < steps; ++k) {
        for (const std::string& name : kStep) {
            counter.onLaunch(name.c_str());
        }
    }
}

TEST(LaunchStepCounterTest, CountsTheRepetitionsOfTheLaunchSequenceAfterTheStartUp) {
    LaunchStepCounter counter;
    counter.reset();
    for (int i = 0; i < 20; ++i) {
        counter.onLaunch(("init_kernel_" + std::to_string(i)).c_str());
    }
    core::TimestampNs now = kLater;
    EXPECT_EQ(counter.repetitionsStarted(now), 0u);
    launchSteps(counter, 5);
    now += kLater;
    EXPECT_EQ(counter.repetitionsStarted(now), 5u);
    EXPECT_EQ(counter.period(), kStep.size());
    // Between searches the anchor is counted as it comes.
    launchSteps(counter, 2);
    EXPECT_EQ(counter.repetitionsStarted(now + 1), 7u);
    EXPECT_EQ(counter.launches(), 20u + 7 * kStep.size());
}

TEST(LaunchStepCounterTest, LaunchesFromSeveralThreadsAreAllCounted) {
    LaunchStepCounter counter;
    counter.reset();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&counter] {
            for (int i = 0; i < 1000; ++i) {
                counter.onLaunch("k");
            }
        });
    }
    for (std::thread& t : threads) {
        t.join();
    }
    counter.repetitionsStarted(kLater);
    EXPECT_EQ(counter.launches(), 4000u);
}

TEST(LaunchStepCounterTest, ALaunchWithoutANameIsOneIdOfItsOwn) {
    LaunchStepCounter counter;
    counter.reset();
    for (int k = 0; k < 4; ++k) {
        for (const std::string& name : kStep) {
            counter.onLaunch(name.c_str());
        }
        counter.onLaunch(nullptr);  // a launch CUPTI names none
        counter.onLaunch("b");
    }
    EXPECT_EQ(counter.repetitionsStarted(kLater), 4u);
    EXPECT_EQ(counter.period(), kStep.size() + 2);
}

TEST(LaunchStepCounterTest, AShortLoopOfTheStartUpIsNotAStep) {
    LaunchStepCounter counter;
    counter.reset();
    for (int layer = 0; layer < 200; ++layer) {  // initialising each layer's weights
        counter.onLaunch("normal_kernel");
        counter.onLaunch("fill_kernel");
    }
    EXPECT_EQ(counter.repetitionsStarted(kLater), 0u);
    EXPECT_EQ(counter.period(), 0u);
    EXPECT_EQ(counter.anchorLaunchesSeen(), 0u);
}

TEST(LaunchStepCounterTest, TheAnchorsLaunchesAreStampedAsTheyHappenOnceItIsKnown) {
    LaunchStepCounter counter;
    counter.reset();
    launchSteps(counter, 3);
    EXPECT_EQ(counter.repetitionsStarted(kLater), 3u);
    EXPECT_EQ(counter.anchorLaunchesSeen(), 0u) << "launches before the anchor was known are not stamped";
    const auto before = monotonicNowNs();
    launchSteps(counter, 2);
    const auto after = monotonicNowNs();
    EXPECT_EQ(counter.anchorLaunchesSeen(), 2u);
    EXPECT_GE(counter.anchorLaunchTimeNs(1), before);
    EXPECT_LE(counter.anchorLaunchTimeNs(2), after);
    EXPECT_LE(counter.anchorLaunchTimeNs(1), counter.anchorLaunchTimeNs(2));
    EXPECT_EQ(counter.anchorLaunchTimeNs(3), -1);
    EXPECT_EQ(counter.repetitionsStarted(2 * kLater), 5u);
    counter.freezeAnchor();
    launchSteps(counter, 1);
    EXPECT_EQ(counter.anchorLaunchesSeen(), 3u) << "a frozen anchor is still stamped";
    EXPECT_EQ(counter.repetitionsStarted(3 * kLater), 5u) << "but launches are no longer kept for the search";
}

TEST(LaunchStepCounterTest, ResetForgetsTheLastCapture) {
    LaunchStepCounter counter;
    counter.reset();
    launchSteps(counter, 4);
    EXPECT_EQ(counter.repetitionsStarted(kLater), 4u);
    counter.reset();
    EXPECT_EQ(counter.repetitionsStarted(2 * kLater), 0u);
    EXPECT_EQ(counter.launches(), 0u);
    EXPECT_EQ(counter.period(), 0u);
}

}  // namespace
}  // namespace chokepoint::collectors

#include "collectors/agent/LaunchStepCounter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "collectors/agent/ClockSync.h"
#include "core/base/SequencePeriod.h"
#include "core/format/CptraceReader.h"

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

// --- On real launch sequences: the agent's H100 captures in tests/data/h100-agent-2026-11-26 ------
// These jobs marked their steps (the helper's chokepoint:step ranges), so the steps the launches
// give can be checked against the markers: the kernels' names in launch (correlation id) order are
// what the launch callbacks would have seen.

namespace chokepoint::collectors {
namespace {

struct RealLaunches {
    std::vector<std::string> names;            // kernel names in launch order
    std::vector<core::TimestampNs> launchNs;   // their launch calls' start
    std::vector<core::TimeRange> markerSteps;  // chokepoint:step ranges
};

RealLaunches realLaunches(const std::string& file) {
    RealLaunches out;
    const std::string path = std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/data/h100-agent-2026-11-26/" + file;
    core::Result<core::TraceModel> loaded = core::readCptrace(path);
    EXPECT_TRUE(loaded.ok()) << path << ": " << (loaded.ok() ? "" : loaded.error().message);
    if (!loaded.ok()) {
        return out;
    }
    const core::TraceModel& m = *loaded;
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        if (m.kernels.launchCall[i].valid()) {
            rows.push_back(i);
        }
    }
    std::sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
        return m.kernels.correlationId[a] < m.kernels.correlationId[b];
    });
    for (std::size_t i : rows) {
        out.names.emplace_back(m.text(m.kernels.name[i]));
        out.launchNs.push_back(m.apiCalls.startNs[m.kernels.launchCall[i].index]);
    }
    for (std::size_t r = 0; r < m.ranges.size(); ++r) {
        if (m.text(m.ranges.name[r]).starts_with("chokepoint:step")) {
            out.markerSteps.push_back({m.ranges.startNs[r], m.ranges.endNs[r]});
        }
    }
    std::sort(out.markerSteps.begin(), out.markerSteps.end(),
              [](const core::TimeRange& a, const core::TimeRange& b) { return a.startNs < b.startNs; });
    return out;
}

// The names as ids, the way the counter folds them in.
std::vector<std::uint32_t> idsOf(const std::vector<std::string>& names) {
    std::vector<std::uint32_t> ids;
    std::unordered_map<std::string, std::uint32_t> idOf;
    for (const std::string& name : names) {
        ids.push_back(idOf.try_emplace(name, static_cast<std::uint32_t>(idOf.size())).first->second);
    }
    return ids;
}

// Feeds the launches as the callbacks would, folding them in every 100 launches with the clock
// moved on by a search interval, and returns the repetitions counted.
std::uint64_t replay(LaunchStepCounter& counter, const RealLaunches& launches) {
    counter.reset();
    core::TimestampNs now = 0;
    for (std::size_t i = 0; i < launches.names.size(); ++i) {
        counter.onLaunch(launches.names[i].c_str());
        if (i % 100 == 99) {
            now += LaunchStepCounter::kMinRecountNs;
            counter.repetitionsStarted(now);
        }
    }
    return counter.repetitionsStarted(now + LaunchStepCounter::kMinRecountNs);
}

void expectLaunchStepsMatchTheMarkers(const std::string& file) {
    const RealLaunches launches = realLaunches(file);
    ASSERT_GT(launches.markerSteps.size(), 3u) << file;
    // The counter's own rule on the whole sequence: one repetition start inside each marker step.
    const std::vector<std::uint32_t> ids = idsOf(launches.names);
    core::SequencePeriodOptions options;
    options.minPeriod = LaunchStepCounter::kMinLaunchesPerStep;
    const core::SequencePeriod found = core::findSequencePeriod(ids, options);
    ASSERT_GT(found.period, 0u) << file;
    std::vector<int> startsPerStep(launches.markerSteps.size(), 0);
    for (std::size_t position : found.repetitionStarts) {
        const core::TimestampNs t = launches.launchNs[position];
        for (std::size_t s = 0; s < launches.markerSteps.size(); ++s) {
            if (t >= launches.markerSteps[s].startNs && t < launches.markerSteps[s].endNs) {
                ++startsPerStep[s];
            }
        }
    }
    // The first marker step may begin before the anchor's first launch in the window.
    for (std::size_t s = 1; s < startsPerStep.size(); ++s) {
        EXPECT_EQ(startsPerStep[s], 1) << file << ": marker step " << s << " of " << startsPerStep.size();
    }
    // Counted incrementally, as the agent counts while it waits: the same steps.
    LaunchStepCounter counter;
    const std::uint64_t repetitions = replay(counter, launches);
    EXPECT_EQ(counter.period(), found.period) << file;
    // On both captures every marker step is one repetition (GPT: 30 of 734 launches, ResNet: 6 of
    // 910).
    EXPECT_EQ(repetitions, launches.markerSteps.size()) << file;
}

TEST(LaunchStepsOnH100CapturesTest, GptLaunchesGiveTheStepsItsMarkersGive) {
    expectLaunchStepsMatchTheMarkers("gpt-attach.cptrace");
}

TEST(LaunchStepsOnH100CapturesTest, ResNetLaunchesGiveTheStepsItsMarkersGive) {
    expectLaunchStepsMatchTheMarkers("rn50-nw0-after-steps.cptrace");
}

// A job without markers (the GPT job without the helper): the counter, which takes a step to have
// at least kMinLaunchesPerStep launches, finds the period the analyzer finds in the trace.
TEST(LaunchStepsOnH100CapturesTest, WithoutMarkersTheCounterFindsTheAnalyzersPeriod) {
    const RealLaunches launches = realLaunches("gpt-nohelper-delay.cptrace");
    ASSERT_TRUE(launches.markerSteps.empty());
    const std::vector<std::uint32_t> ids = idsOf(launches.names);
    const core::SequencePeriod analyzers = core::findSequencePeriod(ids);  // the analyzer's options
    ASSERT_GT(analyzers.period, LaunchStepCounter::kMinLaunchesPerStep);
    LaunchStepCounter counter;
    const std::uint64_t repetitions = replay(counter, launches);
    EXPECT_EQ(counter.period(), analyzers.period);
    EXPECT_EQ(repetitions, analyzers.repetitionStarts.size());
}

}  // namespace
}  // namespace chokepoint::collectors

// Steps from the marker table (core/names/NameRules.h): the Python helper's chokepoint:step#N
// ranges, the waits for input before them (chokepoint:data), a capture's own --marker recorded as
// capture.step_markers, and steps from repeating kernels when the window also holds start-up.

#include <gtest/gtest.h>

#include "core/analysis/metrics/StepDetection.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

// The helper's loop: "chokepoint:data" (next(iterator)) then "chokepoint:step#N"; each step runs
// one kernel. Data waits of 8 units, steps of 2.
TraceBuilder helperLoop(int steps, std::string_view stepPrefix = "chokepoint:step") {
    TraceBuilder b;
    core::TimestampNs t = 0;
    for (int i = 0; i < steps; ++i) {
        b.range("chokepoint:data", t, t + 800);
        b.range(std::string(stepPrefix) + "#" + std::to_string(i), t + 800, t + 1000);
        b.kernel("gemm", t + 850, t + 950);
        t += 1000;
    }
    return b;
}

TEST(StepMarkers, HelperStepsStartAtTheWaitForTheirInput) {
    core::TraceModel model = helperLoop(4).build();
    const StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::StepMarker);
    ASSERT_EQ(steps.steps.size(), 4u);
    EXPECT_EQ(steps.steps[2].name, "chokepoint:step#2");
    EXPECT_EQ(steps.steps[2].number, 2);
    // The data wait before the marker belongs to the step: the step is the whole loop iteration.
    EXPECT_EQ(steps.steps[2].cpuRange.startNs, 2000);
    EXPECT_EQ(steps.steps[2].dataWaitRange.startNs, 2000);
    EXPECT_EQ(steps.steps[2].dataWaitRange.endNs, 2800);
    EXPECT_EQ(steps.steps[2].durationNs(), 1000);
    EXPECT_EQ(steps.steps[2].kernelCount, 1);
    EXPECT_NE(steps.note.find("wait for their input"), std::string::npos) << steps.note;
}

TEST(StepMarkers, AWaitAfterTheLastStepBelongsToNoStep) {
    TraceBuilder b = helperLoop(2);
    b.range("chokepoint:data", 2000, 2700);  // the loop's last next(): no step follows
    core::TraceModel model = b.build();
    const StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.steps.size(), 2u);
    EXPECT_EQ(steps.steps[1].range.endNs, 2000);
}

TEST(StepMarkers, AWaitOnAnotherThreadIsNotTheStepsInput) {
    TraceBuilder b;
    b.range("chokepoint:data", 0, 800, /*tid=*/2);
    b.range("chokepoint:step#0", 800, 1000, /*tid=*/1);
    b.range("chokepoint:step#1", 1000, 1200, /*tid=*/1);
    core::TraceModel model = b.build();
    const StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.steps.size(), 2u);
    EXPECT_EQ(steps.steps[0].cpuRange.startNs, 800);
    EXPECT_TRUE(steps.steps[0].dataWaitRange.empty());
}

TEST(StepMarkers, ProfilerStepWinsOverTheHelpersMarkers) {
    TraceBuilder b = helperLoop(3);
    b.range("ProfilerStep#7", 0, 1500);
    b.range("ProfilerStep#8", 1500, 3000);
    core::TraceModel model = b.build();
    const StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::ProfilerStep);
    ASSERT_EQ(steps.steps.size(), 2u);
    EXPECT_EQ(steps.steps[1].number, 8);
}

TEST(StepMarkers, TheCapturesOwnMarkerFromItsNote) {
    TraceBuilder b = helperLoop(3, "train_iter");
    b.model().metadata.notes.emplace_back("capture.step_markers", "train_iter");
    core::TraceModel model = b.build();
    const StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::StepMarker);
    EXPECT_EQ(steps.steps.size(), 3u);
    EXPECT_EQ(steps.stepMarkers, (std::vector<std::string>{"train_iter"}));

    // Without the note, "train_iter#N" is no step marker (and no step-named range): the kernels
    // decide.
    core::TraceModel plain = helperLoop(3, "train_iter").build();
    EXPECT_NE(detectSteps(plain).source, StepSource::StepMarker);
}

TEST(StepMarkers, ANoteWithoutTheHelpersPrefixIgnoresItsRanges) {
    TraceBuilder b = helperLoop(3);
    b.model().metadata.notes.emplace_back("capture.step_markers", "ProfilerStep#");
    core::TraceModel model = b.build();
    EXPECT_NE(detectSteps(model).source, StepSource::StepMarker);
}

// A window that starts with process start and model build (a few kernels that never repeat, and
// a first iteration that differs) before many identical iterations: the iterations are steps and
// what comes before belongs to none.
TEST(StepMarkers, RepeatingKernelsAfterALongStartUp) {
    TraceBuilder b;
    core::TimestampNs t = 0;
    // Start-up: parameter initialisation, a first iteration with extra kernels (optimizer state).
    for (int i = 0; i < 30; ++i) {
        b.kernel("init_" + std::to_string(i % 7), t, t + 5);
        t += 10;
    }
    const char* iteration[] = {"embed", "gemm", "gelu", "gemm", "softmax", "gemm_bwd", "gemm_bwd", "adam"};
    for (const char* name : iteration) {
        b.kernel(name, t, t + 5);
        t += 10;
        b.kernel("fill_state", t, t + 5);  // the first step differs
        t += 10;
    }
    const core::TimestampNs firstSteady = t;
    for (int rep = 0; rep < 10; ++rep) {
        for (const char* name : iteration) {
            b.kernel(name, t, t + 5);
            t += 10;
        }
    }
    core::TraceModel model = b.build();
    const StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.source, StepSource::RepeatingKernels) << steps.note;
    EXPECT_GE(steps.steps.size(), 10u);
    EXPECT_LE(steps.steps.front().range.startNs, firstSteady);
    EXPECT_GT(steps.leadingKernels, 0);
    EXPECT_NE(steps.note.find("belong to no step"), std::string::npos) << steps.note;
    EXPECT_EQ(steps.kernelStep.front(), -1);  // an init kernel
}

// Start-up alone (initialisation and autotuning kernels in no fixed order) is no repetition: no
// steps from the kernels.
TEST(StepMarkers, StartUpAloneHasNoRepeatingSteps) {
    TraceBuilder b;
    core::TimestampNs t = 0;
    std::uint32_t state = 12345;
    for (int i = 0; i < 200; ++i) {
        state = state * 1103515245u + 12345u;  // a fixed pseudo-random order
        b.kernel("init_" + std::to_string((state >> 16) % 13), t, t + 5);
        t += 10;
    }
    core::TraceModel model = b.build();
    const StepsResult steps = detectSteps(model);
    EXPECT_NE(steps.source, StepSource::RepeatingKernels) << steps.note;
}

}  // namespace
}  // namespace chokepoint::analysis

#include "core/analysis/metrics/StepDetection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

TEST(StepDetection, ProfilerStepRangesWithStretchOverLaunchedGpuWork) {
    TraceBuilder b;
    b.range("ProfilerStep#7", 0, 1000);
    b.range("ProfilerStep#8", 1000, 2000);
    b.range("ProfilerStep#9", 2000, 3000);
    b.apiCall("cudaLaunchKernel", 900, 950, /*correlationId=*/1);
    b.kernel("gemm", 1200, 1800, 0, 7, 1);  // launched in step 7, runs inside step 8's host range
    b.kernel("unlaunched", 2100, 2200);     // no launch call: assigned by its own start
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::ProfilerStep);
    ASSERT_EQ(steps.steps.size(), 3u);
    EXPECT_EQ(steps.steps[0].number, 7);
    EXPECT_EQ(steps.steps[2].name, "ProfilerStep#9");
    EXPECT_EQ(steps.steps[0].cpuRange, (core::TimeRange{0, 1000}));
    // Stretched over its kernel; step 8 starts when the GPU is done with step 7's work (the host
    // ran ahead), so the steps still never overlap. Step 7 was once clipped at 1000 instead, and
    // step 8 then held 800 of step 7's GPU time.
    EXPECT_EQ(steps.steps[0].range, (core::TimeRange{0, 1800}));
    EXPECT_EQ(steps.steps[1].range, (core::TimeRange{1800, 2000}));
    EXPECT_EQ(steps.queuedSteps, 1);
    EXPECT_EQ(steps.clippedSteps, 0);
    EXPECT_EQ(steps.steps[0].gpuRange, (core::TimeRange{1200, 1800}));
    EXPECT_EQ(steps.steps[0].kernelCount, 1);
    EXPECT_EQ(steps.steps[2].kernelCount, 1);
    ASSERT_EQ(steps.kernelStep.size(), 2u);
    EXPECT_EQ(steps.kernelStep[0], 0);
    EXPECT_EQ(steps.kernelStep[1], 2);
    EXPECT_FALSE(steps.overlapping);
    EXPECT_NE(steps.note.find("the host ran ahead of the GPU"), std::string::npos) << steps.note;
    EXPECT_EQ(steps.span(), (core::TimeRange{0, 3000}));
}

// A GPU-bound loop whose host runs ahead: the host starts steps 10, 40 and 60 ms apart while the
// GPU needs 100 ms for each. A step is measured from when the GPU is free for it, so every step is
// the GPU's 100 ms period; from the host's starts they read 10, 40, 60, 100 and 295 ms
// (hta-ns-resolution: 35, 72, 96, 96 and 185 ms for a 96 ms job). A data-bound loop, whose GPU
// waits at each step's start, keeps its host starts.
TEST(StepDetection, AHostRunningAheadDoesNotMoveGpuTimeBetweenSteps) {
    TraceBuilder b;
    const core::TimestampNs hostStarts[] = {0, 10, 50, 110, 210, 300};
    for (int s = 0; s < 5; ++s) {
        b.range("ProfilerStep#" + std::to_string(s), hostStarts[s], hostStarts[s + 1]);
        b.apiCall("cudaLaunchKernel", hostStarts[s] + 1, hostStarts[s] + 2, 10 + s);
        b.kernel("gemm", 5 + s * 100, 5 + (s + 1) * 100, 0, 7, 10 + s);
    }
    StepsResult ahead = detectSteps(b.build());
    ASSERT_EQ(ahead.steps.size(), 5u);
    EXPECT_EQ(ahead.steps[0].range, (core::TimeRange{0, 105}));
    for (std::size_t s = 1; s < 5; ++s) {
        EXPECT_EQ(ahead.steps[s].range.durationNs(), 100) << "step " << s;
        EXPECT_EQ(ahead.steps[s].range.startNs, ahead.steps[s - 1].range.endNs) << "step " << s;
    }
    EXPECT_EQ(ahead.queuedSteps, 4);

    TraceBuilder waits;
    for (int s = 0; s < 3; ++s) {  // 60 of each 100 on the host first, then 30 of GPU work
        const core::TimestampNs t = s * 100;
        waits.range("ProfilerStep#" + std::to_string(s), t, t + 100);
        waits.apiCall("cudaLaunchKernel", t + 60, t + 61, 20 + s);
        waits.kernel("gemm", t + 62, t + 92, 0, 7, 20 + s);
    }
    StepsResult dataBound = detectSteps(waits.build());
    ASSERT_EQ(dataBound.steps.size(), 3u);
    for (std::size_t s = 0; s < 3; ++s) {
        EXPECT_EQ(dataBound.steps[s].range, dataBound.steps[s].cpuRange) << "step " << s;
    }
    EXPECT_EQ(dataBound.queuedSteps, 0);
}

TEST(StepDetection, TheLastStepStretchesOverItsGpuWork) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.range("ProfilerStep#2", 100, 200);
    b.apiCall("cudaLaunchKernel", 150, 160, 3);
    b.kernel("k", 180, 450, 0, 7, 3);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.steps.size(), 2u);
    EXPECT_EQ(steps.steps[1].range, (core::TimeRange{100, 450}));
    EXPECT_EQ(steps.clippedSteps, 0);
}

TEST(StepDetection, NoStretchKeepsHostRanges) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.apiCall("cudaLaunchKernel", 10, 20, 5);
    b.kernel("k", 50, 500, 0, 7, 5);
    core::TraceModel model = b.build();
    StepDetectionOptions options;
    options.stretchOverGpuWork = false;
    StepsResult steps = detectSteps(model, options);
    ASSERT_EQ(steps.steps.size(), 1u);
    EXPECT_EQ(steps.steps[0].range, (core::TimeRange{0, 100}));
    EXPECT_FALSE(steps.overlapping);
}

TEST(StepDetection, NamedRangesMatchPatternsAndSkipNestedOnes) {
    EXPECT_TRUE(matchesStepPattern("train_step", {"train_step"}));
    EXPECT_TRUE(matchesStepPattern("Iteration 12", {"iteration"}));
    EXPECT_TRUE(matchesStepPattern("step_3", {"step"}));
    EXPECT_FALSE(matchesStepPattern("stepper", {"step"}));
    EXPECT_FALSE(matchesStepPattern("forward", {"step", "iteration"}));

    TraceBuilder b;
    b.range("train_step", 0, 100, 1, core::RangeSource::Nvtx);
    b.range("step", 10, 50, 1, core::RangeSource::Nvtx);  // nested inside train_step: not a step
    b.range("train_step", 100, 250, 1, core::RangeSource::Nvtx);
    b.range("forward", 110, 150, 1, core::RangeSource::Nvtx);
    b.kernel("k", 20, 30);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::NamedRange);
    ASSERT_EQ(steps.steps.size(), 2u);
    EXPECT_EQ(steps.steps[1].cpuRange, (core::TimeRange{100, 250}));
    EXPECT_EQ(steps.steps[1].number, 1);
}

TEST(StepDetection, OptimizerMarkersEndSteps) {
    TraceBuilder b;
    b.cpuOp("aten::mm", 0, 50);
    b.cpuOp("Optimizer.step#Adam.step", 80, 100);
    b.cpuOp("aten::mm", 110, 150);
    b.cpuOp("Optimizer.step#Adam.step", 180, 200);
    b.range("Optimizer.step#Adam.step", 180, 200);  // the same marker as a range: merged
    b.cpuOp("aten::mm", 210, 250);
    b.cpuOp("Optimizer.step#Adam.step", 280, 300);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::OptimizerMarker);
    ASSERT_EQ(steps.steps.size(), 3u);
    EXPECT_EQ(steps.steps[0].cpuRange, (core::TimeRange{0, 100}));
    EXPECT_EQ(steps.steps[1].cpuRange, (core::TimeRange{100, 200}));
    EXPECT_EQ(steps.steps[2].cpuRange, (core::TimeRange{200, 300}));
    EXPECT_TRUE(steps.steps[2].markerOp.valid());
}

TEST(StepDetection, RepeatingKernelSequenceAfterWarmup) {
    TraceBuilder b;
    core::TimestampNs t = 0;
    b.kernel("warmup_init", t, t + 5);
    t += 10;
    const char* iteration[] = {"embed", "gemm", "gelu", "gemm", "softmax", "sgd_update"};
    for (int rep = 0; rep < 4; ++rep) {
        for (const char* name : iteration) {
            b.kernel(name, t, t + 5);
            t += 10;
        }
    }
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::RepeatingKernels);
    ASSERT_EQ(steps.steps.size(), 4u);
    EXPECT_EQ(steps.steps[0].cpuRange.startNs, 10);  // the first "embed"
    EXPECT_EQ(steps.steps[1].cpuRange.startNs, 70);
    EXPECT_EQ(steps.steps[3].range.endNs, 240 + 5);  // last kernel's end
    EXPECT_EQ(steps.steps[1].kernelCount, 6);
    EXPECT_NE(steps.note.find("period 6"), std::string::npos) << steps.note;
}

// A capture window that closed mid-step ends the trace with part of a repetition: on the H100
// (gpt-nohelper.cptrace) a 50.8 ms "step" among 66.5 ms ones. It is no step; a whole last
// repetition is.
TEST(StepDetection, ARepetitionCutByTheTracesEndIsNoStep) {
    const std::vector<std::string> iteration = {"embed", "gemm",  "gelu", "gemm", "softmax",
                                                "gemm",  "adamw", "norm", "gemm", "sgd_update"};
    for (const std::size_t lastKernels : {std::size_t{10}, std::size_t{9}, std::size_t{6}}) {
        TraceBuilder b;
        core::TimestampNs t = 0;
        for (int rep = 0; rep < 4; ++rep) {
            for (std::size_t k = 0; k < iteration.size() && (rep < 3 || k < lastKernels); ++k) {
                b.kernel(iteration[k], t, t + 5);
                t += 10;
            }
        }
        core::TraceModel model = b.build();
        StepsResult steps = detectSteps(model);
        ASSERT_EQ(steps.source, StepSource::RepeatingKernels) << lastKernels;
        const bool whole = lastKernels >= 9;  // 90 % of the period, the rule's own tolerance
        EXPECT_EQ(steps.steps.size(), whole ? 4u : 3u) << lastKernels;
        EXPECT_EQ(steps.note.find("cut by the trace's end") != std::string::npos, !whole) << steps.note;
        if (!whole) {
            EXPECT_NE(steps.note.find("after 6 of 10 kernels"), std::string::npos) << steps.note;
            EXPECT_EQ(steps.steps.back().range.endNs, 290 + 5);  // the third repetition's last kernel
        }
    }
}

// Ctrl-C or --duration stops a capture mid-step: the agent closes the open step marker at the
// window's end (nvtx.open_at_stop, capture.window_ns). That part-step is no step; a step that
// really ended there, in a trace where nothing was left open, still is.
TEST(StepDetection, AStepMarkerClosedAtTheCapturesStopIsNoStep) {
    for (const bool closedByTheAgent : {true, false}) {
        TraceBuilder b;
        b.range("chokepoint:step#0", 0, 1000);
        b.range("chokepoint:step#1", 1000, 2000);
        b.range("chokepoint:step#2", 2000, 2300);  // ends at the window's end
        b.kernel("gemm", 100, 900);
        b.kernel("gemm", 1100, 1900);
        b.kernel("gemm", 2100, 2250);
        core::TraceModel model = b.build();
        model.metadata.notes.emplace_back("capture.window_ns", "0..2300");
        if (closedByTheAgent) {
            model.stats.add("nvtx.open_at_stop", core::Severity::Warning, 1,
                            "NVTX ranges still open when the capture stopped were closed at the stop time");
        }
        StepsResult steps = detectSteps(model);
        ASSERT_EQ(steps.source, StepSource::StepMarker);
        EXPECT_EQ(steps.steps.size(), closedByTheAgent ? 2u : 3u);
        EXPECT_EQ(
            steps.note.find("chokepoint:step#2 was still open when the capture stopped") != std::string::npos,
            closedByTheAgent)
            << steps.note;
    }
}

// torch.profiler stopped right after prof.step() opened the next step: a sliver with no GPU work at
// the end. Left out; a short last step with GPU work, a last step without GPU work that is not a
// sliver, and steps of a trace without GPU work are kept.
TEST(StepDetection, AProfilerStepOpenedAsTheProfilerStoppedIsNoStep) {
    struct Case {
        const char* what;
        core::TimestampNs lastNs;
        bool lastHasKernel;
        bool anyKernel;
        std::size_t steps;
    };
    for (const Case& c : {Case{"stub", 50, false, true, 3u}, Case{"short with GPU work", 50, true, true, 4u},
                          Case{"no GPU work, not a sliver", 300, false, true, 4u},
                          Case{"no GPU work anywhere", 50, false, false, 4u}}) {
        TraceBuilder b;
        core::TimestampNs t = 0;
        for (int s = 0; s < 4; ++s) {
            const core::TimestampNs length = s == 3 ? c.lastNs : 1000;
            b.range("ProfilerStep#" + std::to_string(s + 1), t, t + length);
            if (c.anyKernel && (s < 3 || c.lastHasKernel)) {
                b.apiCall("cudaLaunchKernel", t + 1, t + 5, s + 1);
                b.kernel("gemm", t + 10, t + 20, 0, 7, s + 1);
            }
            t += length;
        }
        StepsResult steps = detectSteps(b.build());
        EXPECT_EQ(steps.steps.size(), c.steps) << c.what << ": " << steps.note;
        EXPECT_EQ(steps.note.find("is where the profiler stopped") != std::string::npos, c.steps == 3u)
            << c.what << ": " << steps.note;
    }
}

// Steps found on the GPU clock take their GPU work by GPU start, not by launch time: with the host a
// whole iteration ahead, assigning by launch time would put each iteration's kernels in the step
// before. The host range is the launch calls' span, kept apart from the GPU range.
TEST(StepDetection, RepeatingKernelStepsKeepTheGpuAndHostClocksApart) {
    TraceBuilder b;
    const char* iteration[] = {"embed", "gemm", "gelu", "softmax"};
    std::int64_t correlation = 0;
    for (int rep = 0; rep < 4; ++rep) {
        for (int k = 0; k < 4; ++k) {
            const core::TimestampNs gpu = 1000 + rep * 400 + k * 100;
            const core::TimestampNs launch = gpu - 400;  // one iteration ahead
            b.apiCall("cudaLaunchKernel", launch, launch + 10, ++correlation);
            b.kernel(iteration[k], gpu, gpu + 90, 0, 7, correlation);
        }
    }
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.source, StepSource::RepeatingKernels);
    ASSERT_EQ(steps.steps.size(), 4u);
    for (std::size_t s = 0; s < 4; ++s) {
        EXPECT_EQ(steps.steps[s].kernelCount, 4) << s;
        const auto start = static_cast<core::TimestampNs>(1000 + 400 * s);
        EXPECT_EQ(steps.steps[s].gpuRange, (core::TimeRange{start, start + 390})) << s;
        EXPECT_EQ(steps.steps[s].cpuRange, (core::TimeRange{start - 400, start - 400 + 310})) << s;
        EXPECT_EQ(steps.steps[s].range.startNs, start) << s;
    }
    for (std::size_t k = 0; k < steps.kernelStep.size(); ++k) {
        EXPECT_EQ(steps.kernelStep[k], static_cast<std::int32_t>(k / 4)) << k;
    }
}

TEST(StepDetection, FallsBackToWholeTraceAndSaysSo) {
    TraceBuilder b;
    b.kernel("a", 0, 10);
    b.kernel("b", 20, 30);
    b.kernel("c", 40, 50);
    b.cpuOp("aten::add", 0, 60);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    EXPECT_EQ(steps.source, StepSource::WholeTrace);
    ASSERT_EQ(steps.steps.size(), 1u);
    EXPECT_EQ(steps.steps[0].range, (core::TimeRange{0, 60}));
    EXPECT_NE(steps.note.find("whole trace"), std::string::npos);
    EXPECT_EQ(steps.steps[0].kernelCount, 3);
}

TEST(StepDetection, OverlappingHostStepsKeepBothAndAssignToTheLatest) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.range("ProfilerStep#2", 50, 150, /*tid=*/2);  // another thread: not nested, overlapping
    b.kernel("a", 20, 30);
    b.kernel("b", 60, 70);
    b.kernel("c", 120, 130);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.steps.size(), 2u);
    EXPECT_TRUE(steps.overlapping);
    EXPECT_EQ(steps.kernelStep, (std::vector<std::int32_t>{0, 1, 1}));
}

TEST(StepDetection, EmptyTraceHasNoSteps) {
    TraceBuilder b;
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    EXPECT_TRUE(steps.steps.empty());
    EXPECT_EQ(steps.source, StepSource::WholeTrace);
    EXPECT_FALSE(steps.note.empty());
    EXPECT_TRUE(steps.span().empty());
}

TEST(StepDetection, SeveralDevicesShareHostSteps) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.range("ProfilerStep#2", 100, 200);
    b.apiCall("cudaLaunchKernel", 10, 12, 1);
    b.apiCall("cudaLaunchKernel", 110, 112, 2);
    b.kernel("k0", 20, 60, /*device=*/0, 7, 1);
    b.kernel("k1", 120, 260, /*device=*/1, 7, 2);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.steps.size(), 2u);
    EXPECT_EQ(steps.steps[0].kernelCount, 1);
    EXPECT_EQ(steps.steps[1].kernelCount, 1);
    EXPECT_EQ(steps.steps[1].range.endNs, 260);
}

}  // namespace
}  // namespace chokepoint::analysis

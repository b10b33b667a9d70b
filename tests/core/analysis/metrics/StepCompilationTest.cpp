// Compilation time per step (StepCompilation.h) on traces built in code, and what the step time
// makes of it: five 10 ms steps, the fourth with a torch.compile recompilation on the main thread
// (nested frames, counted once) that makes it 40 ms long.

#include "core/analysis/metrics/StepCompilation.h"

#include <gtest/gtest.h>

#include "core/analysis/metrics/TraceMetrics.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;
constexpr core::TimestampNs kMs = 1'000'000;

core::TraceModel fiveStepsWithARecompilation() {
    TraceBuilder b;
    core::TimestampNs t = 0;
    for (int i = 1; i <= 5; ++i) {
        const core::TimestampNs length = i == 4 ? 40 * kMs : 10 * kMs;
        b.range("ProfilerStep#" + std::to_string(i), t, t + length);
        b.apiCall("cudaLaunchKernel", t + 1 * kMs, t + 1 * kMs + 5'000, i);
        b.kernel("ampere_sgemm_128x64_tn", t + 1 * kMs + 10'000, t + length - 1 * kMs, 0, 7, i);
        if (i == 4) {
            b.cpuOp("torch/_dynamo/convert_frame.py(1045): _compile", t + 2 * kMs, t + 30 * kMs);
            b.cpuOp("torch/_inductor/compile_fx.py(712): compile_fx_inner", t + 5 * kMs, t + 25 * kMs);
        } else {
            b.cpuOp("aten::mm", t + 2 * kMs, t + 3 * kMs);  // ordinary work: not compilation
        }
        t += length;
    }
    return b.build();
}

TEST(StepCompilation, CountsCompilationFramesOncePerStep) {
    const core::TraceModel model = fiveStepsWithARecompilation();
    const StepsResult steps = detectSteps(model);
    ASSERT_EQ(steps.steps.size(), 5u);
    const std::vector<core::DurationNs> ns = compilationNsPerStep(model, steps);
    ASSERT_EQ(ns.size(), 5u);
    EXPECT_EQ(ns[0], 0);
    EXPECT_EQ(ns[3], 28 * kMs);  // the outer frame; the nested one is inside it
    EXPECT_EQ(ns[4], 0);
}

TEST(StepCompilation, TheRecompilingStepIsLeftOutOfTheStepTime) {
    const core::TraceModel model = fiveStepsWithARecompilation();
    auto metrics = computeTraceMetrics(model, {}, nullptr, {});
    ASSERT_TRUE(metrics.ok());
    const StepTimeSummary& s = metrics.value().stepTimes;
    ASSERT_EQ(s.excluded.size(), 1u);
    EXPECT_EQ(s.excluded[0].name, "ProfilerStep#4");
    EXPECT_TRUE(s.excluded[0].warmUp);
    EXPECT_NE(s.excluded[0].reason.find("compiling 28.0 ms"), std::string::npos) << s.excluded[0].reason;
    EXPECT_NEAR(s.meanNs, 10.0 * kMs, 0.5 * kMs);
}

}  // namespace
}  // namespace chokepoint::analysis

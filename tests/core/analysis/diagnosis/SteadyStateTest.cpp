// A window that holds only start-up gets no steady-state verdict (core/analysis/diagnosis/
// SteadyState.h): only the job's first step, or no steps and GPU work that begins late in the window.

#include <gtest/gtest.h>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"

namespace chokepoint::analysis {
namespace {

using testutils::SyntheticJob;

bool hasWarning(const AnalysisReport& r, const std::string& code) {
    for (const ReportWarning& w : r.warnings) {
        if (w.code == code) {
            return true;
        }
    }
    return false;
}

TEST(SteadyState, OnlyTheFirstStepIsWarmUp) {
    const core::TraceModel model = testutils::dataBoundJob(1);  // ProfilerStep#0 alone
    auto r = analyzeTrace(model);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r.value()->startUpOnly);
    EXPECT_EQ(r.value()->overall.bottleneck, Bottleneck::Undetermined);
    EXPECT_TRUE(r.value()->fixes.recommendations.empty());
    EXPECT_NE(r.value()->headline.find("No steady-state verdict"), std::string::npos) << r.value()->headline;
    EXPECT_NE(r.value()->startUpReason.find("first step"), std::string::npos) << r.value()->startUpReason;
    EXPECT_TRUE(hasWarning(*r.value(), "window.start_up_only"));
    // The headline says the rationale; the reports say it once.
    EXPECT_TRUE(rationaleRepeatsHeadline(*r.value()));
    const std::string text = writeTextReport(*r.value());
    EXPECT_EQ(text.find("why:"), std::string::npos) << text;
    const std::string markdown = writeMarkdownReport(*r.value());
    const std::size_t confidence = markdown.find("Confidence: ");
    ASSERT_NE(confidence, std::string::npos) << markdown;
    const std::string confidenceLine =
        markdown.substr(confidence, markdown.find('\n', confidence) - confidence);
    EXPECT_EQ(confidenceLine, "Confidence: low (0.30).") << markdown;
    // The steps after it are the steady state: a verdict.
    const core::TraceModel more = testutils::dataBoundJob(4);
    auto steady = analyzeTrace(more);
    ASSERT_TRUE(steady);
    EXPECT_FALSE(steady.value()->startUpOnly);
    EXPECT_EQ(steady.value()->overall.bottleneck, Bottleneck::Data);
    // Its headline holds the rationale ("Data-bound: the GPU waits …"): said once too. A compute
    // verdict's rationale adds the kernel mix to its headline: both are said.
    EXPECT_TRUE(rationaleRepeatsHeadline(*steady.value()));
    EXPECT_EQ(writeTextReport(*steady.value()).find("  why: the GPU waits"), std::string::npos);
    auto compute = analyzeTrace(testutils::computeBoundJob());
    ASSERT_TRUE(compute);
    EXPECT_FALSE(rationaleRepeatsHeadline(*compute.value())) << compute.value()->headline;
    EXPECT_NE(writeTextReport(*compute.value()).find("  why: the GPU is busy"), std::string::npos);
}

// Process start and model build: 3 s with no GPU work, then a few initialisation kernels that do not
// repeat into steps.
TEST(SteadyState, GpuWorkThatBeginsLateInAStepLessWindowIsStartUp) {
    SyntheticJob job;
    job.builder().apiCall("cudaGetDeviceCount", 0, 10'000, 0);
    core::TimestampNs t = 3'000'000'000;
    for (const char* name :
         {"fill_kernel", "uniform_kernel", "normal_kernel", "copy_kernel", "fill_kernel"}) {
        job.launched(name, t, t + 200'000);
        t += 300'000'000;
    }
    const core::TraceModel model = job.build();
    auto r = analyzeTrace(model);
    ASSERT_TRUE(r);
    ASSERT_EQ(r.value()->metrics.steps.source, StepSource::WholeTrace);
    EXPECT_TRUE(r.value()->startUpOnly);
    EXPECT_NE(r.value()->startUpReason.find("start-up"), std::string::npos) << r.value()->startUpReason;
    // "No steps" is said once, and a whole-trace window is not "only one step".
    int saysNoSteps = 0;
    for (const ReportWarning& w : r.value()->warnings) {
        saysNoSteps += w.message.find("no step markers") != std::string::npos ? 1 : 0;
        EXPECT_EQ(w.message.find("analysed as one window ("), std::string::npos) << w.message;
    }
    EXPECT_EQ(saysNoSteps, 1);
    EXPECT_FALSE(hasWarning(*r.value(), "steps.single"));
    // The same kernels from the window's start are a whole-trace window with a verdict.
    SyntheticJob early;
    t = 0;
    for (const char* name :
         {"fill_kernel", "uniform_kernel", "normal_kernel", "copy_kernel", "fill_kernel"}) {
        early.launched(name, t + 100'000, t + 300'000);
        t += 300'000'000;
    }
    const core::TraceModel earlyModel = early.build();
    auto e = analyzeTrace(earlyModel);
    ASSERT_TRUE(e);
    EXPECT_FALSE(e.value()->startUpOnly);
}

}  // namespace
}  // namespace chokepoint::analysis

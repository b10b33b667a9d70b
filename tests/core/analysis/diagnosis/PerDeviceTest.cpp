// One process driving two GPUs: each device gets its own accounting and verdict
// (AnalysisReport::deviceReports), --device-index analyses one GPU alone, and the host threads go
// with the devices they launch on (core/model/DeviceSlice.h).

#include <gtest/gtest.h>

#include "core/analysis/diagnosis/Analyzer.h"
#include "core/analysis/diagnosis/ReportWriters.h"
#include "core/format/CptraceWriter.h"
#include "core/model/DeviceSlice.h"
#include "tests/core/analysis/diagnosis/SyntheticTraces.h"
#include "tests/core/analysis/diagnosis/TwoGpuTrace.h"
#include "tests/testutils/CliRunner.h"

namespace chokepoint::analysis {
namespace {

using testutils::kElementwise;
using testutils::SyntheticJob;
using testutils::twoGpuProcess;

TEST(PerDeviceTest, EachGpuOfOneProcessGetsItsOwnVerdict) {
    const core::TraceModel model = twoGpuProcess();
    EXPECT_EQ(core::devicesWithGpuWork(model), (std::vector<std::int16_t>{0, 1}));
    auto result = analyzeTrace(model);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const AnalysisReport& r = *result.value();
    EXPECT_EQ(r.scopeDeviceIndex, -1);
    EXPECT_EQ(r.device.deviceIndex, 0);  // the whole trace's verdict is the busiest GPU's
    ASSERT_EQ(r.deviceReports.size(), 2u);
    const AnalysisReport& gpu0 = *r.deviceReports[0];
    const AnalysisReport& gpu1 = *r.deviceReports[1];
    EXPECT_EQ(gpu0.scopeDeviceIndex, 0);
    EXPECT_EQ(gpu1.scopeDeviceIndex, 1);
    EXPECT_TRUE(gpu0.deviceReports.empty());
    EXPECT_GT(gpu0.overallSignals.busyFraction, 0.9);
    EXPECT_LT(gpu1.overallSignals.busyFraction, 0.2);
    EXPECT_GT(gpu1.overallSignals.busyFraction, 0.1);
    EXPECT_EQ(gpu0.overall.bottleneck, Bottleneck::Compute);
    EXPECT_NE(gpu1.overall.bottleneck, Bottleneck::Compute);
    // Each slice holds its own GPU's kernels only, and the shared host thread.
    ASSERT_TRUE(gpu1.model);
    EXPECT_EQ(gpu1.model->kernels.size(), 32u);
    EXPECT_EQ(gpu0.model->kernels.size(), 32u);
    EXPECT_EQ(gpu1.model->threads.size(), 1u);
    // The whole-trace GPU 0 figures agree with GPU 0's own report.
    EXPECT_NEAR(r.overallSignals.busyFraction, gpu0.overallSignals.busyFraction, 1e-9);

    const std::string text = writeTextReport(r, {});
    EXPECT_NE(text.find("PER DEVICE"), std::string::npos);
    EXPECT_NE(text.find("GPU 1"), std::string::npos);
    const std::string json = writeJsonReport(r);
    EXPECT_NE(json.find("\"devices\":[{\"deviceIndex\":0"), std::string::npos);
    EXPECT_NE(json.find("\"scopeDeviceIndex\":-1"), std::string::npos);
}

TEST(PerDeviceTest, DeviceIndexAnalysesOneGpuAlone) {
    const core::TraceModel model = twoGpuProcess();
    AnalysisOptions options;
    options.deviceIndex = 1;
    auto result = analyzeTrace(model, options);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const AnalysisReport& r = *result.value();
    EXPECT_EQ(r.scopeDeviceIndex, 1);
    EXPECT_EQ(r.device.deviceIndex, 1);
    EXPECT_TRUE(r.deviceReports.empty());
    EXPECT_LT(r.overallSignals.busyFraction, 0.2);
    ASSERT_TRUE(r.model);  // the report keeps its slice alive: its StringIds refer to it
    EXPECT_EQ(r.model->kernels.size(), 32u);
    EXPECT_NE(writeTextReport(r, {}).find("Scope: GPU 1 alone"), std::string::npos);
}

TEST(PerDeviceTest, DeviceIndexWithoutWorkIsAnErrorNamingTheGpusWithWork) {
    const core::TraceModel model = twoGpuProcess();
    AnalysisOptions options;
    options.deviceIndex = 3;
    auto result = analyzeTrace(model, options);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().message.find("GPU 3 has no GPU work"), std::string::npos);
    EXPECT_NE(result.error().message.find("GPUs with work: 0, 1"), std::string::npos);
}

TEST(PerDeviceTest, OneGpuTraceHasNoPerDeviceReports) {
    auto result = analyzeTrace(testutils::computeBoundJob());
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(result.value()->deviceReports.empty());
    AnalysisOptions options;
    options.deviceIndex = 0;
    auto scoped = analyzeTrace(testutils::computeBoundJob(), options);
    ASSERT_TRUE(scoped.ok());
    EXPECT_EQ(scoped.value()->scopeDeviceIndex, 0);
    EXPECT_NEAR(scoped.value()->overallSignals.busyFraction, result.value()->overallSignals.busyFraction,
                1e-9);
}

TEST(PerDeviceTest, ThreadGoesWithDevicesHoldingATenthOfItsLaunches) {
    // 8 GEMMs per step on GPU 0, 0 or 8 on GPU 1: with 8 the thread goes with both.
    const core::TraceModel both = twoGpuProcess(8);
    const core::DeviceThreads threadsBoth(both);
    ASSERT_EQ(both.threads.size(), 1u);
    EXPECT_TRUE(threadsBoth.goesWith(0, 0));
    EXPECT_TRUE(threadsBoth.goesWith(0, 1));
    // 1 of 9 launches per step on GPU 1 (11 %): still taken along; a stray launch is not.
    const core::TraceModel few = twoGpuProcess(1);
    EXPECT_TRUE(core::DeviceThreads(few).goesWith(0, 1));
    SyntheticJob job;
    job.builder().device(1, "NVIDIA A100-SXM4-80GB", 108, 80'000'000'000);
    job.step(0);
    for (int k = 0; k < 40; ++k) {
        job.launched(kElementwise, 100'000 + k * 200'000, 150'000 + k * 200'000, 7, 50'000, 0);
    }
    job.launched(kElementwise, 9'000'000, 9'050'000, 7, 50'000, 1);
    const core::TraceModel stray = job.build();
    const core::DeviceThreads strayThreads(stray);
    EXPECT_TRUE(strayThreads.goesWith(0, 0));
    EXPECT_FALSE(strayThreads.goesWith(0, 1));
    EXPECT_EQ(strayThreads.busiestDeviceOf(0), 0);
    // The stray GPU's slice keeps its kernel but no host thread.
    const core::TraceModel slice = core::sliceDevice(stray, 1, strayThreads);
    EXPECT_EQ(slice.kernels.size(), 1u);
    EXPECT_EQ(slice.threads.size(), 0u);
}

TEST(PerDeviceTest, CliDeviceIndexAndPerDeviceLines) {
    ASSERT_TRUE(testutils::cliBuilt()) << "chokepoint-cli not built";
    const std::string path = ::testing::TempDir() + "/two-gpus-one-process.cptrace";
    ASSERT_TRUE(core::writeCptrace(twoGpuProcess(), path).ok());
    const testutils::CliResult whole = testutils::runCli("analyze " + path);
    EXPECT_EQ(whole.exitCode, 0) << whole.out;
    EXPECT_NE(whole.out.find("PER DEVICE"), std::string::npos) << whole.out;
    const testutils::CliResult one = testutils::runCli("analyze " + path + " --device-index 1");
    EXPECT_EQ(one.exitCode, 0) << one.out;
    EXPECT_NE(one.out.find("Scope: GPU 1 alone"), std::string::npos) << one.out;
    const testutils::CliResult absent = testutils::runCli("analyze " + path + " --device-index 7");
    EXPECT_EQ(absent.exitCode, 2) << absent.out;  // a wrong argument, not a failed analysis
    EXPECT_NE(absent.out.find("no GPU work on GPU 7 (GPUs with work: 0, 1)"), std::string::npos)
        << absent.out;
    EXPECT_EQ(testutils::runCli("analyze " + path + " --device-index first").exitCode, 2);
}

}  // namespace
}  // namespace chokepoint::analysis

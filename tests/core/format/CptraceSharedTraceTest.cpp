// Real public traces (../shared/traces, skipped when absent) survive the .cptrace round trip and
// the Chrome-trace export: every field of the imported model comes back from .cptrace, and the
// exported JSON re-imports with the same row counts.

#include <gtest/gtest.h>

#include "core/format/ChromeTraceExporter.h"
#include "core/format/CptraceReader.h"
#include "core/format/CptraceWriter.h"
#include "core/import/KinetoJsonImporter.h"
#include "core/import/TraceLoader.h"
#include "tests/core/format/ModelCompare.h"
#include "tests/testutils/SharedTraces.h"

namespace chokepoint::formattest {
namespace {

class SharedTraceRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedTraceRoundTrip, CptraceKeepsEveryFieldAndChromeJsonKeepsTheCounts) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, GetParam());
    Result<TraceModel> imported = loadTrace(path);
    ASSERT_TRUE(imported.ok()) << imported.error().message;
    const TraceModel& original = imported.value();

    std::string bytes = encodeCptrace(original);
    Result<TraceModel> read = readCptraceFromMemory(bytes, "shared.cptrace");
    ASSERT_TRUE(read.ok()) << read.error().message;
    expectModelsEqual(original, read.value());

    Result<TraceModel> back = importKinetoJsonFromMemory(chromeTraceJson(original), "export.json");
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->kernels.size(), original.kernels.size());
    EXPECT_EQ(back->memcpys.size(), original.memcpys.size());
    EXPECT_EQ(back->memsets.size(), original.memsets.size());
    EXPECT_EQ(back->apiCalls.size(), original.apiCalls.size());
    EXPECT_EQ(back->ranges.size(), original.ranges.size());
    EXPECT_EQ(back->cpuOps.size(), original.cpuOps.size());
    EXPECT_EQ(back->devices.size(), original.devices.size());
}

INSTANTIATE_TEST_SUITE_P(Traces, SharedTraceRoundTrip,
                         ::testing::Values("hta-trace-diff-control__control.json.gz",
                                           "hta-ns-resolution__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                           "hta-amd-mi250__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
                                           "hta-cpu-only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                                           "kineto-tbplugin__gpu_metrics_input.json",
                                           "pipit-nsys__saxpy-mpi-cuda_nsys_perlmutter0.sqlite"));

}  // namespace
}  // namespace chokepoint::formattest

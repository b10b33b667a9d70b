// chokepoint-cli analyze / diff end to end: exit codes, formats and error messages.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/testutils/CliRunner.h"
#include "tests/testutils/SharedTraces.h"

namespace {

using chokepoint::testutils::cliBuilt;
using chokepoint::testutils::CliResult;
using chokepoint::testutils::runCli;

std::string writeTemp(const char* name, const std::string& text) {
    const std::string path = (std::filesystem::temp_directory_path() / name).string();
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST(CliAnalyze, ErrorsHaveTheDocumentedExitCodes) {
    ASSERT_TRUE(cliBuilt()) << "chokepoint-cli not built";
    CliResult missing = runCli("analyze /nonexistent/trace.json");
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.out.find("/nonexistent/trace.json"), std::string::npos);
    EXPECT_EQ(runCli("analyze").exitCode, 2);
    EXPECT_EQ(runCli("analyze a.json --format xml").exitCode, 2);
    EXPECT_EQ(runCli("analyze a.json --params 7B").exitCode, 2);  // needs --tokens-per-step
    EXPECT_EQ(runCli("analyze a.json --model-flops -3").exitCode, 2);
    EXPECT_EQ(runCli("diff only-one.json").exitCode, 2);
    const std::string truncated = writeTemp("chokepoint-d2-truncated.json", "{\"traceEvents\": [");
    CliResult bad = runCli("analyze " + truncated);
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.out.find(truncated), std::string::npos);
    std::remove(truncated.c_str());
    EXPECT_EQ(runCli("analyze --help").exitCode, 0);
    CliResult config = runCli("analyze --print-config");
    EXPECT_EQ(config.exitCode, 0);
    EXPECT_NE(config.out.find("computeBoundMinBusy = 0.9"), std::string::npos);
}

TEST(CliAnalyze, AFileCutShortBeforeAnyGpuWorkIsBadInput) {
    ASSERT_TRUE(cliBuilt()) << "chokepoint-cli not built";
    // Host events were written, the profiler died before the first kernel: the report says what was
    // read, and the exit status says nothing was diagnosed (it was 0, like a CPU-only trace's).
    const std::string cut = writeTemp(
        "chokepoint-cut-before-gpu.json",
        R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
                            {"ph": "X", "cat": "kernel", "na)");
    CliResult result = runCli("analyze " + cut);
    EXPECT_EQ(result.exitCode, 1) << result.out;
    EXPECT_NE(result.out.find("No GPU work in the part of the file that was written"), std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find(cut + ": cut short before any GPU work"), std::string::npos) << result.out;
    std::remove(cut.c_str());
    // Complete and CPU-only: nothing to diagnose, but nothing wrong with the file.
    const std::string cpuOnly = writeTemp(
        "chokepoint-cpu-only.json",
        R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]})");
    CliResult complete = runCli("analyze " + cpuOnly);
    EXPECT_EQ(complete.exitCode, 0) << complete.out;
    EXPECT_NE(complete.out.find("Nothing ran on a GPU in this trace"), std::string::npos) << complete.out;
    std::remove(cpuOnly.c_str());
}

TEST(CliAnalyze, ACounterModeTraceSaysKernelsRanWithoutATimeline) {
    ASSERT_TRUE(cliBuilt()) << "chokepoint-cli not built";
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path,
                                    "hta-cupti-counters__benchmark_result_924719_1679055439_trace.json.gz");
    CliResult result = runCli("analyze " + path);
    EXPECT_EQ(result.exitCode, 0) << result.out;
    EXPECT_NE(
        result.out.find("Kernels ran, but the profiler's counter mode recorded counters, not a timeline"),
        std::string::npos)
        << result.out;
    EXPECT_EQ(result.out.find("Nothing ran on a GPU"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("VERDICT: No GPU timeline"), std::string::npos) << result.out;
    // The JSON and the Markdown name it the same (the JSON said "No GPU activity").
    CliResult json = runCli("analyze " + path + " --format json");
    EXPECT_NE(json.out.find("\"displayName\":\"No GPU timeline\""), std::string::npos)
        << json.out.substr(0, 2000);
    CliResult markdown = runCli("analyze " + path + " --format markdown");
    EXPECT_NE(markdown.out.find("## Verdict: No GPU timeline"), std::string::npos)
        << markdown.out.substr(0, 2000);
}

TEST(CliAnalyze, AnalyzesASharedTraceInEveryFormat) {
    ASSERT_TRUE(cliBuilt()) << "chokepoint-cli not built";
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "hta-amd-mi250__mi250_minitoy_train_ROCm6_2_kineto.json.gz");
    CliResult text = runCli("analyze " + path + " --explain");
    EXPECT_EQ(text.exitCode, 0) << text.out;
    EXPECT_NE(text.out.find("VERDICT: Launch-overhead-bound"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("RULES"), std::string::npos);
    CliResult json = runCli("analyze " + path + " --format json");
    ASSERT_EQ(json.exitCode, 0);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(json.out).get(doc), simdjson::SUCCESS);
    EXPECT_EQ(std::string_view(doc["verdict"]["class"]), "launch-overhead-bound");
    CliResult md = runCli("analyze " + path + " --format markdown");
    EXPECT_EQ(md.exitCode, 0);
    EXPECT_NE(md.out.find("## Verdict"), std::string::npos);
    const std::string badConfig = writeTemp("chokepoint-d2-bad.conf", "noSuchThreshold = 1\n");
    CliResult configError = runCli("analyze " + path + " --config " + badConfig);
    EXPECT_EQ(configError.exitCode, 1);
    EXPECT_NE(configError.out.find("line 1"), std::string::npos);
    std::remove(badConfig.c_str());
    EXPECT_EQ(runCli("analyze " + path + " --device no-such-device").exitCode, 2);
    // A GPU the trace has no work on is a wrong argument (2), named with the GPUs that have work,
    // not a failed analysis (3); the same for diff. fp64 is a precision the help names.
    for (const std::string& command : {"analyze " + path, "diff " + path + " " + path}) {
        const CliResult noSuchGpu = runCli(command + " --device-index 5");
        EXPECT_EQ(noSuchGpu.exitCode, 2) << command << "\n" << noSuchGpu.out;
        EXPECT_NE(noSuchGpu.out.find("GPUs with work: 2"), std::string::npos) << noSuchGpu.out;
    }
    EXPECT_EQ(runCli("analyze " + path + " --precision fp64").exitCode, 0);
    EXPECT_NE(runCli("analyze --help").out.find("fp64"), std::string::npos);
    CliResult diff = runCli("diff " + path + " " + path + " --format json");
    ASSERT_EQ(diff.exitCode, 0) << diff.out;
    ASSERT_EQ(parser.parse(diff.out).get(doc), simdjson::SUCCESS);
    EXPECT_EQ(std::string_view(doc["schema"]), "chokepoint.diff");
}

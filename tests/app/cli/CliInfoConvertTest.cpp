// Runs the built chokepoint-cli on small generated traces: `info` (text and --json), `convert` to
// .cptrace and Chrome JSON, --help, and the documented exit codes for bad input and arguments.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/format/CptraceReader.h"
#include "core/format/CptraceWriter.h"
#include "tests/core/format/ModelCompare.h"

namespace chokepoint::formattest {
namespace {

struct CliRun {
    int exitCode = -1;
    std::string out, err;
};

class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = std::filesystem::temp_directory_path() / ("cli-test-" + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
    }
    void TearDown() override { std::filesystem::remove_all(m_dir); }

    std::string path(const std::string& name) const { return (m_dir / name).string(); }

    static std::string slurp(const std::string& file) {
        std::ifstream in(file, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

    CliRun run(const std::string& args) const {
        const std::string out = path("stdout.txt"), err = path("stderr.txt");
        std::string command = std::string(CHOKEPOINT_CLI_PATH) + " " + args + " >" + out + " 2>" + err;
        int status = std::system(command.c_str());
        CliRun r;
        r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        r.out = slurp(out);
        r.err = slurp(err);
        return r;
    }

    std::filesystem::path m_dir;
};

TraceModel stepTrace() {
    testutils::TraceBuilder b;
    b.device(0, "NVIDIA H100 80GB HBM3", 132, 85'520'809'984);
    b.model().deviceOrAdd(0).computeMajor = 9;
    b.model().distributed = core::DistributedInfo{true, 1, 4, "nccl"};
    for (int s = 0; s < 3; ++s) {
        const core::TimestampNs base = s * 10'000'000;
        b.range("ProfilerStep#" + std::to_string(s + 7), base, base + (s + 1) * 1'000'000);
        b.apiCall("cudaLaunchKernel", base + 100, base + 200, 100 + s);
        b.kernel("gemm", base + 1000, base + 50'000, 0, 7, 100 + s);
    }
    return b.build();
}

TEST_F(CliTest, InfoPrintsDevicesRanksStepsAndCounts) {
    const std::string file = path("steps.cptrace");
    ASSERT_TRUE(writeCptrace(stepTrace(), file).ok());
    CliRun r = run("info " + file);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("GPU 0: NVIDIA H100 80GB HBM3 (132 SMs, 79.6 GiB, compute 9.0)"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("rank 1 of 4 (nccl)"), std::string::npos) << r.out;
    EXPECT_NE(
        r.out.find(
            "3 from ProfilerStep, ProfilerStep#7 .. ProfilerStep#9; step time mean 2.00 ms, median "
            "2.00 ms (robust to slow steps), min 1.00 ms, max 3.00 ms, over all 3 steps (ProfilerStep)"),
        std::string::npos)
        << r.out;
    // How the steps were found, on a line of its own.
    EXPECT_NE(r.out.find("\n             found: 3 ProfilerStep ranges"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("GPU kernels"), std::string::npos);
    EXPECT_EQ(r.out.find("No GPU activity"), std::string::npos);
}

TEST_F(CliTest, InfoPrintsWhatTheRecorderNoted) {
    // A capture's notes say why it ended and what the GPU metrics decoder saw: the first thing to
    // read when a trace has no GPU metrics.
    core::TraceModel model = stepTrace();
    model.metadata.notes.emplace_back("capture.end_reason", "30 steps recorded");
    model.metadata.notes.emplace_back("capture.gpu_metrics_note",
                                      "decoded 12 samples: 0 kept, 12 outside the window");
    const std::string file = path("noted.cptrace");
    ASSERT_TRUE(writeCptrace(model, file).ok());
    CliRun r = run("info " + file);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::size_t notes = r.out.find("\nNotes:\n");
    ASSERT_NE(notes, std::string::npos) << r.out;
    EXPECT_NE(r.out.find("capture.end_reason           30 steps recorded", notes), std::string::npos)
        << r.out;
    EXPECT_NE(
        r.out.find("capture.gpu_metrics_note     decoded 12 samples: 0 kept, 12 outside the window", notes),
        std::string::npos)
        << r.out;
}

TEST_F(CliTest, InfoJsonIsValidAndComplete) {
    const std::string file = path("steps.cptrace");
    ASSERT_TRUE(writeCptrace(stepTrace(), file).ok());
    CliRun r = run("info --json " + file);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(simdjson::padded_string(r.out)).get(doc), simdjson::SUCCESS) << r.out;
    EXPECT_EQ(std::int64_t(doc["events"]["kernels"]), 3);
    EXPECT_EQ(std::int64_t(doc["events"]["apiCalls"]), 3);
    EXPECT_EQ(std::int64_t(doc["steps"]["count"]), 3);
    EXPECT_EQ(std::int64_t(doc["steps"]["medianDurationNs"]), 2'000'000);
    EXPECT_EQ(std::int64_t(doc["steps"]["meanDurationNs"]), 2'000'000);
    EXPECT_EQ(std::int64_t(doc["distributed"]["worldSize"]), 4);
    EXPECT_EQ(std::string_view(doc["format"]), "cptrace");
    EXPECT_TRUE(bool(doc["gpuActivity"]));
    // One spelling for every command: info takes --format json as analyze does, and analyze takes
    // --json as info does; a format info cannot write is a wrong argument.
    EXPECT_EQ(run("info --format json " + file).out, r.out);
    EXPECT_EQ(run("info --format=json " + file).out, r.out);
    EXPECT_EQ(run("info --format text " + file).out, run("info " + file).out);
    EXPECT_EQ(run("info --format markdown " + file).exitCode, 2);
    EXPECT_EQ(run("info --format").exitCode, 2);
    EXPECT_EQ(run("analyze --json " + file).out, run("analyze --format json " + file).out);
}

TEST_F(CliTest, InfoSaysWhenThereIsNoGpuActivity) {
    testutils::TraceBuilder b;
    b.cpuOp("aten::add", 0, 100);
    b.range("step 1", 0, 1000, 1, core::RangeSource::Nvtx);
    b.range("step 2", 1000, 3000, 1, core::RangeSource::Nvtx);
    const std::string file = path("cpu.cptrace");
    ASSERT_TRUE(writeCptrace(b.build(), file).ok());
    CliRun r = run("info " + file);
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("No GPU activity"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2 from named range, step 1 .. step 2"), std::string::npos) << r.out;
}

TEST_F(CliTest, ConvertToCptraceAndChromeJson) {
    TraceModel original = fullModel(2);
    const std::string in = path("in.cptrace");
    ASSERT_TRUE(writeCptrace(original, in).ok());

    CliRun toCptrace = run("convert " + in + " " + path("out.cptrace"));
    ASSERT_EQ(toCptrace.exitCode, 0) << toCptrace.err;
    Result<TraceModel> back = readCptrace(path("out.cptrace"));
    ASSERT_TRUE(back.ok()) << back.error().message;
    expectModelsEqual(original, back.value());

    CliRun toJson = run("convert " + in + " " + path("out.json"));
    ASSERT_EQ(toJson.exitCode, 0) << toJson.err;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(simdjson::padded_string(slurp(path("out.json")))).get(doc), simdjson::SUCCESS);
    EXPECT_TRUE(doc["traceEvents"].is_array());

    CliRun toGz = run("convert --format chrome " + in + " " + path("out.json.gz"));
    ASSERT_EQ(toGz.exitCode, 0) << toGz.err;
    std::string gz = slurp(path("out.json.gz"));
    ASSERT_GE(gz.size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip magic
    EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
}

TEST_F(CliTest, HelpAndExitCodes) {
    EXPECT_EQ(run("info --help").exitCode, 0);
    EXPECT_EQ(run("convert --help").exitCode, 0);
    EXPECT_NE(run("convert --help").out.find("Usage: chokepoint-cli convert"), std::string::npos);
    EXPECT_EQ(run("info").exitCode, 2);
    EXPECT_EQ(run("info --bogus x").exitCode, 2);
    EXPECT_EQ(run("convert onlyone").exitCode, 2);
    EXPECT_EQ(run("convert a b.txt").exitCode, 2);
    EXPECT_EQ(run("convert a b --format xml").exitCode, 2);

    CliRun missing = run("info " + path("missing.json"));
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find(path("missing.json")), std::string::npos) << missing.err;

    const std::string empty = path("empty.cptrace");
    { std::ofstream(empty, std::ios::binary); }
    CliRun emptyRun = run("info " + empty);
    EXPECT_EQ(emptyRun.exitCode, 1);
    EXPECT_NE(emptyRun.err.find(empty), std::string::npos) << emptyRun.err;

    const std::string in = path("in.cptrace");
    ASSERT_TRUE(writeCptrace(stepTrace(), in).ok());
    CliRun unwritable = run("convert " + in + " " + path("no-such-dir/out.cptrace"));
    EXPECT_EQ(unwritable.exitCode, 3);
    EXPECT_NE(unwritable.err.find("no-such-dir/out.cptrace"), std::string::npos) << unwritable.err;
}

}  // namespace
}  // namespace chokepoint::formattest

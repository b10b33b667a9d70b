// chokepoint-cli on jobs, as a user runs it: analyze/info/diff on a folder or a glob, summarize and
// merge .cpsum files, JSON that parses, and the exit codes of bad input.

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "tests/core/job/KinetoJobWriter.h"
#include "tests/testutils/CliRunner.h"

namespace chokepoint::job {
namespace {

namespace fs = std::filesystem;

using testutils::CliResult;

CliResult run(const std::string& arguments) {
    return testutils::runCli(arguments);
}

class JobCliTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(testutils::cliBuilt()) << "chokepoint-cli is not built";
        m_folder =
            fs::temp_directory_path() / ("chokepoint-jobcli-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(m_folder / "traces");
        testjob::KinetoJobOptions options;
        options.lateRank = 3;
        options.lateDataUs = 7000;
        testjob::writeKinetoJob(options, (m_folder / "traces").string());
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(m_folder, ignored);
    }
    std::string path(const std::string& name) const { return (m_folder / name).string(); }

    fs::path m_folder;
};

TEST_F(JobCliTest, AnalyzeAFolderOpensWithTheJobSection) {
    const CliResult r = run("analyze " + path("traces"));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_EQ(r.out.rfind("JOB  4 rank(s) of world size 4", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("rank 3:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[data-wait]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("PER RANK"), std::string::npos);
}

TEST_F(JobCliTest, OneFusedFileOfSeveralRanksIsAnalysedAsAJob) {
    testjob::KinetoJobOptions options;
    options.lateRank = 1;
    options.lateDataUs = 5000;
    std::ofstream(path("fused.json")) << testjob::kinetoFusedJob(options);
    const CliResult r = run("analyze " + path("fused.json"));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_NE(r.out.find("holds several ranks: analysed as a job"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("JOB  4 rank(s)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ranks from process name"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("rank 1:"), std::string::npos) << r.out;
    // One GPU of it alone, as a single trace.
    const CliResult one = run("analyze " + path("fused.json") + " --device-index 1");
    ASSERT_EQ(one.exitCode, 0) << one.out;
    EXPECT_NE(one.out.find("Scope: GPU 1 alone"), std::string::npos) << one.out;
}

// A job's report is text or json; the single-trace formats are refused, not ignored (csv-kernels
// printed the text report with exit code 0).
TEST_F(JobCliTest, SingleTraceFormatsAreRefusedForAJob) {
    for (const char* format : {"markdown", "csv-kernels", "csv-ops"}) {
        const CliResult r =
            run("analyze --format " + std::string(format) + " '" + path("traces") + "/rank-*.json'");
        EXPECT_EQ(r.exitCode, 2) << format << "\n" << r.out;
        EXPECT_NE(r.out.find("a job's report is text or json"), std::string::npos) << r.out;
    }
}

TEST_F(JobCliTest, JsonHasTheJobObject) {
    const CliResult r = run("analyze --format json '" + path("traces") + "/rank-*.json'");
    ASSERT_EQ(r.exitCode, 0) << r.out;
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
    simdjson::dom::element job = doc["job"];
    EXPECT_EQ(job["ranks"].get_array().size(), 4u);
    simdjson::dom::array stragglers = job["stragglers"].get_array();
    ASSERT_EQ(stragglers.size(), 1u);
    EXPECT_EQ(int64_t(stragglers.at(0)["rank"]), 3);
    EXPECT_EQ(std::string_view(stragglers.at(0)["cause"]), "data-wait");
    EXPECT_TRUE(job["clockOffsetsNs"].is_object());
    EXPECT_TRUE(job["collectives"].is_array());
}

TEST_F(JobCliTest, SummarizeThenMergeGivesTheSameStragglers) {
    fs::create_directories(m_folder / "summaries");
    for (int rank = 0; rank < 4; ++rank) {
        const CliResult s =
            run("summarize " + path("traces/rank-" + std::to_string(rank) + ".pt.trace.json") + " -o " +
                path("summaries/rank-" + std::to_string(rank) + ".cpsum"));
        ASSERT_EQ(s.exitCode, 0) << s.out;
    }
    const CliResult fromTraces = run("analyze " + path("traces"));
    const CliResult fromSummaries = run("analyze " + path("summaries"));
    ASSERT_EQ(fromSummaries.exitCode, 0) << fromSummaries.out;
    auto section = [](const std::string& text) {
        const std::size_t a = text.find("STRAGGLERS");
        return text.substr(a, text.find("COLLECTIVES") - a);
    };
    EXPECT_EQ(section(fromTraces.out), section(fromSummaries.out));
}

TEST_F(JobCliTest, InfoAndDiffOnJobs) {
    const CliResult info = run("info " + path("traces"));
    ASSERT_EQ(info.exitCode, 0) << info.out;
    EXPECT_NE(info.out.find("Job: 4 rank(s)"), std::string::npos) << info.out;
    const CliResult diff = run("diff " + path("traces") + " " + path("traces"));
    ASSERT_EQ(diff.exitCode, 0) << diff.out;
    EXPECT_NE(diff.out.find("JOB DIFF"), std::string::npos) << diff.out;
}

TEST_F(JobCliTest, ACorruptRankIsAWarningAndTheJobGoesOn) {
    std::ofstream(path("traces/rank-2.pt.trace.json"), std::ios::trunc)
        << "{\"traceEvents\": [ {\"ph\": \"X\"";
    const CliResult r = run("analyze " + path("traces"));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_NE(r.out.find("rank-2.pt.trace.json"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Missing ranks: 2"), std::string::npos) << r.out;
}

// Issue #23 item 6: `info` and `analyze` on a folder name the trace-like files they leave out and why.
TEST_F(JobCliTest, InfoAndAnalyzeNameEmptyAndUnreadableRankFiles) {
    std::ofstream(path("traces/rank-4.pt.trace.json")).close();
    std::ofstream(path("traces/rank-5.cptrace")) << "garbage";
    for (const char* command : {"info ", "analyze "}) {
        const CliResult r = run(command + path("traces"));
        ASSERT_EQ(r.exitCode, 0) << r.out;
        EXPECT_NE(r.out.find("rank-4.pt.trace.json"), std::string::npos) << command << r.out;
        EXPECT_NE(r.out.find("rank-5.cptrace"), std::string::npos) << command << r.out;
    }
}

TEST_F(JobCliTest, BadInputsHaveTheDocumentedExitCodes) {
    EXPECT_EQ(run("analyze " + path("nothing-here") + " " + path("traces")).exitCode, 1);
    EXPECT_EQ(run("analyze '" + path("traces") + "/*.cpsum'").exitCode, 1);
    EXPECT_EQ(run("summarize").exitCode, 2);
    EXPECT_EQ(run("summarize " + path("absent.json")).exitCode, 1);
    EXPECT_EQ(run("analyze --network-gbps x " + path("traces")).exitCode, 2);
}

}  // namespace
}  // namespace chokepoint::job

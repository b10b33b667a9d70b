// Whether a set of inputs looks like the ranks of one job (stages::notOneJobReason through
// analyzeJob): a real job passes; two captures of one process, traces taken hours apart on the wall
// clock, and separate single-process runs are called out with what to do instead.

#include <gtest/gtest.h>

#include "core/job/JobAnalysis.h"
#include "tests/core/job/SyntheticSummaries.h"

namespace chokepoint::job {
namespace {

using Summaries = std::vector<std::shared_ptr<const RankSummary>>;

// A single-process trace without rank information or collectives, like a plain training script's.
std::shared_ptr<const RankSummary> singleProcessRun(std::int32_t orderIndex, const std::string& path,
                                                    core::TimestampNs startNs = 0) {
    auto s = std::make_shared<RankSummary>();
    s->rank = orderIndex;
    s->rankSource = RankSource::Order;
    s->sourcePath = path;
    s->window = {startNs, startNs + 1'000'000'000};
    RankStep step;
    step.range = s->window;
    s->steps.push_back(step);
    return s;
}

TEST(JobCoherenceTest, ARealJobLooksLikeOneJob) {
    testjob::JobShape shape;
    shape.ranks = 4;
    shape.ranksPerHost = 1;
    // Wall-clock times a few seconds apart across hosts: within clock sync, not separate runs.
    shape.hostOffsetsNs = {1'780'000'000'000'000'000, 1'780'000'003'000'000'000, 1'779'999'998'000'000'000,
                           1'780'000'001'000'000'000};
    const JobReport report = analyzeJob(testjob::makeSummaries(shape));
    EXPECT_EQ(report.notOneJob, "");
}

TEST(JobCoherenceTest, SeparateSingleProcessRunsAreNotOneJob) {
    const JobReport report =
        analyzeJob({singleProcessRun(0, "gpt.cptrace"), singleProcessRun(1, "resnet.cptrace")});
    EXPECT_NE(report.notOneJob.find("2 separate single-process runs"), std::string::npos) << report.notOneJob;
    EXPECT_NE(report.notOneJob.find("chokepoint-cli diff A B"), std::string::npos) << report.notOneJob;
}

TEST(JobCoherenceTest, RanksSplitFromOneFileAreNotCalledSeparateRuns) {
    // One process driving two GPUs, split into two ranks: one file, no collectives (say, model
    // parallel through peer copies), still one job.
    const JobReport report =
        analyzeJob({singleProcessRun(0, "two-gpus.json"), singleProcessRun(1, "two-gpus.json")});
    EXPECT_EQ(report.notOneJob, "");
}

TEST(JobCoherenceTest, TwoCapturesOfOneProcessAreNotTwoRanks) {
    testjob::JobShape shape;
    shape.ranks = 2;
    Summaries summaries = testjob::makeSummaries(shape);
    for (auto& summary : summaries) {
        auto edited = std::make_shared<RankSummary>(*summary);
        edited->hostName = "node7";
        edited->pid = 4242;
        summary = edited;
    }
    const JobReport report = analyzeJob(summaries);
    EXPECT_NE(report.notOneJob.find("recorded by one process (pid 4242 on node7)"), std::string::npos)
        << report.notOneJob;
}

TEST(JobCoherenceTest, TracesHoursApartOnTheWallClockAreNotOneJob) {
    testjob::JobShape shape;
    shape.ranks = 2;
    shape.ranksPerHost = 1;
    shape.hostOffsetsNs = {1'780'000'000'000'000'000, 1'780'000'000'000'000'000 + 3 * 3'600'000'000'000};
    const JobReport report = analyzeJob(testjob::makeSummaries(shape));
    EXPECT_NE(report.notOneJob.find("before rank 1 (rank-1.json) starts on the wall clock"),
              std::string::npos)
        << report.notOneJob;
    EXPECT_NE(report.notOneJob.find("3.0 hours"), std::string::npos) << report.notOneJob;
}

TEST(JobCoherenceTest, BootClocksFarApartSayNothing) {
    // CLOCK_MONOTONIC counts from each host's boot: a gap there is no evidence of separate runs.
    testjob::JobShape shape;
    shape.ranks = 2;
    shape.ranksPerHost = 1;
    shape.hostOffsetsNs = {5'000'000'000'000, 5'000'000'000'000 + 3 * 3'600'000'000'000};
    const JobReport report = analyzeJob(testjob::makeSummaries(shape));
    EXPECT_EQ(report.notOneJob, "");
}

TEST(JobCoherenceTest, AnInputThatFailedToLoadKeepsItsRankNumberMissing) {
    // Inputs 0 and 2 loaded, input 1 did not: ranks come from the inputs' order, so the job has
    // three ranks and rank 1 is missing (it read "2 of 2 ranks" before).
    const JobReport report = analyzeJob({singleProcessRun(0, "a.json"), singleProcessRun(2, "c.json")},
                                        {RankProblem{"b.json", 1, "b.json: not a trace"}});
    EXPECT_EQ(report.worldSize, 3);
    EXPECT_EQ(report.missingRanks, (std::vector<std::int32_t>{1}));
}

}  // namespace
}  // namespace chokepoint::job

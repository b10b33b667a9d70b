// The job analysis end to end on the project's synthetic jobs (samples/synthetic/SyntheticJob.h):
// rank traces built from a cost model, each analysed and summarised like a real trace, then
// analysed as a job. The late rank and its cause are known, so the tests check the right rank,
// the right cause, the recovered clocks, and that a balanced job names no straggler.

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/job/JobAnalysis.h"
#include "core/job/JobLoader.h"
#include "core/job/JobReportWriters.h"
#include "samples/synthetic/SyntheticJob.h"

namespace chokepoint::job {
namespace {

using samples::LateCause;

JobReport analyzeSynthetic(const samples::SyntheticJobOptions& options) {
    std::vector<core::TraceModel> models = samples::makeSyntheticJob(options);
    std::vector<std::shared_ptr<const RankSummary>> ranks;
    int order = 0;
    for (core::TraceModel& model : models) {
        auto shared = std::make_shared<const core::TraceModel>(std::move(model));
        std::string error;
        for (RankSummary& s :
             summarizeModel(shared, "rank-" + std::to_string(order) + ".cptrace", order, {}, &error)) {
            ranks.push_back(std::make_shared<const RankSummary>(std::move(s)));
        }
        EXPECT_TRUE(error.empty()) << error;
        ++order;
    }
    return analyzeJob(ranks);
}

struct CauseCase {
    LateCause cause;
    StragglerCause expected;
};

class SyntheticStragglerTest : public ::testing::TestWithParam<CauseCase> {};

TEST_P(SyntheticStragglerTest, RightRankRightCauseClocksRecovered) {
    samples::SyntheticJobOptions options;
    options.ranks = 16;
    options.lateRank = 11;
    options.cause = GetParam().cause;
    options.clockSkewNsMax = 3'000'000;
    const samples::SyntheticJobTruth truth = samples::syntheticJobTruth(options);
    const JobReport report = analyzeSynthetic(options);
    ASSERT_EQ(report.ranks.size(), 16u);
    ASSERT_FALSE(report.stragglers.empty()) << writeJobText(report);
    EXPECT_EQ(report.stragglers.front().rank, 11) << writeJobText(report);
    EXPECT_EQ(report.stragglers.front().cause, GetParam().expected) << writeJobText(report);
    if (GetParam().cause != LateCause::BeforeWindow) {
        // (Before-window: the delay is in the first step only, a quarter of it per step.)
        EXPECT_EQ(report.verdict.bottleneck, JobBottleneck::StragglerWait);
    }
    for (const JobRank& rank : report.ranks) {
        const auto r = static_cast<std::size_t>(rank.summary->rank);
        const core::DurationNs truthOffset = truth.clockOffsetsNs[r] - truth.clockOffsetsNs[0];
        EXPECT_LE(std::llabs(rank.clockOffsetNs - truthOffset), 5'000) << "rank " << r;
    }
}

INSTANTIATE_TEST_SUITE_P(Causes, SyntheticStragglerTest,
                         ::testing::Values(CauseCase{LateCause::DataWait, StragglerCause::DataWait},
                                           CauseCase{LateCause::LongerKernels, StragglerCause::LongerKernels},
                                           CauseCase{LateCause::ExtraKernels, StragglerCause::MoreKernels},
                                           CauseCase{LateCause::HostPython, StragglerCause::HostWork},
                                           CauseCase{LateCause::BeforeWindow, StragglerCause::BeforeWindow}));

// Two ranks: the late one is compared with the other, not with the median of both (halfway to
// itself), which halved its lateness and hid it under the noise.
TEST(SyntheticJobAnalysisTest, OfTwoRanksTheLateOneIsAStraggler) {
    samples::SyntheticJobOptions options;
    options.ranks = 2;
    options.lateRank = 1;
    options.cause = LateCause::DataWait;
    samples::SyntheticJobOptions even;
    even.ranks = 2;
    const JobReport balanced = analyzeSynthetic(even);
    ASSERT_EQ(balanced.ranks.size(), 2u);
    // Late by more than the noise bound per step, but by less than twice it: half of it is not.
    const core::DurationNs stepNs = balanced.whatIf.measuredStepNs;
    options.lateByNs = static_cast<std::int64_t>(0.02 * static_cast<double>(stepNs));
    const JobReport report = analyzeSynthetic(options);
    ASSERT_EQ(report.ranks.size(), 2u);
    ASSERT_FALSE(report.stragglers.empty()) << writeJobText(report);
    const Straggler& late = report.stragglers.front();
    EXPECT_EQ(late.rank, 1) << writeJobText(report);
    EXPECT_GT(late.latePerStepNs, report.noiseNs);
    EXPECT_LT(late.latePerStepNs, 2 * report.noiseNs) << "not the case this test is about";
}

TEST(SyntheticJobAnalysisTest, BalancedJobNamesNoStraggler) {
    samples::SyntheticJobOptions options;
    options.ranks = 64;
    options.clockSkewNsMax = 2'000'000;
    const JobReport report = analyzeSynthetic(options);
    EXPECT_TRUE(report.stragglers.empty()) << writeJobText(report);
    EXPECT_NE(report.verdict.bottleneck, JobBottleneck::StragglerWait);
}

TEST(SyntheticJobAnalysisTest, TensorAndDataParallelGroups) {
    samples::SyntheticJobOptions options;
    options.ranks = 16;
    options.tensorParallelSize = 4;
    options.lateRank = 6;
    options.cause = LateCause::DataWait;
    const JobReport report = analyzeSynthetic(options);
    ASSERT_FALSE(report.stragglers.empty()) << writeJobText(report);
    EXPECT_EQ(report.stragglers.front().rank, 6);
    // Tensor-parallel calls are matched inside their group of 4, data-parallel ones across groups.
    bool sawTp = false;
    for (const CollectiveInstance& instance : report.collectives) {
        if (instance.groupSize == 4) {
            sawTp = true;
            EXPECT_LE(instance.arrivals.size(), 4u);
        }
    }
    EXPECT_TRUE(sawTp);
}

TEST(SyntheticJobAnalysisTest, MissingRanksAndAnUnevenRank) {
    samples::SyntheticJobOptions options;
    options.ranks = 8;
    options.missingRanks = {3, 5};
    options.unevenCollectives = true;
    const JobReport report = analyzeSynthetic(options);
    EXPECT_EQ(report.ranks.size(), 6u);
    EXPECT_EQ(report.missingRanks, (std::vector<std::int32_t>{3, 5}));
    EXPECT_TRUE(report.stragglers.empty()) << writeJobText(report);
}

TEST(SyntheticJobAnalysisTest, TwoHundredFiftySixRanks) {
    samples::SyntheticJobOptions options;
    options.ranks = 256;
    options.steps = 3;
    options.lateRank = 200;
    options.cause = LateCause::HostPython;
    options.clockSkewNsMax = 5'000'000;
    const JobReport report = analyzeSynthetic(options);
    ASSERT_FALSE(report.stragglers.empty());
    EXPECT_EQ(report.stragglers.front().rank, 200);
    EXPECT_EQ(report.stragglers.front().cause, StragglerCause::HostWork);
}

}  // namespace
}  // namespace chokepoint::job

namespace chokepoint::job {
namespace {

TEST(SyntheticJobAnalysisTest, ThousandAndTwentyFourRanksOnOneHundredTwentyEightHosts) {
    samples::SyntheticJobOptions options;
    options.ranks = 1024;
    options.steps = 2;
    options.lateRank = 777;
    options.cause = samples::LateCause::DataWait;
    options.clockSkewNsMax = 20'000'000;
    const JobReport report = analyzeSynthetic(options);
    ASSERT_EQ(report.ranks.size(), 1024u);
    ASSERT_FALSE(report.stragglers.empty());
    EXPECT_EQ(report.stragglers.front().rank, 777);
    EXPECT_EQ(report.stragglers.front().cause, StragglerCause::DataWait);
    EXPECT_FALSE(report.clock.sameHost);
}

}  // namespace
}  // namespace chokepoint::job

namespace chokepoint::job {
namespace {

// The what-if must predict the step of the same job without the late rank: late arrivals that a
// rank inherits (tensor-parallel peers) or carries over (a bucket overlapping backward) count once.
TEST(SyntheticJobAnalysisTest, WhatIfPredictsTheBalancedJobsStep) {
    for (int tp : {1, 2, 4}) {
        samples::SyntheticJobOptions balanced;
        balanced.ranks = 16;
        balanced.tensorParallelSize = tp;
        samples::SyntheticJobOptions late = balanced;
        late.lateRank = 9;
        late.cause = samples::LateCause::DataWait;
        const JobReport without = analyzeSynthetic(balanced);
        const JobReport with = analyzeSynthetic(late);
        ASSERT_EQ(with.stragglers.size(), 1u) << "tp " << tp << "\n" << writeJobText(with);
        EXPECT_EQ(with.stragglers.front().rank, 9) << "tp " << tp;  // not its tensor-parallel peers
        EXPECT_EQ(with.stragglers.front().cause, StragglerCause::DataWait) << "tp " << tp;
        const double truth = static_cast<double>(without.whatIf.measuredStepNs);
        EXPECT_NEAR(static_cast<double>(with.whatIf.idealStepNs), truth, 0.03 * truth) << "tp " << tp;
    }
}

// Issue #23 item 3: one rank late by a fixed delay each step. Each cost answers one named
// question ("if rank 7 were on time", "if every rank were on time") and with one late rank both are
// that delay per step; the place to look is an offset from the job's start on the trace's own
// scale, not a time since 1970.
TEST(SyntheticJobAnalysisTest, OneLateRankHasOneNamedCostPerQuestion) {
    samples::SyntheticJobOptions options;
    options.ranks = 8;
    options.steps = 6;
    options.lateRank = 7;
    options.cause = LateCause::DataWait;
    options.lateByNs = 3'000'000;
    const JobReport report = analyzeSynthetic(options);
    ASSERT_EQ(report.stragglers.size(), 1u) << writeJobText(report);
    const Straggler& s = report.stragglers.front();
    EXPECT_EQ(s.rank, 7);
    EXPECT_NEAR(static_cast<double>(s.whatIfSavingPerStepNs), 3e6, 0.15 * 3e6);
    EXPECT_NEAR(static_cast<double>(report.whatIf.slowdownPerStepNs), 3e6, 0.15 * 3e6);
    // Rank 7 alone on time can never save more than every rank on time.
    EXPECT_LE(s.whatIfSavingPerStepNs, report.whatIf.slowdownPerStepNs);
    ASSERT_FALSE(report.verdict.fixes.empty());
    EXPECT_EQ(report.verdict.fixes.front().rank, 7);
    EXPECT_EQ(report.verdict.fixes.front().predictedStepNs,
              report.whatIf.measuredStepNs - s.whatIfSavingPerStepNs);
    // The place to look lies inside the job, counted from its start.
    core::TimestampNs jobEnd = report.startNs;
    for (const JobRank& rank : report.ranks) {
        jobEnd = std::max(jobEnd, rank.summary->window.endNs - rank.clockOffsetNs);
    }
    EXPECT_GE(s.showRange.startNs, report.startNs);
    EXPECT_LE(s.showRange.endNs, jobEnd);
    const std::string text = writeJobText(report);
    EXPECT_NE(text.find("if rank 7 were on time"), std::string::npos) << text;
    EXPECT_NE(text.find("if every rank were on time"), std::string::npos) << text;
    EXPECT_NE(text.find("after the job's start"), std::string::npos) << text;
    EXPECT_EQ(text.find("on the job clock"), std::string::npos) << text;
    EXPECT_NE(text.find("predicted job step if rank 7 were on time"), std::string::npos) << text;
    // The verdict's headline names which question each of its costs answers.
    EXPECT_NE(report.verdict.headline.find("(if every rank were on time)"), std::string::npos)
        << report.verdict.headline;
    EXPECT_NE(report.verdict.headline.find("(if rank 7 were on time)"), std::string::npos)
        << report.verdict.headline;
}

TEST(SyntheticJobAnalysisTest, ClocksWithoutHostNamesAreInferredFromCollectiveEnds) {
    samples::SyntheticJobOptions options;
    options.ranks = 16;
    options.tensorParallelSize = 2;
    options.clockSkewNsMax = 400'000;
    const samples::SyntheticJobTruth truth = samples::syntheticJobTruth(options);
    std::vector<core::TraceModel> models = samples::makeSyntheticJob(options);
    std::vector<std::shared_ptr<const RankSummary>> ranks;
    for (core::TraceModel& model : models) {
        model.metadata.hostName.clear();  // as in Kineto traces, which do not record the host
        auto shared = std::make_shared<const core::TraceModel>(std::move(model));
        for (RankSummary& s : summarizeModel(shared, "", static_cast<int>(ranks.size()), {}, nullptr)) {
            ranks.push_back(std::make_shared<const RankSummary>(std::move(s)));
        }
    }
    const JobReport report = analyzeJob(ranks);
    for (const JobRank& rank : report.ranks) {
        const auto r = static_cast<std::size_t>(rank.summary->rank);
        EXPECT_LE(std::llabs(rank.clockOffsetNs - (truth.clockOffsetsNs[r] - truth.clockOffsetsNs[0])), 5'000)
            << "rank " << r;
    }
}

TEST(SyntheticJobAnalysisTest, RanksWithoutHostNamesOnOneClockNeedNoOffsets) {
    // Kineto traces record no host; when every rank's collective ends agree as recorded, the ranks
    // share one clock. That is an estimate (offsets 0), not "too few collectives matched".
    samples::SyntheticJobOptions options;
    options.ranks = 4;
    options.ranksPerHost = 4;
    std::vector<core::TraceModel> models = samples::makeSyntheticJob(options);
    std::vector<std::shared_ptr<const RankSummary>> ranks;
    for (core::TraceModel& model : models) {
        model.metadata.hostName.clear();
        auto shared = std::make_shared<const core::TraceModel>(std::move(model));
        for (RankSummary& s : summarizeModel(shared, "", static_cast<int>(ranks.size()), {}, nullptr)) {
            ranks.push_back(std::make_shared<const RankSummary>(std::move(s)));
        }
    }
    const JobReport report = analyzeJob(ranks);
    EXPECT_TRUE(report.clock.estimated) << report.clock.note;
    EXPECT_NE(report.clock.note.find("one clock, no offsets applied"), std::string::npos)
        << report.clock.note;
    for (const JobRank& rank : report.ranks) {
        EXPECT_EQ(rank.clockOffsetNs, 0);
        EXPECT_GT(rank.clockMatches, 0);
    }
}

}  // namespace
}  // namespace chokepoint::job

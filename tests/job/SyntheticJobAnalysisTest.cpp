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
    EXPECT_EQ(report.verdict.bottleneck, JobBottleneck::StragglerWait);
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

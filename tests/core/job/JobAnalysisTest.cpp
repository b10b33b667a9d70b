// The job analysis on summaries built in code: clocks, collectives, stragglers and their cause,
// what-if, verdict, and the inputs it must survive (missing ranks, duplicates, subgroups, uneven
// collective counts).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/job/JobAnalysis.h"
#include "core/job/JobReportWriters.h"
#include "core/job/JobStages.h"
#include "tests/core/job/SyntheticSummaries.h"

namespace chokepoint::job {
namespace {

using testjob::JobShape;
using testjob::makeSummaries;

TEST(JobAnalysisTest, BalancedJobNamesNoStraggler) {
    JobShape shape;
    shape.ranks = 64;
    const JobReport report = analyzeJob(makeSummaries(shape));
    ASSERT_EQ(report.ranks.size(), 64u);
    EXPECT_TRUE(report.stragglers.empty());
    EXPECT_TRUE(report.missingRanks.empty());
    EXPECT_EQ(report.collectives.size(), static_cast<std::size_t>(shape.steps * shape.collectivesPerStep));
    EXPECT_NE(report.verdict.bottleneck, JobBottleneck::StragglerWait);
    // Jitter only: the job loses at most the jitter per collective.
    EXPECT_LE(report.whatIf.slowdownPerStepNs, shape.jitterNs * shape.collectivesPerStep);
}

TEST(JobAnalysisTest, RecoversClockOffsetsWithin5Microseconds) {
    JobShape shape;
    shape.ranks = 32;
    shape.ranksPerHost = 8;
    shape.hostOffsetsNs = {0, 7'300'000, -2'150'000, 41'000'000};
    const JobReport report = analyzeJob(makeSummaries(shape));
    ASSERT_TRUE(report.clock.estimated);
    EXPECT_FALSE(report.clock.sameHost);
    for (const JobRank& rank : report.ranks) {
        const core::DurationNs truth = shape.hostOffsetsNs[static_cast<std::size_t>(rank.summary->rank / 8)];
        EXPECT_LE(std::llabs(rank.clockOffsetNs - truth), 5'000) << "rank " << rank.summary->rank;
    }
    EXPECT_LE(report.clock.medianResidualNs, 5'000);
    EXPECT_TRUE(report.stragglers.empty());
}

TEST(JobAnalysisTest, OneHostOffsetsNearZeroAndSaysSo) {
    JobShape shape;
    shape.ranks = 8;
    const JobReport report = analyzeJob(makeSummaries(shape));
    EXPECT_TRUE(report.clock.sameHost);
    EXPECT_LE(report.clock.maxAbsOffsetNs, shape.jitterNs);
    EXPECT_NE(report.clock.note.find("one host"), std::string::npos) << report.clock.note;
}

struct CauseCase {
    WorkKind kind;
    int extraKernels;
    StragglerCause expected;
};

class StragglerCauseTest : public ::testing::TestWithParam<CauseCase> {};

TEST_P(StragglerCauseTest, NamesTheLateRankAndWhy) {
    JobShape shape;
    shape.ranks = 16;
    shape.lateRank = 11;
    shape.lateKind = GetParam().kind;
    shape.extraKernels = GetParam().extraKernels;
    shape.lateNs = 9'000'000;
    shape.hostOffsetsNs = {0, 3'000'000};
    const JobReport report = analyzeJob(makeSummaries(shape));
    ASSERT_EQ(report.stragglers.size(), 1u) << writeJobText(report);
    const Straggler& s = report.stragglers.front();
    EXPECT_EQ(s.rank, 11);
    EXPECT_EQ(s.cause, GetParam().expected) << writeJobText(report);
    if (GetParam().kind == WorkKind::GpuKernels) {
        // The excess is a total over the collectives it arrives last at, and says so: `diff` of two
        // ranks counts kernels per step.
        const bool said = std::any_of(s.evidence.begin(), s.evidence.end(), [](const std::string& e) {
            return e.find("in all") != std::string::npos &&
                   e.find("collectives it arrives last at") != std::string::npos;
        });
        EXPECT_TRUE(said) << writeJobText(report);
    }
    EXPECT_NEAR(static_cast<double>(s.latePerStepNs), 9e6, 0.05 * 9e6);
    EXPECT_EQ(report.verdict.bottleneck, JobBottleneck::StragglerWait);
    ASSERT_FALSE(report.verdict.fixes.empty());
    EXPECT_EQ(report.verdict.fixes.front().rank, 11);
    // What-if: removing the delay saves about the delay per step.
    EXPECT_NEAR(static_cast<double>(report.whatIf.slowdownPerStepNs), 9e6, 0.05 * 9e6);
    EXPECT_NEAR(static_cast<double>(report.whatIf.idealStepNs),
                static_cast<double>(report.whatIf.measuredStepNs) - 9e6, 0.05 * 9e6);
    // The evidence range lies before the late arrival, on the job clock.
    EXPECT_LT(s.showRange.startNs, s.showRange.endNs);
    EXPECT_EQ(s.lateSteps.size(), static_cast<std::size_t>(shape.steps));
}

INSTANTIATE_TEST_SUITE_P(
    Causes, StragglerCauseTest,
    ::testing::Values(CauseCase{WorkKind::DataWait, 0, StragglerCause::DataWait},
                      CauseCase{WorkKind::HostWork, 0, StragglerCause::HostWork},
                      CauseCase{WorkKind::GpuKernels, 12, StragglerCause::MoreKernels},
                      CauseCase{WorkKind::GpuKernels, 0, StragglerCause::LongerKernels},
                      CauseCase{WorkKind::Synchronization, 0, StragglerCause::Synchronization},
                      CauseCase{WorkKind::GarbageCollection, 0, StragglerCause::GarbageCollection}));

TEST(JobAnalysisTest, HostWorkNamesTheFrames) {
    JobShape shape;
    shape.lateRank = 3;
    shape.lateKind = WorkKind::HostWork;
    shape.lateNs = 6'000'000;
    const JobReport report = analyzeJob(makeSummaries(shape));
    ASSERT_EQ(report.stragglers.size(), 1u);
    ASSERT_FALSE(report.stragglers.front().topHostFrames.empty());
    EXPECT_EQ(report.stragglers.front().topHostFrames.front().name, "train.py(88): compute_metrics");
}

TEST(JobAnalysisTest, DelayBeforeTheWindowIsSaidToBeInvisible) {
    JobShape shape;
    shape.steps = 1;
    shape.lateRank = 5;
    shape.lateNs = 8'000'000;
    shape.lateBeforeWindow = true;
    const JobReport report = analyzeJob(makeSummaries(shape));
    ASSERT_EQ(report.stragglers.size(), 1u) << writeJobText(report);
    EXPECT_EQ(report.stragglers.front().rank, 5);
    EXPECT_EQ(report.stragglers.front().cause, StragglerCause::BeforeWindow);
}

TEST(JobAnalysisTest, LateWithoutVisibleCauseIsUnknown) {
    // The late rank's segments look like everyone else's (the delay is outside its trace).
    JobShape shape;
    shape.lateRank = 2;
    shape.lateKind = WorkKind::GpuKernels;
    shape.lateNs = 7'000'000;
    auto ranks = makeSummaries(shape);
    auto copy = std::make_shared<RankSummary>(*ranks[2]);
    for (RankCollective& c : copy->collectives) {
        c.before.ns[static_cast<std::size_t>(WorkKind::GpuKernels)] = shape.workNs;
    }
    ranks[2] = copy;
    const JobReport report = analyzeJob(ranks);
    ASSERT_EQ(report.stragglers.size(), 1u);
    EXPECT_EQ(report.stragglers.front().cause, StragglerCause::Unknown);
}

TEST(JobAnalysisTest, StragglerIsTheLateArriverNotTheLongestWaiter) {
    JobShape shape;
    shape.lateRank = 6;
    shape.lateNs = 10'000'000;
    const JobReport report = analyzeJob(makeSummaries(shape));
    // Every other rank waits ~10 ms per step for rank 6; rank 6 itself waits least.
    const JobRank& late = report.ranks[static_cast<std::size_t>(report.indexOfRank(6))];
    for (const JobRank& rank : report.ranks) {
        if (rank.summary->rank != 6) {
            EXPECT_GT(rank.collectiveWaitNs, late.collectiveWaitNs);
        }
    }
    ASSERT_FALSE(report.stragglers.empty());
    EXPECT_EQ(report.stragglers.front().rank, 6);
}

TEST(JobAnalysisTest, BusBandwidthUsesTheCollectiveFactor) {
    EXPECT_DOUBLE_EQ(stages::busBandwidthFactor("AllReduce", 8), 2.0 * 7 / 8);
    EXPECT_DOUBLE_EQ(stages::busBandwidthFactor("AllGather", 8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(stages::busBandwidthFactor("ReduceScatter", 4), 3.0 / 4);
    EXPECT_DOUBLE_EQ(stages::busBandwidthFactor("AllToAll", 2), 0.5);
    EXPECT_DOUBLE_EQ(stages::busBandwidthFactor("Broadcast", 8), 1.0);
    EXPECT_DOUBLE_EQ(stages::busBandwidthFactor("Barrier", 8), 0.0);

    JobShape shape;
    shape.ranks = 8;
    shape.sizeBytes = 1'000'000'000;
    shape.transferNs = 5'000'000;  // 1 GB in 5 ms: algbw 200 GB/s, busbw 350 GB/s
    const JobReport report = analyzeJob(makeSummaries(shape));
    ASSERT_FALSE(report.collectives.empty());
    EXPECT_NEAR(report.collectives.front().algBytesPerSecond, 200e9, 1e9);
    EXPECT_NEAR(report.collectives.front().busBytesPerSecond, 350e9, 2e9);
    ASSERT_EQ(report.collectiveStats.size(), 1u);
    EXPECT_DOUBLE_EQ(report.collectiveStats.front().linkBytesPerSecond, 450e9);  // one host: NVLink
}

TEST(JobAnalysisTest, MissingAndDuplicateRanksAreReported) {
    JobShape shape;
    shape.ranks = 8;
    auto ranks = makeSummaries(shape);
    ranks.erase(ranks.begin() + 5);
    ranks.erase(ranks.begin() + 2);
    ranks.push_back(ranks.front());  // rank 0 twice
    const JobReport report = analyzeJob(ranks, {{"rank-7.json", 7, "rank-7.json: byte 12: unexpected end"}});
    EXPECT_EQ(report.ranks.size(), 6u);
    EXPECT_EQ(report.missingRanks, (std::vector<std::int32_t>{2, 5}));
    ASSERT_EQ(report.problems.size(), 2u);
    EXPECT_NE(report.problems[1].message.find("also given by"), std::string::npos);
    EXPECT_FALSE(report.warnings.empty());
}

TEST(JobAnalysisTest, SubgroupsMatchWithinTheirProcessGroup) {
    // Two tensor-parallel groups of 4 all-reduce separately: each group's calls match only inside it.
    JobShape shape;
    shape.ranks = 4;
    shape.lateRank = 1;
    shape.lateNs = 5'000'000;
    auto groupA = makeSummaries(shape);
    shape.lateRank = -1;
    shape.seed = 7;
    auto groupB = makeSummaries(shape);
    std::vector<std::shared_ptr<const RankSummary>> all;
    for (int g = 0; g < 2; ++g) {
        for (const auto& s : g == 0 ? groupA : groupB) {
            auto copy = std::make_shared<RankSummary>(*s);
            copy->rank += 4 * g;
            copy->worldSize = 8;
            for (RankCollective& c : copy->collectives) {
                c.groupKey = g == 0 ? "pg 1 [0, 1, 2, 3]" : "pg 2 [4, 5, 6, 7]";
                c.groupSize = 4;
            }
            all.push_back(copy);
        }
    }
    const JobReport report = analyzeJob(all);
    EXPECT_EQ(report.collectives.size(),
              static_cast<std::size_t>(2 * shape.steps * shape.collectivesPerStep));
    for (const CollectiveInstance& instance : report.collectives) {
        EXPECT_EQ(instance.arrivals.size(), 4u);
        EXPECT_TRUE(instance.complete);
    }
    ASSERT_EQ(report.stragglers.size(), 1u);
    EXPECT_EQ(report.stragglers.front().rank, 1);
}

TEST(JobAnalysisTest, UnevenCollectiveCountsKeepTheRest) {
    JobShape shape;
    shape.ranks = 8;
    auto ranks = makeSummaries(shape);
    auto copy = std::make_shared<RankSummary>(*ranks[4]);
    copy->collectives.pop_back();
    ranks[4] = copy;
    const JobReport report = analyzeJob(ranks);
    EXPECT_EQ(report.collectives.size(), static_cast<std::size_t>(shape.steps * shape.collectivesPerStep));
    std::size_t incomplete = 0;
    for (const CollectiveInstance& instance : report.collectives) {
        incomplete += instance.complete ? 0 : 1;
    }
    EXPECT_EQ(incomplete, 1u);
    EXPECT_TRUE(report.stragglers.empty());
}

TEST(JobAnalysisTest, WronglyPairedCallsAreLeftOut) {
    // Rank 3's trace lost its first collective: order matching pairs its calls with the wrong ones,
    // whose ends do not coincide. Those pairings are dropped with a warning.
    JobShape shape;
    shape.ranks = 4;
    shape.steps = 1;
    shape.collectivesPerStep = 6;
    auto ranks = makeSummaries(shape);
    auto copy = std::make_shared<RankSummary>(*ranks[3]);
    copy->collectives.erase(copy->collectives.begin());
    ranks[3] = copy;
    const JobReport report = analyzeJob(ranks);
    bool warned = false;
    for (const std::string& w : report.warnings) {
        if (w.find("do not end together") != std::string::npos) {
            warned = true;
            // It counts calls among calls (it said "12 rank pairing(s) in the 10 calls" of a 2-rank
            // job, counting dropped entries as pairings).
            EXPECT_NE(w.find(" of the 6 collective calls"), std::string::npos) << w;
            EXPECT_EQ(w.find("pairing(s)"), std::string::npos) << w;
        }
    }
    EXPECT_TRUE(warned);
    for (const CollectiveInstance& instance : report.collectives) {
        EXPECT_LT(instance.arrivals.size(), 4u);  // only the three ranks that agree remain paired
    }
}

TEST(JobAnalysisTest, ThousandRanksFindTheStraggler) {
    JobShape shape;
    shape.ranks = 1024;
    shape.steps = 3;
    shape.collectivesPerStep = 4;
    shape.lateRank = 777;
    shape.lateNs = 4'000'000;
    shape.hostOffsetsNs.resize(128);
    for (std::size_t h = 0; h < shape.hostOffsetsNs.size(); ++h) {
        shape.hostOffsetsNs[h] = static_cast<core::DurationNs>((h * 7919) % 20'000) * 1'000 - 10'000'000;
    }
    const JobReport report = analyzeJob(makeSummaries(shape));
    ASSERT_EQ(report.stragglers.size(), 1u);
    EXPECT_EQ(report.stragglers.front().rank, 777);
    EXPECT_EQ(report.stragglers.front().cause, StragglerCause::DataWait);
    for (const JobRank& rank : report.ranks) {
        const core::DurationNs truth =
            shape.hostOffsetsNs[static_cast<std::size_t>(rank.summary->rank / 8)] - shape.hostOffsetsNs[0];
        ASSERT_LE(std::llabs(rank.clockOffsetNs - truth), 5'000) << "rank " << rank.summary->rank;
    }
}

TEST(JobAnalysisTest, ExposedCommunicationWithoutStragglers) {
    JobShape shape;
    auto ranks = makeSummaries(shape);
    std::vector<std::shared_ptr<const RankSummary>> exposed;
    for (const auto& s : ranks) {
        auto copy = std::make_shared<RankSummary>(*s);
        copy->exposedCommunicationNs = shape.transferNs * shape.collectivesPerStep * shape.steps;
        copy->linkBytesPerSecond = 0;  // link unknown: not transfer-bound
        exposed.push_back(copy);
    }
    JobOptions options;
    options.communicationShare = 0.05;
    const JobReport report = analyzeJob(exposed, {}, options);
    EXPECT_EQ(report.verdict.bottleneck, JobBottleneck::ExposedCommunication) << report.verdict.headline;
    ASSERT_FALSE(report.verdict.fixes.empty());
    EXPECT_LT(report.verdict.fixes.front().predictedStepNs, report.whatIf.measuredStepNs);
}

TEST(JobAnalysisTest, SlowTransfersAreTransferBound) {
    JobShape shape;
    shape.sizeBytes = 100'000'000;
    shape.transferNs = 5'000'000;  // 100 MB in 5 ms: busbw 35 GB/s against a 450 GB/s link
    auto ranks = makeSummaries(shape);
    std::vector<std::shared_ptr<const RankSummary>> slow;
    for (const auto& s : ranks) {
        auto copy = std::make_shared<RankSummary>(*s);
        copy->exposedCommunicationNs = shape.transferNs * shape.collectivesPerStep * shape.steps;
        slow.push_back(copy);
    }
    JobOptions options;
    options.communicationShare = 0.05;
    const JobReport report = analyzeJob(slow, {}, options);
    EXPECT_EQ(report.verdict.bottleneck, JobBottleneck::TransferBound) << report.verdict.headline;
}

}  // namespace
}  // namespace chokepoint::job

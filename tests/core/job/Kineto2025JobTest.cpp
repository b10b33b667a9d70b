// Matching collectives across ranks by Kineto's "Comms Id" + "Seq" (PyTorch 2026+): the two-rank
// fixture in tests/data/kineto-2025 whose rank 1 clock runs 5 s ahead, and ranks whose traces hold
// different calls, where matching by order would pair the wrong ones.

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/format/CptraceWriter.h"
#include "core/import/TraceLoader.h"
#include "core/job/JobAnalysis.h"
#include "core/job/JobLoader.h"
#include "core/job/JobReportWriters.h"
#include "core/job/JobStages.h"
#include "core/job/SummaryFile.h"

namespace chokepoint::job {
namespace {

std::string fixture(const char* name) {
    return std::string(CHOKEPOINT_SOURCE_DIR) + "/tests/data/kineto-2025/" + name;
}

TEST(Kineto2025JobTest, RankFiveSecondsOffIsMatchedByCommsIdAndTheLateRankNamed) {
    LoadedJob loaded = loadJob({fixture("comms-rank0.pt.trace.json"), fixture("comms-rank1.pt.trace.json")},
                               JobLoadOptions{});
    ASSERT_TRUE(loaded.problems.empty()) << loaded.problems.front().message;
    ASSERT_EQ(loaded.ranks.size(), 2u);
    for (const auto& rank : loaded.ranks) {
        ASSERT_EQ(rank->collectives.size(), 4u);
        for (const RankCollective& c : rank->collectives) {
            EXPECT_TRUE(c.hasCommsId);
        }
    }
    const JobReport report = analyzeJob(loaded.ranks, loaded.problems);
    EXPECT_EQ(report.matching.byCommsId, 4);
    EXPECT_EQ(report.matching.byOrder, 0);
    EXPECT_EQ(report.matching.byEnds, 0);
    EXPECT_EQ(report.matching.method, "Comms Id + Seq");
    ASSERT_EQ(report.collectives.size(), 4u);
    const int r1 = report.indexOfRank(1);
    ASSERT_GE(r1, 0);
    EXPECT_NEAR(static_cast<double>(report.ranks[static_cast<std::size_t>(r1)].clockOffsetNs), 5e9, 5'000);
    EXPECT_TRUE(report.clock.estimated);
    ASSERT_FALSE(report.stragglers.empty());
    EXPECT_EQ(report.stragglers.front().rank, 1);
    EXPECT_EQ(report.stragglers.front().cause, StragglerCause::DataWait);
    EXPECT_NEAR(static_cast<double>(report.stragglers.front().latePerStepNs), 4e6, 0.3e6);
    const std::string text = writeJobText(report);
    EXPECT_NE(text.find("Collectives matched by: Comms Id + Seq (4 calls)"), std::string::npos) << text;
    const std::string json = writeJobJson(report);
    EXPECT_NE(json.find(R"("collectiveMatching":{"method":"Comms Id + Seq","byCommsId":4)"),
              std::string::npos)
        << json;
}

// Seq and Comms Id survive conversion to .cptrace and the .cpsum rank summary.
TEST(Kineto2025JobTest, SeqAndCommsIdSurviveCptraceAndSummaryFiles) {
    auto model = core::loadTrace(fixture("comms-rank1.pt.trace.json"));
    ASSERT_TRUE(model.ok()) << model.error().message;
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("chokepoint-kineto2025-" + std::to_string(::getpid()) + ".cptrace"))
                                 .string();
    ASSERT_TRUE(core::writeCptrace(model.value(), path).ok());
    auto back = core::loadTrace(path);
    std::filesystem::remove(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back->collectiveCalls.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_TRUE(back->collectiveCalls[i].hasCommsId);
        EXPECT_EQ(back->collectiveCalls[i].commsId, model->collectiveCalls[i].commsId);
        EXPECT_EQ(back->collectiveCalls[i].seq, static_cast<std::int64_t>(i));
    }

    LoadedJob loaded = loadJob({fixture("comms-rank1.pt.trace.json")}, JobLoadOptions{});
    ASSERT_EQ(loaded.ranks.size(), 1u);
    const RankSummary& summary = *loaded.ranks.front();
    auto decoded = decodeSummary(encodeSummary(summary), "rank-1.cpsum");
    ASSERT_TRUE(decoded.ok()) << decoded.error().message;
    ASSERT_EQ(decoded->collectives.size(), summary.collectives.size());
    for (std::size_t i = 0; i < summary.collectives.size(); ++i) {
        EXPECT_TRUE(decoded->collectives[i].hasCommsId);
        EXPECT_EQ(decoded->collectives[i].commsId, summary.collectives[i].commsId);
        EXPECT_EQ(decoded->collectives[i].seq, summary.collectives[i].seq);
    }
}

// Rank 1's trace starts one call later and runs one call longer, on a clock 5 s ahead, without
// step annotations: by order, its first call would pair with rank 0's first (a call earlier);
// by Comms Id + Seq, the three calls both traces hold pair exactly.
TEST(Kineto2025JobTest, CommsIdPairsTheSameCallWhereOrderWouldShiftByOne) {
    auto makeRank = [](std::int32_t rank, int firstSeq, core::DurationNs clockOffset, bool ids) {
        auto s = std::make_shared<RankSummary>();
        s->rank = rank;
        s->hostName = "node" + std::to_string(rank);
        for (int seq = firstSeq; seq < firstSeq + 4; ++seq) {
            RankCollective c;
            c.kind = "AllReduce";
            c.groupKey = "pg 0 [0, 1]";
            c.groupSize = 2;
            c.endNs = clockOffset + 10'000'000LL * (seq + 1);
            c.startNs = c.endNs - 1'000'000 - (rank == 1 ? 0 : 300'000);
            c.hasCommsId = ids;
            c.commsId = ids ? 0xABC000ULL + static_cast<std::uint64_t>(seq) : 0;
            c.seq = ids ? seq : -1;
            s->collectives.push_back(c);
        }
        return std::shared_ptr<const RankSummary>(std::move(s));
    };
    std::vector<JobRank> ranks(2);
    ranks[0].summary = makeRank(0, 0, 0, true);
    ranks[1].summary = makeRank(1, 1, 5'000'000'000LL, true);
    std::vector<stages::MatchedCall> calls = stages::matchCollectives(ranks);
    ASSERT_EQ(calls.size(), 3u);
    for (const stages::MatchedCall& call : calls) {
        EXPECT_TRUE(call.byCommsId);
        ASSERT_EQ(call.members.size(), 2u);
        const auto [ra, ca] = call.members[0];
        const auto [rb, cb] = call.members[1];
        EXPECT_EQ(ranks[ra].summary->collectives[ca].seq, ranks[rb].summary->collectives[cb].seq);
    }
    stages::alignClocks(ranks, calls, 3);
    EXPECT_EQ(ranks[0].clockOffsetNs, 0);
    EXPECT_EQ(ranks[1].clockOffsetNs, 5'000'000'000LL);

    // The same traces without ids: paired by order, shifted by one call (the old behaviour, kept
    // for traces from before 2026); its clock estimate is off by the 10 ms period.
    std::vector<JobRank> old(2);
    old[0].summary = makeRank(0, 0, 0, false);
    old[1].summary = makeRank(1, 1, 5'000'000'000LL, false);
    std::vector<stages::MatchedCall> byOrder = stages::matchCollectives(old);
    ASSERT_EQ(byOrder.size(), 4u);
    EXPECT_FALSE(byOrder.front().byCommsId);
    stages::alignClocks(old, byOrder, 3);
    EXPECT_EQ(old[1].clockOffsetNs, 5'010'000'000LL);
}

// Ids on one rank only (ranks on different PyTorch versions): those calls fall back to order.
TEST(Kineto2025JobTest, IdsOnOneRankOnlyFallBackToOrder) {
    auto makeRank = [](std::int32_t rank, bool ids) {
        auto s = std::make_shared<RankSummary>();
        s->rank = rank;
        for (int seq = 0; seq < 3; ++seq) {
            RankCollective c;
            c.kind = "AllReduce";
            c.endNs = 10'000'000LL * (seq + 1);
            c.startNs = c.endNs - 1'000'000;
            c.hasCommsId = ids;
            c.commsId = ids ? 77ULL + static_cast<std::uint64_t>(seq) : 0;
            c.seq = ids ? seq : -1;
            s->collectives.push_back(c);
        }
        return std::shared_ptr<const RankSummary>(std::move(s));
    };
    std::vector<JobRank> ranks(2);
    ranks[0].summary = makeRank(0, true);
    ranks[1].summary = makeRank(1, false);
    const std::vector<stages::MatchedCall> calls = stages::matchCollectives(ranks);
    ASSERT_EQ(calls.size(), 3u);
    for (const stages::MatchedCall& call : calls) {
        EXPECT_FALSE(call.byCommsId);
        EXPECT_EQ(call.members.size(), 2u);
    }
}

}  // namespace
}  // namespace chokepoint::job

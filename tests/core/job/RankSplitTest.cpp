// One file holding two ranks (two processes, one GPU each, as in an Nsight Systems export of
// torchrun or a fused trace with "RANK n - CPU" processes): each becomes its own rank.

#include <gtest/gtest.h>

#include "core/job/JobLoader.h"
#include "core/job/RankSplit.h"
#include "core/job/SummaryFile.h"

namespace chokepoint::job {
namespace {

// `oneProcess`: both GPUs driven by one process (one thread), as with single-process multi-GPU.
core::TraceModel twoRankModel(bool rankNames, bool oneProcess = false) {
    core::TraceModel m;
    for (int rank = 0; rank < 2; ++rank) {
        const std::int64_t pid = oneProcess ? 100 : 100 + rank;
        if (!oneProcess || rank == 0) {
            m.processes.push_back({pid, rankNames ? "RANK " + std::to_string(rank) + " - CPU" : "python"});
        }
        m.deviceOrAdd(rank).name = "NVIDIA H100 80GB HBM3";
        const core::ThreadIndex thread = m.threadIndex(pid, pid, "python");
        std::int64_t correlation = 1000 * (rank + 1);
        for (int step = 0; step < 3; ++step) {
            const core::TimestampNs stepStart = step * 10'000'000;
            core::RangeRow range;
            range.startNs = stepStart;
            range.endNs = stepStart + 9'000'000;
            range.thread = thread;
            range.name = m.intern("ProfilerStep#" + std::to_string(step));
            m.ranges.add(range);
            for (int k = 0; k < 4; ++k) {
                const core::TimestampNs launch = stepStart + 100'000 + k * 50'000;
                core::ApiCallRow api;
                api.startNs = launch;
                api.endNs = launch + 5'000;
                api.thread = thread;
                api.name = m.intern("cudaLaunchKernel");
                api.correlationId = ++correlation;
                m.apiCalls.add(api);
                core::KernelRow kernel;
                kernel.startNs = stepStart + 1'000'000 + k * 1'500'000;
                kernel.endNs = kernel.startNs + 1'400'000;
                kernel.deviceIndex = static_cast<std::int16_t>(rank);
                kernel.streamId = k == 3 ? 20 : 7;
                kernel.name = m.intern(
                    k == 3 ? "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
                           : "sm90_xmma_gemm_bf16bf16_bf16f32");
                kernel.correlationId = correlation;
                m.kernels.add(kernel);
            }
        }
    }
    m.finalize();
    return m;
}

TEST(RankSplitTest, TwoProcessesOnTwoGpusBecomeTwoRanks) {
    const core::TraceModel model = twoRankModel(true);
    std::vector<RankPart> parts = splitRanks(model, 0);
    ASSERT_EQ(parts.size(), 2u);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        EXPECT_EQ(parts[i].identity.rank, static_cast<std::int32_t>(i));
        EXPECT_EQ(parts[i].identity.source, RankSource::ProcessName);
        EXPECT_EQ(parts[i].model.kernels.size(), 12u);
        EXPECT_EQ(parts[i].model.apiCalls.size(), 12u);
        EXPECT_EQ(parts[i].model.ranges.size(), 3u);
        ASSERT_EQ(parts[i].model.processes.size(), 1u);
        // Launch links are rebuilt from correlation ids.
        for (std::size_t k = 0; k < parts[i].model.kernels.size(); ++k) {
            EXPECT_TRUE(parts[i].model.kernels.launchCall[k].valid());
        }
    }
}

TEST(RankSplitTest, SummarizeModelGivesOneSummaryPerRank) {
    auto model = std::make_shared<const core::TraceModel>(twoRankModel(false));
    std::string error;
    std::vector<RankSummary> summaries = summarizeModel(model, "torchrun.sqlite", 0, {}, &error);
    ASSERT_EQ(summaries.size(), 2u) << error;
    EXPECT_EQ(summaries[0].rank, 0);
    EXPECT_EQ(summaries[1].rank, 1);
    EXPECT_EQ(summaries[0].rankSource, RankSource::Order);
    EXPECT_EQ(summaries[0].collectives.size(), 3u);
    EXPECT_EQ(summaries[1].deviceIndex, 1);
    EXPECT_EQ(summaries[1].steps.size(), 3u);
}

TEST(RankSplitTest, OneProcessDrivingTwoGpusIsOneRankWithPerDeviceFigures) {
    auto model = std::make_shared<const core::TraceModel>(twoRankModel(false, true));
    EXPECT_TRUE(splitRanks(*model, 0).empty());
    std::string error;
    std::vector<RankSummary> summaries = summarizeModel(model, "rank-5.json", 0, {}, &error);
    ASSERT_EQ(summaries.size(), 1u) << error;
    const RankSummary& s = summaries.front();
    EXPECT_EQ(s.rank, 5);
    ASSERT_EQ(s.devices.size(), 2u);
    EXPECT_EQ(s.devices[0].deviceIndex, 0);
    EXPECT_EQ(s.devices[1].deviceIndex, 1);
    EXPECT_EQ(s.devices[1].deviceName, "NVIDIA H100 80GB HBM3");
    EXPECT_GT(s.devices[1].busyFraction, 0.0);
    EXPECT_FALSE(s.devices[1].verdict.empty());

    // The per-device figures survive a .cpsum round trip and reach the job's reports.
    const std::string path = ::testing::TempDir() + "/one-process-two-gpus.cpsum";
    ASSERT_TRUE(writeSummaryFile(s, path).ok());
    auto back = readSummaryFile(path);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ASSERT_EQ(back.value().devices.size(), 2u);
    EXPECT_EQ(back.value().devices[1].deviceIndex, 1);
    EXPECT_DOUBLE_EQ(back.value().devices[1].busyFraction, s.devices[1].busyFraction);
    EXPECT_EQ(back.value().devices[1].meanStepNs, s.devices[1].meanStepNs);
    EXPECT_EQ(back.value().devices[1].verdict, s.devices[1].verdict);
}

TEST(RankSplitTest, OneGpuIsNotSplit) {
    core::TraceModel model;
    model.deviceOrAdd(0);
    core::KernelRow kernel;
    kernel.endNs = 10;
    model.kernels.add(kernel);
    model.finalize();
    EXPECT_TRUE(splitRanks(model, 0).empty());
}

}  // namespace
}  // namespace chokepoint::job

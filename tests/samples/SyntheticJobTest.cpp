// The synthetic multi-rank jobs the job analysis is tested with: every NCCL kernel carries its
// collective parameters, collectives end together on the job clock, each rank's clock is shifted
// by its offset, the late rank arrives late by the asked amount with its cause visible in its own
// trace, balanced ranks stay within noise, and the files read back through core::loadTrace.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/import/TraceLoader.h"
#include "samples/synthetic/SyntheticJob.h"
#include "samples/synthetic/SyntheticJobWriter.h"

namespace chokepoint::samples {
namespace {

using core::TimestampNs;

struct NcclKernel {
    TimestampNs startNs = 0;  // job clock
    TimestampNs endNs = 0;
    std::string group;
    std::string name;
};

bool isNccl(const core::TraceModel& m, std::size_t k) {
    return m.text(m.kernels.name[k]).rfind("ncclDevKernel_", 0) == 0;
}

// The rank's NCCL kernels in start order, on the job clock.
std::vector<NcclKernel> ncclKernels(const core::TraceModel& m, std::int64_t offsetNs) {
    std::map<std::int64_t, const core::CollectiveCallRow*> calls;
    for (const auto& c : m.collectiveCalls) {
        calls[c.correlationId] = &c;
    }
    std::vector<NcclKernel> out;
    for (std::size_t k = 0; k < m.kernels.size(); ++k) {
        if (!isNccl(m, k)) {
            continue;
        }
        auto call = calls.find(m.kernels.correlationId[k]);
        NcclKernel n{m.kernels.startNs[k] - offsetNs, m.kernels.endNs[k] - offsetNs,
                     call == calls.end() ? "" : std::string(m.text(call->second->processGroupName)),
                     std::string(m.text(m.kernels.name[k]))};
        out.push_back(n);
    }
    return out;
}

// Instances of each collective across ranks: key (group, sequence in group) -> per rank kernel.
using Instances = std::map<std::pair<std::string, int>, std::map<int, NcclKernel>>;
Instances matchCollectives(const std::vector<core::TraceModel>& job, const SyntheticJobTruth& truth) {
    Instances instances;
    for (const core::TraceModel& m : job) {
        const int rank = m.distributed.rank;
        std::map<std::string, int> sequence;
        for (const NcclKernel& k : ncclKernels(m, truth.clockOffsetsNs[static_cast<std::size_t>(rank)])) {
            instances[{k.group, sequence[k.group]++}][rank] = k;
        }
    }
    return instances;
}

TimestampNs median(std::vector<TimestampNs> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

TEST(SyntheticJob, EveryRankLooksLikeARealDistributedTrace) {
    SyntheticJobOptions options;
    options.ranks = 16;
    const auto job = makeSyntheticJob(options);
    const SyntheticJobTruth truth = syntheticJobTruth(options);
    ASSERT_EQ(job.size(), 16u);
    for (const core::TraceModel& m : job) {
        const int rank = m.distributed.rank;
        EXPECT_TRUE(m.finalized());
        EXPECT_TRUE(m.metadata.synthetic);
        EXPECT_TRUE(m.distributed.present);
        EXPECT_EQ(m.distributed.worldSize, 16);
        EXPECT_EQ(m.distributed.backend, "nccl");
        EXPECT_EQ(m.metadata.hostName, "node" + std::to_string(rank / 8));
        ASSERT_EQ(m.devices.size(), 1u);
        EXPECT_EQ(m.devices[0].name, "NVIDIA H100 80GB HBM3");
        EXPECT_EQ(m.stats.count("correlation.gpu_event_without_launch_call"), 0);
        int steps = 0;
        for (std::size_t i = 0; i < m.ranges.size(); ++i) {
            steps += m.text(m.ranges.name[i]).rfind("ProfilerStep#", 0) == 0 ? 1 : 0;
        }
        EXPECT_EQ(steps, options.steps);
        std::map<std::int64_t, const core::CollectiveCallRow*> calls;
        for (const auto& c : m.collectiveCalls) {
            calls[c.correlationId] = &c;
        }
        int nccl = 0;
        for (std::size_t k = 0; k < m.kernels.size(); ++k) {
            EXPECT_TRUE(m.kernels.launchCall[k].valid()) << "kernel " << k << " of rank " << rank;
            if (!isNccl(m, k)) {
                EXPECT_EQ(m.kernels.streamId[k], 7);
                continue;
            }
            ++nccl;
            EXPECT_EQ(m.kernels.streamId[k], 20);
            auto call = calls.find(m.kernels.correlationId[k]);
            ASSERT_NE(call, calls.end()) << "NCCL kernel without collective parameters on rank " << rank;
            const core::CollectiveCallRow& c = *call->second;
            EXPECT_EQ(m.text(c.processGroupName), "0");
            EXPECT_EQ(m.text(c.dtype), "BFloat16");
            EXPECT_EQ(c.groupSize, 16);
            EXPECT_GT(c.inNelems, 0);
            EXPECT_EQ(m.text(c.processGroupRanks), "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]");
        }
        EXPECT_EQ(nccl, truth.collectivesPerStep * options.steps);
        EXPECT_EQ(m.collectiveCalls.size(), static_cast<std::size_t>(nccl));
    }
}

TEST(SyntheticJob, CollectivesEndTogetherOnTheJobClockAndEachRankKeepsItsOwnClock) {
    SyntheticJobOptions options;
    options.ranks = 32;
    options.ranksPerHost = 8;
    options.clockSkewNsMax = 300'000;
    const auto job = makeSyntheticJob(options);
    const SyntheticJobTruth truth = syntheticJobTruth(options);
    // Per-host offsets: ranks of one host share one, the hosts differ.
    EXPECT_EQ(truth.clockOffsetsNs[0], truth.clockOffsetsNs[7]);
    EXPECT_NE(truth.clockOffsetsNs[7], truth.clockOffsetsNs[8]);
    for (std::int64_t offset : truth.clockOffsetsNs) {
        EXPECT_LE(std::abs(offset), options.clockSkewNsMax);
    }
    // Every rank's trace starts at the same job time; its own clock is shifted by its offset.
    for (const core::TraceModel& m : job) {
        EXPECT_EQ(m.timeSpan().startNs - truth.clockOffsetsNs[static_cast<std::size_t>(m.distributed.rank)],
                  1'000'000);
    }
    const Instances instances = matchCollectives(job, truth);
    ASSERT_EQ(instances.size(), static_cast<std::size_t>(truth.collectivesPerStep * options.steps));
    for (const auto& [key, perRank] : instances) {
        ASSERT_EQ(perRank.size(), 32u);
        TimestampNs firstEnd = perRank.begin()->second.endNs, lastEnd = firstEnd, lastStart = 0;
        for (const auto& [rank, k] : perRank) {
            firstEnd = std::min(firstEnd, k.endNs);
            lastEnd = std::max(lastEnd, k.endNs);
            lastStart = std::max(lastStart, k.startNs);
        }
        EXPECT_LE(lastEnd - firstEnd, 2'000) << "collective " << key.second;
        EXPECT_GT(firstEnd, lastStart) << "a collective ends only after its last participant arrived";
    }
    // Without the offsets the ends would not line up: the skew is really there.
    const auto rank8 = ncclKernels(job[8], 0);
    const auto rank0 = ncclKernels(job[0], 0);
    EXPECT_NEAR(static_cast<double>(rank8[0].endNs - rank0[0].endNs),
                static_cast<double>(truth.clockOffsetsNs[8] - truth.clockOffsetsNs[0]), 2'000);
}

struct LateCase {
    LateCause cause;
    int tp;
};

class SyntheticLateRank : public testing::TestWithParam<LateCase> {};

TEST_P(SyntheticLateRank, ArrivesLateByTheAskedAmountWithItsCauseInItsOwnTrace) {
    SyntheticJobOptions options;
    options.ranks = 8;
    options.lateRank = 5;
    options.cause = GetParam().cause;
    options.tensorParallelSize = GetParam().tp;
    const auto job = makeSyntheticJob(options);
    const SyntheticJobTruth truth = syntheticJobTruth(options);
    ASSERT_GT(truth.lateByNs, truth.nominalStepNs / 10);
    ASSERT_LT(truth.lateByNs, truth.nominalStepNs / 5);
    const Instances instances = matchCollectives(job, truth);

    // Lateness of rank 5 at each collective of its data-parallel group, after the median arrival.
    std::vector<double> lateness;
    int timesLast = 0;  // collectives it arrives last at
    for (const auto& [key, perRank] : instances) {
        if (!perRank.count(5) || perRank.size() < 2) {
            continue;
        }
        std::vector<TimestampNs> starts;
        TimestampNs lastStart = 0;
        for (const auto& [rank, k] : perRank) {
            starts.push_back(k.startNs);
            lastStart = std::max(lastStart, k.startNs);
        }
        timesLast += perRank.at(5).startNs == lastStart ? 1 : 0;
        lateness.push_back(static_cast<double>(perRank.at(5).startNs - median(starts)));
    }
    ASSERT_FALSE(lateness.empty());
    const double lateBy = static_cast<double>(truth.lateByNs);
    const double worst = *std::max_element(lateness.begin(), lateness.end());
    EXPECT_NEAR(worst, lateBy, 0.1 * lateBy);
    // With data parallelism only, it is late at both gradient buckets of a step (the blocking second
    // one re-synchronises the ranks, so the step's last, small all-reduce is on time).
    const auto timesLate =
        std::count_if(lateness.begin(), lateness.end(), [&](double l) { return l > 0.4 * lateBy; });
    if (options.cause == LateCause::BeforeWindow) {
        EXPECT_NEAR(lateness.front(), lateBy, 0.05 * lateBy) << "late at its first collective";
        EXPECT_EQ(timesLate, 2) << "and only in the first step";
    } else if (options.tensorParallelSize == 1) {
        EXPECT_EQ(timesLate, 2 * options.steps);
        EXPECT_GE(timesLast, 2 * options.steps);
    }

    // The cause is visible in the late rank's own trace, compared with a balanced rank.
    const core::TraceModel& lateModel = job[5];
    const core::TraceModel& peer = job[options.tensorParallelSize > 1 ? 0 : 4];
    auto rangeTotal = [](const core::TraceModel& m, std::string_view prefix) {
        core::DurationNs total = 0;
        for (std::size_t i = 0; i < m.ranges.size(); ++i) {
            total +=
                m.text(m.ranges.name[i]).rfind(prefix, 0) == 0 ? m.ranges.endNs[i] - m.ranges.startNs[i] : 0;
        }
        return total;
    };
    auto pythonFrames = [](const core::TraceModel& m) {
        return std::count(m.cpuOps.category.begin(), m.cpuOps.category.end(),
                          core::CpuOpCategory::PythonFunction);
    };
    auto computeNs = [](const core::TraceModel& m) {
        core::DurationNs total = 0;
        for (std::size_t k = 0; k < m.kernels.size(); ++k) {
            total += m.kernels.streamId[k] == 7 ? m.kernels.durationNs(k) : 0;
        }
        return total;
    };
    const double steps = options.steps;
    switch (options.cause) {
        case LateCause::DataWait:
            EXPECT_NEAR(static_cast<double>(rangeTotal(lateModel, "enumerate(DataLoader)") -
                                            rangeTotal(peer, "enumerate(DataLoader)")),
                        lateBy * steps, 0.05 * lateBy * steps);
            break;
        case LateCause::HostPython:
            EXPECT_GT(pythonFrames(lateModel), 0);
            EXPECT_EQ(pythonFrames(peer), 0);
            break;
        case LateCause::LongerKernels:
            EXPECT_EQ(lateModel.kernels.size(), peer.kernels.size());
            EXPECT_NEAR(static_cast<double>(computeNs(lateModel) - computeNs(peer)), lateBy * steps,
                        0.05 * lateBy * steps);
            break;
        case LateCause::ExtraKernels:
            EXPECT_GT(lateModel.kernels.size(), peer.kernels.size());
            EXPECT_NEAR(static_cast<double>(computeNs(lateModel) - computeNs(peer)), lateBy * steps,
                        0.05 * lateBy * steps);
            break;
        case LateCause::BeforeWindow: {
            // Its window opens just before its first (late) collective, after its data wait.
            const TimestampNs lateStart = lateModel.timeSpan().startNs - truth.clockOffsetsNs[5];
            const TimestampNs peerStart = peer.timeSpan().startNs - truth.clockOffsetsNs[4];
            const auto firstNccl = ncclKernels(lateModel, truth.clockOffsetsNs[5]).front();
            EXPECT_GT(lateStart - peerStart, truth.lateByNs);
            EXPECT_GE(firstNccl.startNs - lateStart, 0);
            EXPECT_LE(firstNccl.startNs - lateStart, 200'000);
            EXPECT_LT(rangeTotal(lateModel, "ProfilerStep#"), rangeTotal(peer, "ProfilerStep#") * 4 / 5)
                << "its first step is cut off";
            break;
        }
        case LateCause::None:
            break;
    }
}

INSTANTIATE_TEST_SUITE_P(Causes, SyntheticLateRank,
                         testing::Values(LateCase{LateCause::DataWait, 1}, LateCase{LateCause::HostPython, 1},
                                         LateCase{LateCause::LongerKernels, 1},
                                         LateCase{LateCause::ExtraKernels, 1},
                                         LateCase{LateCause::BeforeWindow, 1},
                                         LateCase{LateCause::DataWait, 2},
                                         LateCase{LateCause::ExtraKernels, 4}),
                         [](const testing::TestParamInfo<LateCase>& p) {
                             std::string name(lateCauseName(p.param.cause));
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name + "_tp" + std::to_string(p.param.tp);
                         });

TEST(SyntheticJob, BalancedRanksArriveWithinNoise) {
    SyntheticJobOptions options;
    options.ranks = 64;
    const auto job = makeSyntheticJob(options);
    const SyntheticJobTruth truth = syntheticJobTruth(options);
    for (const auto& [key, perRank] : matchCollectives(job, truth)) {
        std::vector<TimestampNs> starts;
        for (const auto& [rank, k] : perRank) {
            starts.push_back(k.startNs);
        }
        const TimestampNs spread = *std::max_element(starts.begin(), starts.end()) - median(starts);
        EXPECT_LT(spread, truth.nominalStepNs / 100) << "collective " << key.second;
    }
}

TEST(SyntheticJob, TensorParallelGroupsReduceAmongThemselvesAndDataParallelAcross) {
    SyntheticJobOptions options;
    options.ranks = 16;
    options.tensorParallelSize = 4;
    options.ranksPerHost = 8;
    options.clockSkewNsMax = 300'000;
    const auto job = makeSyntheticJob(options);
    const SyntheticJobTruth truth = syntheticJobTruth(options);
    std::map<std::string, std::set<int>> members;
    std::map<std::string, std::string> recordedRanks;
    for (const core::TraceModel& m : job) {
        for (const auto& c : m.collectiveCalls) {
            members[std::string(m.text(c.processGroupName))].insert(m.distributed.rank);
            recordedRanks[std::string(m.text(c.processGroupName))] = std::string(m.text(c.processGroupRanks));
        }
    }
    for (const core::TraceModel& m : job) {
        EXPECT_EQ(m.collectiveCalls.size(),
                  static_cast<std::size_t>(truth.collectivesPerStep * options.steps));
    }
    // World "0", TP groups "1".."4" of consecutive ranks, DP groups "5".."8" of equal TP index.
    ASSERT_EQ(members.size(), 9u);
    EXPECT_EQ(members["0"].size(), 16u);
    EXPECT_EQ(members["2"], (std::set<int>{4, 5, 6, 7}));
    EXPECT_EQ(recordedRanks["2"], "[4, 5, 6, 7]");
    EXPECT_EQ(members["6"], (std::set<int>{1, 5, 9, 13}));
    EXPECT_EQ(recordedRanks["6"], "[1, 5, 9, 13]");
    for (const auto& [key, perRank] : matchCollectives(job, truth)) {
        EXPECT_EQ(perRank.size(), key.first == "0" ? 16u : 4u) << "group " << key.first;
        TimestampNs firstEnd = perRank.begin()->second.endNs, lastEnd = firstEnd;
        for (const auto& [rank, k] : perRank) {
            firstEnd = std::min(firstEnd, k.endNs);
            lastEnd = std::max(lastEnd, k.endNs);
        }
        EXPECT_LE(lastEnd - firstEnd, 2'000) << "group " << key.first << " call " << key.second;
    }
}

// Compute kernels that start while one of the rank's NCCL kernels runs.
int computeDuringCollectives(const core::TraceModel& m) {
    int count = 0;
    for (std::size_t c = 0; c < m.kernels.size(); ++c) {
        if (!isNccl(m, c)) {
            continue;
        }
        for (std::size_t k = 0; k < m.kernels.size(); ++k) {
            count += !isNccl(m, k) && m.kernels.startNs[k] >= m.kernels.startNs[c] &&
                             m.kernels.startNs[k] < m.kernels.endNs[c]
                         ? 1
                         : 0;
        }
    }
    return count;
}

TEST(SyntheticJob, TheFirstGradientBucketOverlapsBackwardUnlessAskedNotTo) {
    SyntheticJobOptions options;
    options.ranks = 8;
    options.lateRank = 1;
    options.cause = LateCause::DataWait;
    const auto overlapped = makeSyntheticJob(options);
    options.overlapFirstBucket = false;
    const auto blocking = makeSyntheticJob(options);
    for (int r : {0, 1}) {
        EXPECT_GT(computeDuringCollectives(overlapped[static_cast<std::size_t>(r)]), 0) << "rank " << r;
        EXPECT_EQ(computeDuringCollectives(blocking[static_cast<std::size_t>(r)]), 0) << "rank " << r;
    }
}

TEST(SyntheticJob, MissingRanksAreLeftOutAndOneRankCanMissTheLastCollective) {
    SyntheticJobOptions options;
    options.ranks = 8;
    options.missingRanks = {3, 5};
    options.unevenCollectives = true;
    options.lateRank = 2;
    options.cause = LateCause::DataWait;
    const auto job = makeSyntheticJob(options);
    const SyntheticJobTruth truth = syntheticJobTruth(options);
    ASSERT_EQ(job.size(), 6u);
    EXPECT_EQ(truth.unevenRank, 4) << "the next written rank after the late one";
    for (const core::TraceModel& m : job) {
        EXPECT_NE(m.distributed.rank, 3);
        EXPECT_NE(m.distributed.rank, 5);
        const std::size_t expected = static_cast<std::size_t>(truth.collectivesPerStep * options.steps) -
                                     (m.distributed.rank == truth.unevenRank ? 1 : 0);
        EXPECT_EQ(m.collectiveCalls.size(), expected) << "rank " << m.distributed.rank;
    }
}

TEST(SyntheticJob, RejectsOptionsItCannotBuild) {
    SyntheticJobOptions options;
    options.tensorParallelSize = 3;
    EXPECT_FALSE(validate(options).ok());
    options = {};
    options.lateRank = 8;
    options.cause = LateCause::DataWait;
    EXPECT_FALSE(validate(options).ok());
    options.lateRank = 2;
    options.cause = LateCause::None;
    EXPECT_FALSE(validate(options).ok());
    EXPECT_EQ(parseLateCause("longer-kernels"), LateCause::LongerKernels);
    EXPECT_FALSE(parseLateCause("slow").has_value());
}

TEST(SyntheticJob, FilesRoundTripThroughTheTraceLoader) {
    SyntheticJobOptions options;
    options.ranks = 8;
    options.lateRank = 2;
    options.cause = LateCause::HostPython;
    const auto job = makeSyntheticJob(options);
    const std::string folder = testing::TempDir() + "synthetic-job-roundtrip";
    std::filesystem::remove_all(folder);
    ASSERT_TRUE(writeSyntheticJob(job, folder).ok());
    for (const core::TraceModel& m : job) {
        const std::string path = folder + "/rank-" + std::to_string(m.distributed.rank) + ".cptrace";
        core::Result<core::TraceModel> back = core::loadTrace(path);
        ASSERT_TRUE(back.ok()) << back.error().message;
        EXPECT_EQ(back->distributed.rank, m.distributed.rank);
        EXPECT_EQ(back->distributed.worldSize, 8);
        EXPECT_EQ(back->distributed.backend, "nccl");
        EXPECT_EQ(back->metadata.hostName, m.metadata.hostName);
        EXPECT_EQ(back->kernels.size(), m.kernels.size());
        EXPECT_EQ(back->kernels.startNs, m.kernels.startNs);
        EXPECT_EQ(back->kernels.endNs, m.kernels.endNs);
        EXPECT_EQ(back->cpuOps.size(), m.cpuOps.size());
        EXPECT_EQ(back->ranges.size(), m.ranges.size());
    }
    std::filesystem::remove_all(folder);
}

// The job analysis groups collectives by the recorded process group, so the parameters must survive
// the file format. Skipped (with the reason) while .cptrace does not store them.
TEST(SyntheticJob, CollectiveParametersSurviveTheRoundTrip) {
    SyntheticJobOptions options;
    options.ranks = 8;
    options.tensorParallelSize = 2;
    const auto job = makeSyntheticJob(options);
    const std::string folder = testing::TempDir() + "synthetic-job-collectives";
    std::filesystem::remove_all(folder);
    ASSERT_TRUE(writeSyntheticJob(job, folder).ok());
    core::Result<core::TraceModel> back = core::loadTrace(folder + "/rank-3.cptrace");
    std::filesystem::remove_all(folder);
    ASSERT_TRUE(back.ok()) << back.error().message;
    const core::TraceModel& m = job[3];
    if (back->collectiveCalls.empty()) {
        GTEST_SKIP() << ".cptrace does not store collective parameters (model.collectiveCalls) yet";
    }
    ASSERT_EQ(back->collectiveCalls.size(), m.collectiveCalls.size());
    for (std::size_t i = 0; i < m.collectiveCalls.size(); ++i) {
        const auto& a = m.collectiveCalls[i];
        const auto& b = back->collectiveCalls[i];
        EXPECT_EQ(a.correlationId, b.correlationId);
        EXPECT_EQ(m.text(a.collectiveName), back->text(b.collectiveName));
        EXPECT_EQ(m.text(a.processGroupName), back->text(b.processGroupName));
        EXPECT_EQ(m.text(a.processGroupRanks), back->text(b.processGroupRanks));
        EXPECT_EQ(a.inNelems, b.inNelems);
        EXPECT_EQ(a.outNelems, b.outNelems);
        EXPECT_EQ(a.groupSize, b.groupSize);
    }
}

// Kineto JSON, as torch.profiler writes it per rank, keeps the collective args through the importer.
TEST(SyntheticJob, KinetoFilesKeepTheCollectiveArgs) {
    SyntheticJobOptions options;
    options.ranks = 8;
    options.tensorParallelSize = 2;
    options.lateRank = 3;
    options.cause = LateCause::HostPython;
    const auto job = makeSyntheticJob(options);
    const std::string folder = testing::TempDir() + "synthetic-job-kineto";
    std::filesystem::remove_all(folder);
    ASSERT_TRUE(writeSyntheticJob(job, folder, SyntheticJobFormat::KinetoJson).ok());
    core::Result<core::TraceModel> back = core::loadTrace(folder + "/rank-3.pt.trace.json");
    std::filesystem::remove_all(folder);
    ASSERT_TRUE(back.ok()) << back.error().message;
    const core::TraceModel& m = job[3];
    EXPECT_EQ(back->distributed.rank, 3);
    EXPECT_EQ(back->distributed.worldSize, 8);
    EXPECT_EQ(back->distributed.backend, "nccl");
    EXPECT_EQ(back->kernels.size(), m.kernels.size());
    EXPECT_EQ(back->kernels.startNs, m.kernels.startNs);
    EXPECT_EQ(back->kernels.endNs, m.kernels.endNs);
    EXPECT_EQ(back->cpuOps.size(), m.cpuOps.size());
    EXPECT_EQ(back->ranges.size(), m.ranges.size());
    EXPECT_EQ(back->memcpys.size(), m.memcpys.size());
    EXPECT_EQ(
        std::count(back->cpuOps.category.begin(), back->cpuOps.category.end(),
                   core::CpuOpCategory::PythonFunction),
        std::count(m.cpuOps.category.begin(), m.cpuOps.category.end(), core::CpuOpCategory::PythonFunction));
    EXPECT_EQ(back->stats.count("correlation.gpu_event_without_launch_call"), 0);
    ASSERT_EQ(back->collectiveCalls.size(), m.collectiveCalls.size());
    std::map<std::int64_t, const core::CollectiveCallRow*> original;
    for (const auto& c : m.collectiveCalls) {
        original[c.correlationId] = &c;
    }
    for (const auto& b : back->collectiveCalls) {
        ASSERT_TRUE(original.count(b.correlationId)) << b.correlationId;
        const core::CollectiveCallRow& a = *original[b.correlationId];
        EXPECT_EQ(m.text(a.collectiveName), back->text(b.collectiveName));
        EXPECT_EQ(m.text(a.processGroupName), back->text(b.processGroupName));
        EXPECT_EQ(m.text(a.processGroupRanks), back->text(b.processGroupRanks));
        EXPECT_EQ(m.text(a.dtype), back->text(b.dtype));
        EXPECT_EQ(a.inNelems, b.inNelems);
        EXPECT_EQ(a.outNelems, b.outNelems);
        EXPECT_EQ(a.groupSize, b.groupSize);
    }
}

TEST(SyntheticJob, AThousandRanksBuildInSeconds) {
    SyntheticJobOptions options;
    options.ranks = 1024;
    options.lateRank = 700;
    options.cause = LateCause::DataWait;
    const auto started = std::chrono::steady_clock::now();
    const auto job = makeSyntheticJob(options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ASSERT_EQ(job.size(), 1024u);
    EXPECT_LT(seconds, 20.0) << "generous bound for a loaded 2-core machine; typically a few seconds";
    std::size_t kernels = 0;
    for (const auto& m : job) {
        kernels += m.kernels.size();
    }
    EXPECT_LT(kernels / 1024 / options.steps, 60u) << "about 50 kernels per rank per step";
    const core::TraceModel& last = job.back();
    EXPECT_EQ(last.metadata.hostName, "node127");
    EXPECT_EQ(last.text(last.collectiveCalls.front().processGroupRanks).substr(0, 7), "[0, 1, ");
    EXPECT_EQ(last.collectiveCalls.front().groupSize, 1024);
    RecordProperty("build_seconds", std::to_string(seconds));
}

}  // namespace
}  // namespace chokepoint::samples

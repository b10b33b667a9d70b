#pragma once
// Builds RankSummary values of a job directly (no traces): N ranks run S steps of C collectives;
// before each collective every rank does `workNs` of GPU work (plus jitter), the late rank more of
// one kind; each collective ends at the same instant on every member (last arrival + transfer).
// Each rank's clock is shifted by its offset afterwards. For the job analysis tests.

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/job/RankSummary.h"

namespace chokepoint::testjob {

struct JobShape {
    int ranks = 8;
    int steps = 4;
    int collectivesPerStep = 3;
    core::DurationNs workNs = 20'000'000;     // before each collective
    core::DurationNs transferNs = 2'000'000;  // of each collective
    core::DurationNs jitterNs = 20'000;       // uniform 0..jitter added to each arrival
    int ranksPerHost = 8;
    std::vector<core::DurationNs> hostOffsetsNs;  // per host; empty: none
    int lateRank = -1;
    job::WorkKind lateKind = job::WorkKind::DataWait;
    core::DurationNs lateNs = 0;    // extra work of lateKind before the first collective of each step
    int extraKernels = 0;           // with GpuKernels: kernels added on the late rank
    bool lateBeforeWindow = false;  // the late rank's trace starts at its first (late) arrival
    std::int64_t sizeBytes = 256 << 20;
    std::string kind = "AllReduce";
    std::uint64_t seed = 1;
};

inline std::vector<std::shared_ptr<const job::RankSummary>> makeSummaries(const JobShape& shape) {
    std::mt19937_64 random(shape.seed);
    std::uniform_int_distribution<core::DurationNs> jitter(0, shape.jitterNs);
    std::vector<job::RankSummary> ranks(static_cast<std::size_t>(shape.ranks));
    for (int r = 0; r < shape.ranks; ++r) {
        job::RankSummary& s = ranks[static_cast<std::size_t>(r)];
        s.rank = r;
        s.rankSource = job::RankSource::DistributedInfo;
        s.worldSize = shape.ranks;
        s.hostName = "node" + std::to_string(r / shape.ranksPerHost);
        s.sourcePath = "rank-" + std::to_string(r) + ".json";
        s.deviceName = "NVIDIA H100 80GB HBM3";
        s.linkBytesPerSecond = 450e9;
        s.verdict = "communication-bound";
        s.window.startNs = 0;
    }
    core::TimestampNs previousEnd = 0;
    for (int step = 0; step < shape.steps; ++step) {
        const core::TimestampNs stepStart = previousEnd;
        for (int c = 0; c < shape.collectivesPerStep; ++c) {
            std::vector<core::TimestampNs> arrivals(ranks.size());
            for (std::size_t r = 0; r < ranks.size(); ++r) {
                core::DurationNs work = shape.workNs + jitter(random);
                if (static_cast<int>(r) == shape.lateRank && c == 0) {
                    work += shape.lateNs;
                }
                arrivals[r] = previousEnd + work;
            }
            core::TimestampNs last = 0;
            for (core::TimestampNs a : arrivals) {
                last = std::max(last, a);
            }
            const core::TimestampNs end = last + shape.transferNs;
            for (std::size_t r = 0; r < ranks.size(); ++r) {
                job::RankCollective call;
                call.kind = shape.kind;
                call.groupSize = shape.ranks;
                call.sizeBytes = shape.sizeBytes;
                call.dtype = "BFloat16";
                call.startNs = arrivals[r];
                call.endNs = end;
                call.stepNumber = 100 + step;
                call.before.segmentStartNs = previousEnd;
                call.before.startsAtWindowStart = step == 0 && c == 0;
                call.before.ns[static_cast<std::size_t>(job::WorkKind::GpuKernels)] = shape.workNs;
                call.before.kernelCount = 40;
                if (static_cast<int>(r) == shape.lateRank && c == 0) {
                    call.before.ns[static_cast<std::size_t>(shape.lateKind)] += shape.lateNs;
                    if (shape.lateKind == job::WorkKind::GpuKernels) {
                        call.before.kernelCount += shape.extraKernels;
                    }
                    if (shape.lateKind == job::WorkKind::HostWork) {
                        call.before.topHostFrames.push_back({"train.py(88): compute_metrics", shape.lateNs});
                    }
                }
                ranks[r].collectives.push_back(call);
            }
            previousEnd = end;
        }
        for (job::RankSummary& s : ranks) {
            job::RankStep rs;
            rs.number = 100 + step;
            rs.name = "ProfilerStep#" + std::to_string(100 + step);
            rs.range = {stepStart, previousEnd};
            rs.collectiveNs = shape.transferNs * shape.collectivesPerStep;
            s.steps.push_back(rs);
        }
    }
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        job::RankSummary& s = ranks[r];
        s.window.endNs = previousEnd;
        if (static_cast<int>(r) == shape.lateRank && shape.lateBeforeWindow) {
            // Its profiler started late: the trace begins just before its first arrival.
            job::RankCollective& first = s.collectives.front();
            s.window.startNs = first.startNs - 1'000;
            first.before.segmentStartNs = s.window.startNs;
            first.before.ns = {};
            first.before.ns[static_cast<std::size_t>(job::WorkKind::GpuKernels)] = 1'000;
        }
        const std::size_t host = r / static_cast<std::size_t>(shape.ranksPerHost);
        const core::DurationNs offset = host < shape.hostOffsetsNs.size() ? shape.hostOffsetsNs[host] : 0;
        s.window.startNs += offset;
        s.window.endNs += offset;
        for (job::RankCollective& c : s.collectives) {
            c.startNs += offset;
            c.endNs += offset;
            c.before.segmentStartNs += offset;
        }
        for (job::RankStep& step : s.steps) {
            step.range.startNs += offset;
            step.range.endNs += offset;
        }
    }
    std::vector<std::shared_ptr<const job::RankSummary>> out;
    for (job::RankSummary& s : ranks) {
        out.push_back(std::make_shared<const job::RankSummary>(std::move(s)));
    }
    return out;
}

}  // namespace chokepoint::testjob

#pragma once
// JobReport fixtures for the job window tests: a job of N ranks with one AllReduce per step, each
// rank on its own clock (a fixed offset per rank), one straggler that reaches every collective
// late because it waits longer for its input data, and ranks that are part of the job but were
// not loaded. The figures are consistent with each other (arrivals, waits, skews, per-step
// figures and the rank summaries they come from), so the tests can check what the widgets show
// against the report.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/job/JobReport.h"

namespace chokepoint::testutils {

struct JobFixtureSpec {
    int worldSize = 8;
    int steps = 6;
    int straggler = 5;                        // -1: none
    std::vector<int> missing;                 // ranks of the job that were not loaded
    core::DurationNs stepNs = 100'000'000;    // 100 ms
    core::DurationNs lateNs = 12'000'000;     // the straggler's extra data wait per step
    core::DurationNs computeNs = 60'000'000;  // work before the step's all-reduce
    core::DurationNs transferNs = 20'000'000;
    std::string pathPrefix = "/nonexistent/job/rank-";
    std::string pathSuffix = ".json.gz";
};

inline core::DurationNs rankClockOffset(int rank) {
    return 1'000'000'000LL + rank * 37'000;  // each rank's clock starts elsewhere
}

inline std::shared_ptr<job::JobReport> makeJobReport(const JobFixtureSpec& spec) {
    auto report = std::make_shared<job::JobReport>();
    job::JobReport& r = *report;
    r.worldSize = spec.worldSize;
    r.rankIdentityNote = "ranks from file names";
    std::vector<int> loaded;
    for (int rank = 0; rank < spec.worldSize; ++rank) {
        if (std::find(spec.missing.begin(), spec.missing.end(), rank) == spec.missing.end()) {
            loaded.push_back(rank);
        } else {
            r.missingRanks.push_back(rank);
        }
    }
    const int n = static_cast<int>(loaded.size());
    auto late = [&](int rank) { return rank == spec.straggler ? spec.lateNs : 0; };
    // Step s on the job clock: [s * stepNs, ...); everybody leaves the all-reduce together.
    for (int i = 0; i < n; ++i) {
        const int rank = loaded[static_cast<std::size_t>(i)];
        const core::DurationNs offset = rankClockOffset(rank);
        auto summary = std::make_shared<job::RankSummary>();
        summary->rank = rank;
        summary->rankSource = job::RankSource::FileName;
        summary->worldSize = spec.worldSize;
        summary->backend = "nccl";
        summary->sourcePath = spec.pathPrefix + std::to_string(rank) + spec.pathSuffix;
        summary->hostName = "node" + std::to_string(rank / 8);
        summary->deviceIndex = static_cast<std::int16_t>(rank % 8);
        summary->deviceName = "NVIDIA H100 80GB HBM3";
        summary->linkBytesPerSecond = 450e9;
        summary->window = {offset, offset + spec.steps * spec.stepNs};
        summary->stepSource = "ProfilerStep#N ranges";
        for (int s = 0; s < spec.steps; ++s) {
            const core::TimestampNs stepStart = offset + s * spec.stepNs;
            job::RankStep step;
            step.number = 100 + s;
            step.name = "ProfilerStep#" + std::to_string(step.number);
            step.range = {stepStart, stepStart + spec.stepNs};
            step.collectiveNs = spec.transferNs + (spec.lateNs - late(rank));
            step.busyNs = spec.computeNs + step.collectiveNs;
            step.workNs[static_cast<std::size_t>(job::WorkKind::GpuKernels)] = spec.computeNs;
            step.workNs[static_cast<std::size_t>(job::WorkKind::DataWait)] = 2'000'000 + late(rank);
            step.workNs[static_cast<std::size_t>(job::WorkKind::HostWork)] = 1'000'000 + rank * 10'000;
            summary->steps.push_back(step);
            for (std::size_t k = 0; k < job::kWorkKindCount; ++k) {
                summary->workNs[k] += step.workNs[k];
            }
            job::RankCollective c;
            c.kind = "AllReduce";
            c.groupKey = "pg 0";
            c.groupSize = spec.worldSize;
            c.sizeBytes = 64LL << 20;
            c.dtype = "bf16";
            c.startNs = stepStart + spec.computeNs + late(rank);
            c.endNs = stepStart + spec.computeNs + spec.lateNs + spec.transferNs;
            c.stepNumber = step.number;
            c.before.segmentStartNs = stepStart;
            c.before.startsAtWindowStart = s == 0;
            c.before.ns = step.workNs;
            c.before.kernelCount = 40;
            c.before.topHostFrames = {{"DataLoader.__next__", 2'000'000 + late(rank)}};
            summary->collectives.push_back(c);
        }
        summary->busyFraction = 0.8;
        summary->verdict = "communication-bound";
        summary->headline = "Communication-bound";
        job::JobRank jr;
        jr.summary = summary;
        jr.clockOffsetNs = offset;
        jr.clockMatches = spec.steps;
        jr.meanStepNs = spec.stepNs - (rank == spec.straggler ? 0 : 1'000 * (rank % 3));
        jr.medianStepNs = jr.meanStepNs;
        jr.collectiveWaitNs = spec.steps * (spec.lateNs - late(rank));
        jr.collectiveTransferNs = spec.steps * spec.transferNs;
        jr.lateNs = spec.steps * late(rank);
        jr.timesLast = rank == spec.straggler ? spec.steps : 0;
        r.ranks.push_back(jr);
    }
    {
        // As analyzeJob sets it: the rank whose mean step is the median (lower middle).
        std::vector<std::pair<core::DurationNs, std::int32_t>> steps;
        for (const job::JobRank& jr : r.ranks) {
            steps.emplace_back(jr.meanStepNs, jr.summary->rank);
        }
        if (!steps.empty()) {
            const std::size_t middle = (steps.size() - 1) / 2;
            std::nth_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(middle), steps.end());
            r.medianRank = steps[middle].second;
        }
    }
    r.clock.estimated = true;
    r.clock.note = "offsets from " + std::to_string(spec.steps) + " matched collectives per rank";
    for (int s = 0; s < spec.steps; ++s) {
        job::CollectiveInstance ci;
        ci.kind = "AllReduce";
        ci.groupKey = "pg 0";
        ci.sequence = s;
        ci.sizeBytes = 64LL << 20;
        ci.groupSize = spec.worldSize;
        ci.stepNumber = 100 + s;
        ci.complete = r.missingRanks.empty();
        const core::TimestampNs base = s * spec.stepNs + spec.computeNs;
        for (int rank : loaded) {
            job::CollectiveArrival a;
            a.rank = rank;
            a.startNs = base + late(rank);
            a.endNs = base + spec.lateNs + spec.transferNs;
            a.waitNs = spec.straggler >= 0 ? spec.lateNs - late(rank) : 0;
            a.collectiveIndex = s;  // each rank's summary holds one collective per step
            ci.arrivals.push_back(a);
        }
        ci.skewNs = spec.straggler >= 0 ? spec.lateNs : 0;
        ci.transferNs = spec.transferNs;
        ci.lastRank = spec.straggler >= 0 ? spec.straggler : loaded.back();
        ci.lastLateNs = ci.skewNs;
        ci.algBytesPerSecond =
            static_cast<double>(ci.sizeBytes) / (static_cast<double>(spec.transferNs) * 1e-9);
        ci.busBytesPerSecond = ci.algBytesPerSecond * 2.0 * (spec.worldSize - 1) / spec.worldSize;
        r.collectives.push_back(ci);

        job::JobStep js;
        js.number = 100 + s;
        for (int i = 0; i < n; ++i) {
            const int rank = loaded[static_cast<std::size_t>(i)];
            js.rankStepNs.push_back(spec.stepNs + (rank == spec.straggler ? 0 : -1'000 * (rank % 3)));
            js.rankWaitNs.push_back(spec.straggler >= 0 ? spec.lateNs - late(rank) : 0);
        }
        js.lastRank = ci.lastRank;
        js.lastLateNs = ci.lastLateNs;
        r.steps.push_back(js);
    }
    job::CollectiveStats stats;
    stats.kind = "AllReduce";
    stats.sizeBytes = 64LL << 20;
    stats.groupSize = spec.worldSize;
    stats.count = spec.steps;
    stats.totalTransferNs = spec.steps * spec.transferNs;
    stats.totalWaitNs =
        spec.steps * (n - (spec.straggler >= 0 ? 1 : 0)) * (spec.straggler >= 0 ? spec.lateNs : 0);
    stats.p50SkewNs = r.collectives.front().skewNs;
    stats.p95SkewNs = r.collectives.front().skewNs;
    stats.busBytesPerSecond = r.collectives.front().busBytesPerSecond;
    stats.linkBytesPerSecond = 450e9;
    r.collectiveStats.push_back(stats);
    job::CollectiveStats small = stats;
    small.kind = "AllGather";
    small.sizeBytes = 1 << 20;
    small.count = 3 * spec.steps;
    small.totalWaitNs = 1'000'000;
    small.busBytesPerSecond = 12e9;
    r.collectiveStats.push_back(small);
    r.noiseNs = 2'000'000;
    if (spec.straggler >= 0) {
        job::Straggler st;
        st.rank = spec.straggler;
        st.lateNs = spec.steps * spec.lateNs;
        st.latePerStepNs = spec.lateNs;
        st.shareLast = 1.0;
        st.cause = job::StragglerCause::DataWait;
        st.excessNs[static_cast<std::size_t>(job::WorkKind::DataWait)] = spec.lateNs;
        st.topHostFrames = {{"DataLoader.__next__", 2'000'000 + spec.lateNs}};
        st.evidence = {"rank " + std::to_string(spec.straggler) +
                       " waits 14 ms for data per step, the median rank 2 ms"};
        st.whatIfSavingPerStepNs = spec.lateNs;
        const core::TimestampNs lastStep = (spec.steps - 1) * spec.stepNs;
        st.showRange = {lastStep, lastStep + spec.computeNs + spec.lateNs};
        for (int s = 0; s < spec.steps; ++s) {
            st.lateSteps.push_back(100 + s);
        }
        r.stragglers.push_back(st);
        r.verdict.bottleneck = job::JobBottleneck::StragglerWait;
        r.verdict.headline = "Rank " + std::to_string(spec.straggler) + " makes the job wait";
        r.verdict.evidence = {"ranks wait 12 ms per step for rank " + std::to_string(spec.straggler)};
        job::JobFix fix;
        fix.title = "Give rank " + std::to_string(spec.straggler) + "'s input pipeline more workers";
        fix.rank = spec.straggler;
        fix.detail = "Its data wait is 12 ms longer than the median rank's.";
        fix.predictedStepNs = spec.stepNs - spec.lateNs;
        fix.basis = "the what-if estimate";
        r.verdict.fixes.push_back(fix);
    } else {
        r.verdict.bottleneck = job::JobBottleneck::RankBound;
        r.verdict.headline = "Communication is minor: the ranks' own bottleneck decides";
    }
    r.whatIf.measuredStepNs = spec.stepNs;
    r.whatIf.idealStepNs = spec.stepNs - (spec.straggler >= 0 ? spec.lateNs : 0);
    r.whatIf.slowdownPerStepNs = spec.straggler >= 0 ? spec.lateNs : 0;
    r.whatIf.basis = "every rank arrives at every collective with the median";
    for (int rank : r.missingRanks) {
        r.problems.push_back(
            {spec.pathPrefix + std::to_string(rank) + spec.pathSuffix, rank,
             spec.pathPrefix + std::to_string(rank) + spec.pathSuffix + ": truncated gzip stream"});
    }
    return report;
}

}  // namespace chokepoint::testutils

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/base/Format.h"
#include "core/job/JobStages.h"

namespace chokepoint::job::stages {
namespace {

struct Arrival {
    core::TimestampNs startNs = 0;
    std::size_t rank = 0;        // index in report.ranks
    std::size_t collective = 0;  // index in that rank's collectives
};

struct CallTimes {
    std::vector<Arrival> arrivals;
    core::TimestampNs medianStartNs = 0;
    core::TimestampNs lastStartNs = 0;
    std::size_t lastMember = 0;  // index in arrivals
};

CallTimes timesOf(const JobReport& report, const MatchedCall& call) {
    CallTimes t;
    std::vector<core::DurationNs> starts;
    for (auto [r, c] : call.members) {
        const core::TimestampNs start =
            report.ranks[r].summary->collectives[c].startNs - report.ranks[r].clockOffsetNs;
        t.arrivals.push_back({start, r, c});
        starts.push_back(start);
    }
    t.medianStartNs = median(starts);
    t.lastMember = 0;
    for (std::size_t m = 1; m < t.arrivals.size(); ++m) {
        if (t.arrivals[m].startNs > t.arrivals[t.lastMember].startNs) {
            t.lastMember = m;
        }
    }
    t.lastStartNs = t.arrivals[t.lastMember].startNs;
    return t;
}

// Length of the union of [start, end) intervals.
core::DurationNs unionLength(std::vector<core::TimeRange> ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const core::TimeRange& a, const core::TimeRange& b) { return a.startNs < b.startNs; });
    core::DurationNs total = 0;
    core::TimestampNs coveredTo = INT64_MIN;
    for (const core::TimeRange& r : ranges) {
        if (r.empty()) {
            continue;
        }
        const core::TimestampNs from = std::max(r.startNs, coveredTo);
        if (r.endNs > from) {
            total += r.endNs - from;
        }
        coveredTo = std::max(coveredTo, r.endNs);
    }
    return total;
}

std::string frameList(const std::vector<FrameTime>& frames) {
    std::string text;
    for (const FrameTime& f : frames) {
        text += (text.empty() ? "" : ", ") + f.name + " (" + core::formatDuration(f.selfNs) + ")";
    }
    return text;
}

// Explains why rank `r` arrives late from its own segments compared with the median member's.
void explain(Straggler& s, const JobReport& report, const std::vector<MatchedCall>& calls,
             const std::vector<CallTimes>& times, std::size_t r) {
    core::DurationNs lateTotal = 0;
    core::DurationNs lateBeforeWindow = 0;
    core::DurationNs worstLate = -1;
    std::array<core::DurationNs, kWorkKindCount> excess{};
    std::int64_t excessKernels = 0;
    std::int64_t medianKernels = 0;
    std::map<std::string, core::DurationNs> frames;
    std::int32_t lastCount = 0;
    const core::DurationNs offset = report.ranks[r].clockOffsetNs;
    // Lateness carries over: a rank whose compute stream is behind at one collective is still
    // behind at the next (its remaining kernels run after the common end). Only the lateness a
    // segment ADDS is explained by that segment's work: new = late - the rank's lateness at its
    // previous collective. Calls that add less than half their lateness are carried over.
    std::vector<std::pair<core::TimestampNs, std::size_t>> mineInOrder;  // (own start, call)
    std::vector<core::DurationNs> lateOf(calls.size(), 0);
    for (std::size_t i = 0; i < calls.size(); ++i) {
        for (const Arrival& a : times[i].arrivals) {
            if (a.rank == r) {
                mineInOrder.emplace_back(a.startNs, i);
                lateOf[i] = a.startNs - times[i].medianStartNs;
            }
        }
    }
    std::sort(mineInOrder.begin(), mineInOrder.end());
    std::vector<core::DurationNs> newLateOf(calls.size(), 0);
    core::DurationNs previousLate = 0;
    for (const auto& [start, i] : mineInOrder) {
        newLateOf[i] = lateOf[i] - std::max<core::DurationNs>(0, previousLate);
        previousLate = lateOf[i];
    }
    for (std::size_t i = 0; i < calls.size(); ++i) {
        const CallTimes& t = times[i];
        if (t.arrivals[t.lastMember].rank != r) {
            continue;
        }
        ++lastCount;
        const Arrival& mine = t.arrivals[t.lastMember];
        const RankCollective& own = report.ranks[r].summary->collectives[mine.collective];
        const core::DurationNs late = t.lastStartNs - t.medianStartNs;
        if (own.stepNumber >= 0 &&
            std::find(s.lateSteps.begin(), s.lateSteps.end(), own.stepNumber) == s.lateSteps.end()) {
            s.lateSteps.push_back(own.stepNumber);
        }
        if (newLateOf[i] * 2 < late) {
            continue;  // carried over from an earlier segment
        }
        lateTotal += newLateOf[i];
        if (late > worstLate) {
            worstLate = late;
            s.showRange = {own.before.segmentStartNs - offset, own.startNs - offset};
        }
        // The others' segments: per kind, the median.
        std::array<std::vector<core::DurationNs>, kWorkKindCount> others;
        std::vector<core::DurationNs> otherKernels;
        std::vector<core::DurationNs> otherSegmentStarts;
        for (const Arrival& a : t.arrivals) {
            if (a.rank == r) {
                continue;
            }
            const RankCollective& theirs = report.ranks[a.rank].summary->collectives[a.collective];
            for (std::size_t k = 0; k < kWorkKindCount; ++k) {
                others[k].push_back(theirs.before.ns[k]);
            }
            otherKernels.push_back(theirs.before.kernelCount);
            otherSegmentStarts.push_back(theirs.before.segmentStartNs - report.ranks[a.rank].clockOffsetNs);
        }
        for (std::size_t k = 0; k < kWorkKindCount; ++k) {
            excess[k] += own.before.ns[k] - median(others[k]);
        }
        const core::DurationNs kernelMedian = median(otherKernels);
        excessKernels += own.before.kernelCount - kernelMedian;
        medianKernels += kernelMedian;
        for (const FrameTime& f : own.before.topHostFrames) {
            frames[f.name] += f.selfNs;
        }
        // The rank's segment began with its trace, later than the others' segments began: what
        // delayed it happened before its window.
        if (own.before.startsAtWindowStart &&
            own.before.segmentStartNs - offset > median(otherSegmentStarts) + newLateOf[i] / 2) {
            lateBeforeWindow += newLateOf[i];
        }
    }
    s.excessNs = excess;
    s.excessKernelCount = static_cast<std::int32_t>(excessKernels);
    std::vector<FrameTime> sorted;
    for (auto& [name, ns] : frames) {
        sorted.push_back({name, ns});
    }
    std::sort(sorted.begin(), sorted.end(),
              [](const FrameTime& a, const FrameTime& b) { return a.selfNs > b.selfNs; });
    sorted.resize(std::min<std::size_t>(sorted.size(), 3));
    s.topHostFrames = sorted;
    std::sort(s.lateSteps.begin(), s.lateSteps.end());

    const std::size_t instances = calls.size();
    s.evidence.push_back("rank " + std::to_string(s.rank) + " arrives last at " + std::to_string(lastCount) +
                         " of " + std::to_string(instances) + " matched collectives, " +
                         core::formatDuration(s.lateNs) + " after the median rank in total; " +
                         core::formatDuration(lateTotal) +
                         " of it arises in its work before them, the rest carries over to later collectives");
    if (lateBeforeWindow * 2 >= lateTotal && lateTotal > 0) {
        s.cause = StragglerCause::BeforeWindow;
        s.evidence.push_back(
            "its trace begins " + core::formatDuration(lateBeforeWindow) +
            " after the other ranks' work before the same collectives: the delay happened before "
            "its trace window (profile that rank from an earlier step)");
        return;
    }
    std::size_t best = 0;
    for (std::size_t k = 1; k < kWorkKindCount; ++k) {
        if (excess[k] > excess[best]) {
            best = k;
        }
    }
    if (excess[best] * 10 < lateTotal * 3) {
        s.cause = StragglerCause::Unknown;
        s.evidence.push_back(
            "before those collectives its own trace shows no more kernel, data, host, sync or GC time "
            "than the median rank: the delay is not visible in this trace (another process, the "
            "network or the device itself)");
        return;
    }
    const std::string more = core::formatDuration(excess[best]) + " more ";
    switch (static_cast<WorkKind>(best)) {
        case WorkKind::GpuKernels:
            if (excessKernels > std::max<std::int64_t>(1, medianKernels / 20)) {
                s.cause = StragglerCause::MoreKernels;
                s.evidence.push_back(
                    "it runs " + std::to_string(excessKernels) + " more kernels (" + more +
                    "GPU time) than the median rank before those collectives: its share of the work "
                    "is larger (imbalanced batches or sharding)");
            } else {
                s.cause = StragglerCause::LongerKernels;
                s.evidence.push_back(
                    "the same number of kernels take " + more +
                    "GPU time than on the median rank: a slower or throttled GPU, or larger inputs");
            }
            break;
        case WorkKind::DataWait:
            s.cause = StragglerCause::DataWait;
            s.evidence.push_back("its GPU waits " + more + "for input data than the median rank's");
            break;
        case WorkKind::HostWork:
            s.cause = StragglerCause::HostWork;
            s.evidence.push_back(
                "its GPU idles " + more + "while the host runs framework/Python code" +
                (s.topHostFrames.empty() ? std::string() : ": " + frameList(s.topHostFrames)));
            break;
        case WorkKind::Synchronization:
            s.cause = StragglerCause::Synchronization;
            s.evidence.push_back("its host is blocked in device synchronization " + more +
                                 "than the median rank's");
            break;
        case WorkKind::GarbageCollection:
            s.cause = StragglerCause::GarbageCollection;
            s.evidence.push_back("Python garbage collection takes " + more + "than on the median rank");
            break;
        case WorkKind::Unexplained:
            s.cause = StragglerCause::Unknown;
            s.evidence.push_back("its GPU idles " + more +
                                 "with no host activity recorded: the trace does not show why");
            break;
    }
}

}  // namespace

void findStragglers(JobReport& report, const std::vector<MatchedCall>& calls, const JobOptions& options) {
    std::vector<CallTimes> times;
    times.reserve(calls.size());
    for (const MatchedCall& call : calls) {
        times.push_back(timesOf(report, call));
    }

    // Steps across ranks, matched by number.
    std::map<std::int64_t, JobStep> steps;
    for (std::size_t r = 0; r < report.ranks.size(); ++r) {
        for (const RankStep& step : report.ranks[r].summary->steps) {
            JobStep& row = steps[step.number];
            row.number = step.number;
            row.rankStepNs.resize(report.ranks.size(), -1);
            row.rankWaitNs.resize(report.ranks.size(), 0);
            row.rankStepNs[r] = step.range.durationNs();
        }
    }
    std::map<std::int64_t, std::vector<core::DurationNs>> lateInStep;
    for (std::size_t i = 0; i < calls.size(); ++i) {
        auto it = steps.find(calls[i].stepNumber);
        if (it == steps.end()) {
            continue;
        }
        std::vector<core::DurationNs>& late = lateInStep[calls[i].stepNumber];
        late.resize(report.ranks.size(), 0);
        for (const Arrival& a : times[i].arrivals) {
            it->second.rankWaitNs[a.rank] += times[i].lastStartNs - a.startNs;
            late[a.rank] += std::max<core::DurationNs>(0, a.startNs - times[i].medianStartNs);
        }
    }
    for (auto& [number, row] : steps) {
        auto late = lateInStep.find(number);
        if (late != lateInStep.end()) {
            const auto worst = std::max_element(late->second.begin(), late->second.end());
            if (*worst > 0) {
                row.lastRank =
                    report.ranks[static_cast<std::size_t>(worst - late->second.begin())].summary->rank;
                row.lastLateNs = *worst;
            }
        }
        report.steps.push_back(row);
    }

    // The job's step time: the median over ranks of their mean step.
    std::vector<core::DurationNs> meanSteps;
    for (const JobRank& rank : report.ranks) {
        if (rank.meanStepNs > 0) {
            meanSteps.push_back(rank.meanStepNs);
        }
    }
    const core::DurationNs stepNs = median(meanSteps);
    const auto stepCount =
        static_cast<core::DurationNs>(std::max<std::size_t>(1, steps.empty() ? 1 : steps.size()));
    report.noiseNs = std::max(options.minLateNs, static_cast<core::DurationNs>(options.noiseShareOfStep *
                                                                               static_cast<double>(stepNs)));

    // What-if: every rank arrives at every collective with the median. The job waits beyond the
    // median arrival for the union of [median start, last start) over the calls.
    std::vector<core::TimeRange> waits;
    std::unordered_map<std::size_t, std::vector<core::TimeRange>> waitsByLastRank;
    for (const CallTimes& t : times) {
        const core::TimeRange wait{t.medianStartNs, t.lastStartNs};
        waits.push_back(wait);
        waitsByLastRank[t.arrivals[t.lastMember].rank].push_back(wait);
    }
    report.whatIf.measuredStepNs = stepNs;
    report.whatIf.slowdownPerStepNs = unionLength(waits) / stepCount;
    report.whatIf.idealStepNs = std::max<core::DurationNs>(0, stepNs - report.whatIf.slowdownPerStepNs);
    report.whatIf.basis =
        "replays the " + std::to_string(calls.size()) +
        " matched collectives with every rank arriving at each with the median rank: the time the "
        "job waits beyond the median arrival, over " +
        std::to_string(stepCount) + " step(s), without overlaps counted twice";

    // Stragglers: lateness beyond the median rank's, above the noise per step.
    std::vector<core::DurationNs> lateness;
    for (const JobRank& rank : report.ranks) {
        lateness.push_back(rank.lateNs);
    }
    const core::DurationNs typicalLate = median(lateness);
    for (std::size_t r = 0; r < report.ranks.size(); ++r) {
        const JobRank& rank = report.ranks[r];
        const core::DurationNs excessPerStep = (rank.lateNs - typicalLate) / stepCount;
        if (rank.timesLast == 0 || excessPerStep <= report.noiseNs) {
            continue;
        }
        Straggler s;
        s.rank = rank.summary->rank;
        s.lateNs = rank.lateNs;
        s.latePerStepNs = rank.lateNs / stepCount;
        s.shareLast =
            calls.empty() ? 0 : static_cast<double>(rank.timesLast) / static_cast<double>(calls.size());
        explain(s, report, calls, times, r);
        s.whatIfSavingPerStepNs = unionLength(waitsByLastRank[r]) / stepCount;
        report.stragglers.push_back(std::move(s));
    }
    std::sort(report.stragglers.begin(), report.stragglers.end(),
              [](const Straggler& a, const Straggler& b) { return a.lateNs > b.lateNs; });
    // The saving by kind of work: each straggler's saving split over its positive excess.
    for (const Straggler& s : report.stragglers) {
        core::DurationNs positive = 0;
        for (core::DurationNs e : s.excessNs) {
            positive += std::max<core::DurationNs>(0, e);
        }
        if (positive <= 0) {
            continue;
        }
        for (std::size_t k = 0; k < kWorkKindCount; ++k) {
            const double share = static_cast<double>(std::max<core::DurationNs>(0, s.excessNs[k])) /
                                 static_cast<double>(positive);
            report.whatIf.savingByKindPerStepNs[k] +=
                static_cast<core::DurationNs>(share * static_cast<double>(s.whatIfSavingPerStepNs));
        }
    }
}

}  // namespace chokepoint::job::stages

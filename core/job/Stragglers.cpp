#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/base/Format.h"
#include "core/job/JobStages.h"

namespace chokepoint::job::stages {
namespace {

struct Arrival {
    core::TimestampNs startNs = 0;
    std::size_t rank = 0;            // index in report.ranks
    std::size_t collective = 0;      // index in that rank's collectives
    core::DurationNs lateNs = 0;     // start - the call's median start (may be negative)
    core::DurationNs ownLateNs = 0;  // the part of lateNs this rank's own segment caused (>= 0)
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
    t.medianStartNs = lowerMedian(starts);
    t.lastMember = 0;
    for (std::size_t m = 1; m < t.arrivals.size(); ++m) {
        if (t.arrivals[m].startNs > t.arrivals[t.lastMember].startNs) {
            t.lastMember = m;
        }
    }
    t.lastStartNs = t.arrivals[t.lastMember].startNs;
    for (Arrival& a : t.arrivals) {
        a.lateNs = a.startNs - t.medianStartNs;
    }
    return t;
}

// The lateness each rank causes itself at each call, as opposed to lateness it inherits:
// - inherited: its segment began late because the previous collective it took part in ended late
//   (it waited for someone else there: a tensor-parallel peer of a late rank arrives late at the
//   data-parallel collective); subtract how much later its segment began than the median member's;
// - carried: its GPU was still busy with work from before the segment (a gradient bucket that
//   overlaps backward leaves a late rank's remaining backward kernels to run after the bucket
//   ends), so its lateness at the previous call shows up again; subtract up to that lateness, as
//   much as its GPU was busier than the median member's at the segment's start.
// What remains is caused by the work inside the segment, which its own trace explains.
void computeOwnLateness(const JobReport& report, std::vector<CallTimes>& times) {
    struct Visit {
        core::TimestampNs startNs;
        std::size_t call;
        std::size_t member;
    };
    std::vector<std::vector<Visit>> byRank(report.ranks.size());
    std::vector<core::TimestampNs> medianSegmentStart(times.size(), 0);
    std::vector<core::DurationNs> medianBusyAtStart(times.size(), 0);
    for (std::size_t i = 0; i < times.size(); ++i) {
        std::vector<core::DurationNs> starts;
        std::vector<core::DurationNs> busy;
        for (std::size_t m = 0; m < times[i].arrivals.size(); ++m) {
            const Arrival& a = times[i].arrivals[m];
            const RankCollective& c = report.ranks[a.rank].summary->collectives[a.collective];
            starts.push_back(c.before.segmentStartNs - report.ranks[a.rank].clockOffsetNs);
            busy.push_back(c.before.busyAtStartNs);
            byRank[a.rank].push_back({a.startNs, i, m});
        }
        medianSegmentStart[i] = lowerMedian(starts);
        medianBusyAtStart[i] = median(busy);
    }
    for (std::size_t r = 0; r < byRank.size(); ++r) {
        std::sort(byRank[r].begin(), byRank[r].end(),
                  [](const Visit& a, const Visit& b) { return a.startNs < b.startNs; });
        core::DurationNs previousLate = 0;
        for (const Visit& v : byRank[r]) {
            Arrival& a = times[v.call].arrivals[v.member];
            const RankCollective& c = report.ranks[r].summary->collectives[a.collective];
            core::DurationNs inherited = 0;
            if (!c.before.startsAtWindowStart) {
                inherited = std::max<core::DurationNs>(
                    0, c.before.segmentStartNs - report.ranks[r].clockOffsetNs - medianSegmentStart[v.call]);
            }
            const core::DurationNs carried =
                std::min(std::max<core::DurationNs>(0, previousLate),
                         std::max<core::DurationNs>(0, c.before.busyAtStartNs - medianBusyAtStart[v.call]));
            a.ownLateNs = std::max<core::DurationNs>(0, a.lateNs - inherited - carried);
            previousLate = a.lateNs;
        }
    }
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
        if (mine.ownLateNs * 2 < late) {
            continue;  // inherited or carried over from an earlier segment
        }
        lateTotal += mine.ownLateNs;
        if (late > worstLate) {
            worstLate = late;
            s.showRange = {own.before.segmentStartNs - offset, own.endNs - offset};
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
            own.before.segmentStartNs - offset > median(otherSegmentStarts) + mine.ownLateNs / 2) {
            lateBeforeWindow += mine.ownLateNs;
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
    s.evidence.push_back(
        "rank " + std::to_string(s.rank) + " arrives last at " + std::to_string(lastCount) + " of " +
        std::to_string(instances) + " matched collectives, " + core::formatDuration(s.lateNs) +
        " after the median rank in total, caused by its own work (" + core::formatDuration(lateTotal) +
        " of it where it arrives last; lateness inherited from waiting for others or carried over "
        "from an earlier collective is not counted)");
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
    // The excess is summed over the work before every collective it arrives last at, not per step:
    // `diff` of two ranks counts kernels per step, and the two read as a contradiction unsaid.
    const std::string before = "before the " + std::to_string(lastCount) +
                               (lastCount == 1 ? " collective" : " collectives") + " it arrives last at";
    switch (static_cast<WorkKind>(best)) {
        case WorkKind::GpuKernels:
            if (excessKernels > std::max<std::int64_t>(1, medianKernels / 20)) {
                s.cause = StragglerCause::MoreKernels;
                s.evidence.push_back("it runs " + std::to_string(excessKernels) + " more kernels in all (" +
                                     more + "GPU time) than the median rank " + before +
                                     ": its share of the work is larger (imbalanced batches or sharding)");
            } else {
                s.cause = StragglerCause::LongerKernels;
                s.evidence.push_back("the same number of kernels take " + more +
                                     "GPU time in all than on the median rank " + before +
                                     ": a slower or throttled GPU, or larger inputs");
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
    computeOwnLateness(report, times);

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

    // The job's start on the job clock: the earliest rank trace start.
    bool anyRank = false;
    for (const JobRank& rank : report.ranks) {
        const core::TimestampNs start = rank.summary->window.startNs - rank.clockOffsetNs;
        report.startNs = anyRank ? std::min(report.startNs, start) : start;
        anyRank = true;
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

    // What-if: every rank's own work before each collective cut to the median's. The job waits for
    // the last arriver's own lateness at each call: the union of [last start - its own lateness,
    // last start) over the calls. Inherited and carried lateness vanish with their cause.
    std::vector<core::TimeRange> waits;
    // If only the last arriver were on time, the call would start when it or the next latest member
    // arrives, whichever is later: that is all the job gains from that rank alone.
    std::unordered_map<std::size_t, std::vector<core::TimeRange>> waitsByLastRank;
    std::vector<core::DurationNs> ownLate(report.ranks.size(), 0);
    for (const CallTimes& t : times) {
        const Arrival& last = t.arrivals[t.lastMember];
        const core::TimeRange wait{t.lastStartNs - last.ownLateNs, t.lastStartNs};
        waits.push_back(wait);
        core::TimestampNs nextLatest = wait.startNs;
        for (std::size_t m = 0; m < t.arrivals.size(); ++m) {
            if (m != t.lastMember) {
                nextLatest = std::max(nextLatest, t.arrivals[m].startNs);
            }
        }
        waitsByLastRank[last.rank].push_back({std::min(nextLatest, t.lastStartNs), t.lastStartNs});
        for (const Arrival& a : t.arrivals) {
            ownLate[a.rank] += a.ownLateNs;
        }
    }
    report.whatIf.measuredStepNs = stepNs;
    report.whatIf.slowdownPerStepNs = unionLength(waits) / stepCount;
    report.whatIf.idealStepNs = std::max<core::DurationNs>(0, stepNs - report.whatIf.slowdownPerStepNs);
    report.whatIf.basis =
        "if every rank were on time: replays the " + std::to_string(calls.size()) +
        " matched collectives with every rank's own work before each cut to the median rank's: the time "
        "the job waits for the last arriver's own lateness, over " +
        std::to_string(stepCount) +
        " step(s), overlaps counted once; lateness a rank inherits from waiting for others or carries over "
        "from an earlier collective goes with its cause";

    // Stragglers: own lateness beyond the median of the other ranks', above the noise per step. The
    // others, not all ranks: with two ranks the median of both is halfway to the late one, which
    // halved its lateness (15.9 ms late per step read "no rank later than the others by 12.3 ms").
    for (std::size_t r = 0; r < report.ranks.size(); ++r) {
        const JobRank& rank = report.ranks[r];
        std::vector<core::DurationNs> others;
        others.reserve(ownLate.size());
        for (std::size_t o = 0; o < ownLate.size(); ++o) {
            if (o != r) {
                others.push_back(ownLate[o]);
            }
        }
        const core::DurationNs typicalLate = others.empty() ? ownLate[r] : median(std::move(others));
        const core::DurationNs excessPerStep = (ownLate[r] - typicalLate) / stepCount;
        if (rank.timesLast == 0 || excessPerStep <= report.noiseNs) {
            continue;
        }
        Straggler s;
        s.rank = rank.summary->rank;
        s.lateNs = ownLate[r];
        s.latePerStepNs = ownLate[r] / stepCount;
        s.arrivalLatePerStepNs = rank.latePerStepNs();
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

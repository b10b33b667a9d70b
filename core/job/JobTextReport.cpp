#include <algorithm>
#include <cstdio>

#include "core/base/Format.h"
#include "core/job/JobReportWriters.h"

namespace chokepoint::job {
namespace {

// Rows of the per-rank table shown in full up to this many ranks; beyond, the latest ranks only.
constexpr std::size_t kFullRankTable = 32;
constexpr std::size_t kRankRowsWhenLarge = 16;

std::string pad(std::string text, std::size_t width) {
    if (text.size() < width) {
        text.append(width - text.size(), ' ');
    }
    return text;
}

std::string sizeText(std::int64_t bytes) {
    return bytes < 0 ? std::string("?") : core::formatBytes(static_cast<double>(bytes));
}

std::string rankList(const std::vector<std::int32_t>& ranks) {
    std::string text;
    const std::size_t shown = std::min<std::size_t>(ranks.size(), 12);
    for (std::size_t i = 0; i < shown; ++i) {
        text += (i == 0 ? "" : ", ") + std::to_string(ranks[i]);
    }
    if (ranks.size() > shown) {
        text += ", ... (" + std::to_string(ranks.size() - shown) + " more)";
    }
    return text;
}

// "Comms Id + Seq (12 calls)", "order (10 calls), end time (2 calls)".
std::string matchingLine(const CollectiveMatching& m) {
    std::string out;
    const auto add = [&](std::int32_t n, const char* how) {
        if (n > 0) {
            out += (out.empty() ? "" : ", ") + std::string(how) + " (" + std::to_string(n) +
                   (n == 1 ? " call)" : " calls)");
        }
    };
    add(m.byCommsId, "Comms Id + Seq");
    add(m.byOrder, "order");
    add(m.byEnds, "end time");
    return out.empty() ? "none (no collective seen on two ranks)" : out;
}

}  // namespace

std::string writeJobText(const JobReport& r) {
    std::string out;
    out += "JOB  " + std::to_string(r.ranks.size()) + " rank(s) of world size " + std::to_string(r.worldSize);
    if (!r.rankIdentityNote.empty()) {
        out += "; " + r.rankIdentityNote;
    }
    out += "\n";
    if (!r.notOneJob.empty()) {
        out += "  NOT ONE JOB? " + r.notOneJob + "\n";
    }
    if (!r.missingRanks.empty()) {
        out += "  Missing ranks: " + rankList(r.missingRanks) + "\n";
    }
    for (const RankProblem& p : r.problems) {
        out += "  Not loaded: " + p.message + "\n";
    }
    out += "  Clock: " + (r.clock.note.empty() ? std::string("not estimated") : r.clock.note) + "\n";
    out += "  Collectives matched by: " + matchingLine(r.matching) + "\n\n";

    out += "VERDICT  " + std::string(displayName(r.verdict.bottleneck)) + "\n  " + r.verdict.headline + "\n";
    for (const std::string& line : r.verdict.evidence) {
        out += "  - " + line + "\n";
    }
    out += "\n";

    out += "STEP TIME PER RANK\n";
    out += "  " + pad("rank", 6) + pad("host", 14) + pad("mean step", 12) + pad("median", 12) +
           pad("wait/step", 12) + pad("late/step", 12) + pad("last at", 9) + pad("exposed", 9) + "verdict\n";
    std::vector<std::size_t> order(r.ranks.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    if (r.ranks.size() > kFullRankTable) {
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return r.ranks[a].lateNs > r.ranks[b].lateNs; });
        order.resize(kRankRowsWhenLarge);
    }
    for (std::size_t i : order) {
        const JobRank& rank = r.ranks[i];
        const auto steps =
            static_cast<core::DurationNs>(std::max<std::size_t>(1, rank.summary->steps.size()));
        out += "  " + pad(std::to_string(rank.summary->rank), 6) +
               pad(rank.summary->hostName.substr(0, 13), 14) +
               pad(core::formatDuration(rank.meanStepNs), 12) +
               pad(core::formatDuration(rank.medianStepNs), 12) +
               pad(core::formatDuration(rank.collectiveWaitNs / steps), 12) +
               pad(core::formatDuration(rank.latePerStepNs()), 12) + pad(std::to_string(rank.timesLast), 9) +
               pad(core::formatPercent(rank.summary->exposedCommunicationShareOfStep()), 9) +
               rank.summary->verdict + "\n";
        for (const RankDevice& d : rank.summary->devices) {
            out += "  " + pad("", 6) + pad("GPU " + std::to_string(d.deviceIndex), 14) +
                   pad(core::formatDuration(d.meanStepNs), 12) + "busy " +
                   pad(core::formatPercent(d.busyFraction), 9) + d.verdict + "\n";
        }
    }
    if (r.ranks.size() > kFullRankTable) {
        out += "  (the " + std::to_string(kRankRowsWhenLarge) + " latest of " +
               std::to_string(r.ranks.size()) + " ranks; --format json lists all)\n";
    }
    out += "\n";

    out += "STRAGGLERS\n";
    if (r.stragglers.empty()) {
        out += "  none: no rank arrives later than the others by more than " +
               core::formatDuration(r.noiseNs) + " per step\n";
    }
    for (const Straggler& s : r.stragglers) {
        out += "  rank " + std::to_string(s.rank) + ": " + stragglerLateness(s) + "; it " +
               std::string(describe(s.cause)) + " [" + std::string(toString(s.cause)) + "]\n";
        for (const std::string& line : s.evidence) {
            out += "    - " + line + "\n";
        }
        out += "    - if rank " + std::to_string(s.rank) + " were on time (the others unchanged): job step " +
               core::formatDuration(r.whatIf.measuredStepNs) + " -> " +
               core::formatDuration(
                   std::max<core::DurationNs>(0, r.whatIf.measuredStepNs - s.whatIfSavingPerStepNs)) +
               " (" + core::formatDuration(s.whatIfSavingPerStepNs) + " shorter); look at " +
               core::formatDuration(s.showRange.durationNs()) + " from " +
               core::formatDuration(s.showRange.startNs - r.startNs) + " after the job's start\n";
    }
    if (!r.steps.empty()) {
        out += "\nPER STEP  the rank last at the step's collectives\n";
        std::size_t shown = 0;
        for (const JobStep& step : r.steps) {
            if (shown++ == 20) {
                out += "  ... " + std::to_string(r.steps.size() - 20) +
                       " more steps (--format json lists all)\n";
                break;
            }
            std::vector<core::DurationNs> times;
            for (core::DurationNs ns : step.rankStepNs) {
                if (ns >= 0) {
                    times.push_back(ns);
                }
            }
            std::sort(times.begin(), times.end());
            out += "  step " + pad(std::to_string(step.number), 8) + "time " +
                   (times.empty()
                        ? std::string("?")
                        : core::formatDuration(times.front()) + " - " + core::formatDuration(times.back())) +
                   "   " +
                   (step.lastRank >= 0 ? "rank " + std::to_string(step.lastRank) + " last, " +
                                             core::formatDuration(step.lastLateNs) + " after the median"
                                       : std::string("no late arrival")) +
                   "\n";
        }
    }
    out +=
        "\nWHAT-IF  if every rank were on time (every rank at every collective with the median rank): job "
        "step " +
        core::formatDuration(r.whatIf.measuredStepNs) + " -> " + core::formatDuration(r.whatIf.idealStepNs) +
        " (" + core::formatDuration(r.whatIf.slowdownPerStepNs) +
        " per step lost to late arrivals)\n  basis: " + r.whatIf.basis + "\n\n";

    out += "COLLECTIVES  " + std::to_string(r.collectives.size()) + " matched across ranks\n";
    if (!r.collectiveStats.empty()) {
        out += "  " + pad("kind", 15) + pad("size", 11) + pad("ranks", 7) + pad("count", 7) +
               pad("transfer", 11) + pad("wait", 11) + pad("skew p50", 11) + pad("skew p95", 11) +
               pad("bus bw", 12) + "link\n";
    }
    for (const CollectiveStats& s : r.collectiveStats) {
        out += "  " + pad(s.kind, 15) + pad(sizeText(s.sizeBytes), 11) + pad(std::to_string(s.groupSize), 7) +
               pad(std::to_string(s.count), 7) + pad(core::formatDuration(s.totalTransferNs), 11) +
               pad(core::formatDuration(s.totalWaitNs), 11) + pad(core::formatDuration(s.p50SkewNs), 11) +
               pad(core::formatDuration(s.p95SkewNs), 11) +
               pad(s.busBytesPerSecond > 0 ? core::formatBandwidth(s.busBytesPerSecond) : "?", 12) +
               (s.linkBytesPerSecond > 0 ? core::formatBandwidth(s.linkBytesPerSecond) : "unknown") + "\n";
    }
    if (std::any_of(r.collectiveStats.begin(), r.collectiveStats.end(),
                    [](const CollectiveStats& s) { return s.sizeBytes < 0; })) {
        out +=
            "  size ?: no rank's trace records these calls' message size (PyTorch records it with "
            "record_shapes=True: the collective's \"In msg nelems\" and dtype), so their bus bandwidth "
            "is unknown too\n";
    }
    out += "\n";

    if (!r.verdict.fixes.empty()) {
        out += "FIXES\n";
        int n = 1;
        for (const JobFix& fix : r.verdict.fixes) {
            out += "  " + std::to_string(n++) + ". " + fix.title + "\n     " + fix.detail + "\n";
            if (fix.predictedStepNs > 0) {
                out += "     predicted job step" +
                       (fix.rank >= 0 ? " if rank " + std::to_string(fix.rank) + " were on time"
                                      : std::string()) +
                       ": " + core::formatDuration(fix.predictedStepNs) + " (" + fix.basis + ")\n";
            }
        }
        out += "\n";
    }
    if (!r.warnings.empty()) {
        out += "WARNINGS\n";
        for (const std::string& w : r.warnings) {
            out += "  - " + w + "\n";
        }
        out += "\n";
    }
    return out;
}

std::string writeJobDiffText(const JobReport& before, const JobReport& after) {
    std::string out = "JOB DIFF  before: " + std::to_string(before.ranks.size()) +
                      " rank(s), after: " + std::to_string(after.ranks.size()) + " rank(s)\n";
    if (before.worldSize != after.worldSize) {
        out += "  warning: the jobs have different world sizes (" + std::to_string(before.worldSize) +
               " vs " + std::to_string(after.worldSize) + ")\n";
    }
    auto line = [&](const std::string& label, core::DurationNs a, core::DurationNs b) {
        const double change =
            a > 0 ? (static_cast<double>(b) - static_cast<double>(a)) / static_cast<double>(a) : 0;
        out += "  " + pad(label, 34) + pad(core::formatDuration(a), 12) + "-> " +
               pad(core::formatDuration(b), 12) +
               (a > 0 ? (change >= 0 ? "+" : "") + core::formatPercent(change) : std::string()) + "\n";
    };
    line("job step (median of rank means)", before.whatIf.measuredStepNs, after.whatIf.measuredStepNs);
    line("lost to late arrivals per step", before.whatIf.slowdownPerStepNs, after.whatIf.slowdownPerStepNs);
    out += "  verdict: " + std::string(displayName(before.verdict.bottleneck)) + " -> " +
           std::string(displayName(after.verdict.bottleneck)) + "\n";
    auto stragglers = [](const JobReport& r) {
        std::string text;
        for (const Straggler& s : r.stragglers) {
            text += (text.empty() ? "" : ", ") + std::string("rank ") + std::to_string(s.rank) + " (" +
                    std::string(toString(s.cause)) + ")";
        }
        return text.empty() ? std::string("none") : text;
    };
    out += "  stragglers: " + stragglers(before) + " -> " + stragglers(after) + "\n";
    return out;
}

}  // namespace chokepoint::job

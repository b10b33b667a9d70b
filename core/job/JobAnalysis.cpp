#include "core/job/JobAnalysis.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/job/JobStages.h"

namespace chokepoint::job {

JobReport analyzeJob(std::vector<std::shared_ptr<const RankSummary>> ranks, std::vector<RankProblem> problems,
                     const JobOptions& options) {
    JobReport report;
    report.problems = std::move(problems);
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const auto& a, const auto& b) { return a->rank < b->rank; });
    std::set<std::int32_t> worldSizes;
    std::map<RankSource, int> sources;
    for (auto& summary : ranks) {
        if (!report.ranks.empty() && report.ranks.back().summary->rank == summary->rank) {
            report.problems.push_back({summary->sourcePath, summary->rank,
                                       summary->sourcePath + ": rank " + std::to_string(summary->rank) +
                                           " is also given by " + report.ranks.back().summary->sourcePath +
                                           "; this input is left out (two runs of one rank compare with "
                                           "chokepoint-cli diff A B, or Compare in the GUI)"});
            continue;
        }
        JobRank rank;
        rank.summary = summary;
        rank.meanStepNs = summary->meanStepNs();
        rank.medianStepNs = summary->medianStepNs();
        report.ranks.push_back(std::move(rank));
        if (summary->worldSize > 0) {
            worldSizes.insert(summary->worldSize);
        }
        ++sources[summary->rankSource];
    }
    for (const auto& [source, count] : sources) {
        report.rankIdentityNote += (report.rankIdentityNote.empty() ? "ranks from " : ", ") +
                                   std::string(toString(source)) + " (" + std::to_string(count) + ")";
    }
    // Without a recorded world size, ranks numbered from the inputs' order or names still say how
    // many there should be: an input that could not be loaded leaves its number unused.
    std::int32_t highestRank = -1;
    for (const JobRank& rank : report.ranks) {
        highestRank = std::max(highestRank, rank.summary->rank);
    }
    report.worldSize = worldSizes.empty()
                           ? std::max(static_cast<std::int32_t>(report.ranks.size()), highestRank + 1)
                           : *worldSizes.rbegin();
    if (worldSizes.size() > 1) {
        std::string sizes;
        for (std::int32_t w : worldSizes) {
            sizes += (sizes.empty() ? "" : ", ") + std::to_string(w);
        }
        report.warnings.push_back("the inputs record different world sizes (" + sizes +
                                  "): they may come from different jobs");
    }
    report.notOneJob = stages::notOneJobReason(report.ranks);
    std::set<std::int32_t> present;
    for (const JobRank& rank : report.ranks) {
        present.insert(rank.summary->rank);
    }
    for (std::int32_t r = 0; r < report.worldSize; ++r) {
        if (present.count(r) == 0) {
            report.missingRanks.push_back(r);
        }
    }
    if (!report.missingRanks.empty()) {
        report.warnings.push_back(
            "incomplete job: " + std::to_string(report.ranks.size()) + " of " +
            std::to_string(report.worldSize) + " ranks (" + std::to_string(report.missingRanks.size()) +
            " missing); collectives, stragglers and clocks cover the ranks present only");
    }
    std::vector<core::DurationNs> counts;
    for (const JobRank& rank : report.ranks) {
        counts.push_back(static_cast<core::DurationNs>(rank.summary->collectives.size()));
    }
    const core::DurationNs typicalCount = stages::median(counts);
    for (const JobRank& rank : report.ranks) {
        const auto count = static_cast<core::DurationNs>(rank.summary->collectives.size());
        if (count > 0 && count != typicalCount) {
            report.warnings.push_back(
                "rank " + std::to_string(rank.summary->rank) + " has " + std::to_string(count) +
                " collective kernels where the median rank has " + std::to_string(typicalCount) +
                ": its trace window or its work differs (calls it lacks are matched without it)");
        }
    }
    for (const JobRank& rank : report.ranks) {
        if (rank.summary->collectives.empty()) {
            report.warnings.push_back("rank " + std::to_string(rank.summary->rank) +
                                      " has no collective kernels in its trace");
        }
    }

    std::vector<std::pair<core::DurationNs, std::int32_t>> meanSteps;
    for (const JobRank& rank : report.ranks) {
        meanSteps.emplace_back(rank.meanStepNs, rank.summary->rank);
    }
    if (!meanSteps.empty()) {
        const std::size_t middle = (meanSteps.size() - 1) / 2;
        std::nth_element(meanSteps.begin(), meanSteps.begin() + static_cast<std::ptrdiff_t>(middle),
                         meanSteps.end());
        report.medianRank = meanSteps[middle].second;
    }

    std::vector<stages::MatchedCall> calls = stages::matchCollectives(report.ranks);
    report.clock = stages::alignClocks(report.ranks, calls, options.minClockMatches);
    const std::size_t matched = calls.size();
    // Wrong pairings disturb the first clock estimate: drop them, estimate again on the rest, and
    // check once more with the better clock.
    std::size_t callsWithDropped = 0;  // a call may lose entries in both passes: counted once each
    std::size_t dropped = stages::keepConsistentCalls(report.ranks, calls, options, &callsWithDropped);
    if (dropped > 0) {
        report.clock = stages::alignClocks(report.ranks, calls, options.minClockMatches);
        dropped += stages::keepConsistentCalls(report.ranks, calls, options, &callsWithDropped);
    }
    if (dropped > 0) {
        const std::size_t repaired = stages::pairRemainingByEnds(report.ranks, calls, options);
        if (repaired > 0) {
            report.clock = stages::alignClocks(report.ranks, calls, options.minClockMatches);
            stages::keepConsistentCalls(report.ranks, calls, options);
        }
        report.warnings.push_back(
            "in " + std::to_string(std::min(callsWithDropped, matched)) + " of the " +
            std::to_string(matched) +
            " collective calls matched by order, ranks do not end together once clocks are aligned (" +
            std::to_string(dropped) +
            " rank entries): those ranks' traces hold different calls there (different iterations, sampled "
            "or dropped events). They are left out; " +
            std::to_string(repaired) + (repaired == 1 ? " call was" : " calls were") +
            " paired again by their end times instead");
    }
    for (const stages::MatchedCall& call : calls) {
        if (call.byCommsId) {
            ++report.matching.byCommsId;
        } else if (call.sequence < 0) {
            ++report.matching.byEnds;
        } else {
            ++report.matching.byOrder;
        }
    }
    const bool anyOther = report.matching.byOrder + report.matching.byEnds > 0;
    report.matching.method = report.matching.byCommsId > 0
                                 ? (anyOther ? "Comms Id + Seq and order" : "Comms Id + Seq")
                             : anyOther ? "order"
                                        : "none";
    stages::measureCollectives(report, calls, options);
    stages::findStragglers(report, calls, options);
    stages::decideJobVerdict(report, options);
    return report;
}

}  // namespace chokepoint::job

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "core/base/Format.h"
#include "core/job/JobStages.h"

namespace chokepoint::job::stages {

core::DurationNs median(std::vector<core::DurationNs> values) {
    if (values.empty()) {
        return 0;
    }
    const std::size_t upper = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(upper), values.end());
    if (values.size() % 2 == 1) {
        return values[upper];
    }
    const core::DurationNs lower =
        *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(upper));
    return lower + (values[upper] - lower) / 2;
}

namespace {

// Point-to-point calls (SendRecv) need not end together on every rank; group collectives do.
bool endsTogether(const MatchedCall& call) {
    return call.kind != "SendRecv" && call.kind != "Collective";
}

}  // namespace

ClockAlignment alignClocks(std::vector<JobRank>& ranks, const std::vector<MatchedCall>& allCalls,
                           int minMatches) {
    std::vector<MatchedCall> calls;
    for (const MatchedCall& call : allCalls) {
        if (endsTogether(call)) {
            calls.push_back(call);
        }
    }
    if (calls.size() < static_cast<std::size_t>(minMatches)) {
        calls = allCalls;
    }
    ClockAlignment result;
    std::set<std::string> hosts;
    for (const JobRank& rank : ranks) {
        hosts.insert(rank.summary->hostName);
    }
    result.sameHost = hosts.size() == 1 && !hosts.begin()->empty();
    const bool hostsKnown = hosts.count(std::string()) == 0;

    // Ranks on one host share its clock: one offset per host (ranks whose host is not recorded get
    // their own). This also keeps a rank whose calls are shifted by one (a lost call) from being
    // "aligned" by a wrong offset of one period.
    std::vector<std::size_t> clockOf(ranks.size());
    std::map<std::string, std::size_t> clockOfHost;
    std::size_t clocks = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const std::string& host = ranks[r].summary->hostName;
        if (host.empty()) {
            clockOf[r] = clocks++;
        } else {
            auto [it, added] = clockOfHost.emplace(host, clocks);
            clocks += added ? 1 : 0;
            clockOf[r] = it->second;
        }
    }
    std::vector<core::DurationNs> clockOffset(clocks, 0);
    std::vector<std::int32_t> clockMatches(clocks, 0);
    std::vector<core::DurationNs> offsets(ranks.size(), 0);
    std::vector<std::int32_t> matches(ranks.size(), 0);
    auto endOf = [&](std::size_t r, std::size_t c) { return ranks[r].summary->collectives[c].endNs; };
    // Two rounds: the reference end of a call is the median of the members' ends on the current
    // estimate of the job clock, and each clock's offset the median of its ranks' differences to it.
    for (int round = 0; round < 2; ++round) {
        std::vector<std::vector<core::DurationNs>> differences(clocks);
        std::fill(matches.begin(), matches.end(), 0);
        for (const MatchedCall& call : calls) {
            std::vector<core::DurationNs> ends;
            for (auto [r, c] : call.members) {
                ends.push_back(endOf(r, c) - offsets[r]);
            }
            const core::DurationNs reference = median(ends);
            for (auto [r, c] : call.members) {
                differences[clockOf[r]].push_back(endOf(r, c) - reference);
                ++matches[r];
            }
        }
        for (std::size_t k = 0; k < clocks; ++k) {
            clockMatches[k] = static_cast<std::int32_t>(differences[k].size());
            clockOffset[k] = clockMatches[k] >= minMatches ? median(differences[k]) : 0;
        }
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            offsets[r] = clockOffset[clockOf[r]];
        }
    }
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        matches[r] = clockMatches[clockOf[r]];
    }
    bool any = false;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        any = any || matches[r] >= minMatches;
    }
    if (!any) {
        result.note =
            "too few collectives matched across ranks to estimate clock offsets; ranks' clocks used as they "
            "are";
        return result;
    }
    // Anchor: the lowest rank with an estimate keeps its own clock.
    core::DurationNs anchor = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (matches[r] >= minMatches) {
            anchor = offsets[r];
            break;
        }
    }
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        if (matches[r] >= minMatches) {
            offsets[r] -= anchor;
        }
        ranks[r].clockOffsetNs = offsets[r];
        ranks[r].clockMatches = matches[r];
        result.maxAbsOffsetNs = std::max<core::DurationNs>(result.maxAbsOffsetNs, std::llabs(offsets[r]));
    }
    std::vector<core::DurationNs> residuals;
    for (const MatchedCall& call : calls) {
        std::vector<core::DurationNs> ends;
        for (auto [r, c] : call.members) {
            ends.push_back(endOf(r, c) - offsets[r]);
        }
        const core::DurationNs reference = median(ends);
        for (core::DurationNs end : ends) {
            residuals.push_back(static_cast<core::DurationNs>(std::llabs(end - reference)));
        }
    }
    result.estimated = true;
    result.medianResidualNs = median(residuals);
    result.maxResidualNs = residuals.empty() ? 0 : *std::max_element(residuals.begin(), residuals.end());
    std::size_t unestimated = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        unestimated += matches[r] < minMatches ? 1 : 0;
    }
    if (result.sameHost) {
        result.note = "one host (" + *hosts.begin() + "): clock offsets up to " +
                      core::formatDuration(result.maxAbsOffsetNs) + ", as expected near zero";
    } else if (hostsKnown) {
        result.note = std::to_string(hosts.size()) + " hosts: clock offsets up to " +
                      core::formatDuration(result.maxAbsOffsetNs);
    } else {
        result.note =
            "host names not recorded: clock offsets up to " + core::formatDuration(result.maxAbsOffsetNs);
    }
    result.note += "; residual after alignment median " + core::formatDuration(result.medianResidualNs) +
                   ", max " + core::formatDuration(result.maxResidualNs);
    if (unestimated > 0) {
        result.note += "; " + std::to_string(unestimated) + " rank(s) with fewer than " +
                       std::to_string(minMatches) + " matched collectives keep their own clock";
    }
    return result;
}

std::size_t keepConsistentCalls(const std::vector<JobRank>& ranks, std::vector<MatchedCall>& calls,
                                const JobOptions& options) {
    std::size_t dropped = 0;
    for (MatchedCall& call : calls) {
        if (!endsTogether(call)) {
            continue;  // point-to-point: its ends say nothing about the pairing
        }
        std::vector<core::DurationNs> ends;
        for (auto [r, c] : call.members) {
            ends.push_back(ranks[r].summary->collectives[c].endNs - ranks[r].clockOffsetNs);
        }
        const core::DurationNs reference = median(ends);
        const std::size_t before = call.members.size();
        std::erase_if(call.members, [&](const std::pair<std::size_t, std::size_t>& member) {
            const auto [r, c] = member;
            const core::DurationNs end = ranks[r].summary->collectives[c].endNs - ranks[r].clockOffsetNs;
            return std::llabs(end - reference) > options.maxEndSpreadNs;
        });
        dropped += before - call.members.size();
    }
    std::erase_if(calls, [&](const MatchedCall& call) {
        if (call.members.size() < 2) {
            return true;
        }
        return false;
    });
    return dropped;
}

}  // namespace chokepoint::job::stages

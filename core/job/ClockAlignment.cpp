#include <algorithm>
#include <cstdlib>
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

    std::vector<core::DurationNs> offsets(ranks.size(), 0);
    std::vector<std::int32_t> matches(ranks.size(), 0);
    auto endOf = [&](std::size_t r, std::size_t c) { return ranks[r].summary->collectives[c].endNs; };
    // Two rounds: the reference end of a call is the median of the members' ends on the current
    // estimate of the job clock, and each rank's offset the median of its differences to it.
    for (int round = 0; round < 2; ++round) {
        std::vector<std::vector<core::DurationNs>> differences(ranks.size());
        for (const MatchedCall& call : calls) {
            std::vector<core::DurationNs> ends;
            for (auto [r, c] : call.members) {
                ends.push_back(endOf(r, c) - offsets[r]);
            }
            const core::DurationNs reference = median(ends);
            for (auto [r, c] : call.members) {
                differences[r].push_back(endOf(r, c) - reference);
            }
        }
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            matches[r] = static_cast<std::int32_t>(differences[r].size());
            offsets[r] = matches[r] >= minMatches ? median(differences[r]) : 0;
        }
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
    const core::DurationNs limit = options.maxEndSpreadNs;
    const std::size_t before = calls.size();
    std::erase_if(calls, [&](const MatchedCall& call) {
        if (!endsTogether(call)) {
            return false;  // point-to-point: its ends say nothing about the pairing
        }
        core::TimestampNs first = INT64_MAX;
        core::TimestampNs last = INT64_MIN;
        for (auto [r, c] : call.members) {
            const core::TimestampNs end = ranks[r].summary->collectives[c].endNs - ranks[r].clockOffsetNs;
            first = std::min(first, end);
            last = std::max(last, end);
        }
        return last - first > limit;
    });
    return before - calls.size();
}

}  // namespace chokepoint::job::stages

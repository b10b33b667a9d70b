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

// Raw collective ends of ranks on one clock agree to within this (NCCL ends, a few us of jitter).
constexpr core::DurationNs kSameClockNs = 5'000;

// Point-to-point calls (SendRecv) need not end together on every rank; group collectives do.
bool endsTogether(const MatchedCall& call) {
    return call.kind != "SendRecv" && call.kind != "Collective";
}

}  // namespace

core::DurationNs lowerMedian(std::vector<core::DurationNs> values) {
    if (values.empty()) {
        return 0;
    }
    const std::size_t lower = (values.size() - 1) / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lower), values.end());
    return values[lower];
}

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
    // Calls paired by Comms Id are certain pairs: with enough of them, they alone set the clocks,
    // so a wrong order pairing elsewhere cannot pull an offset (seconds apart clocks included).
    std::vector<MatchedCall> byId;
    for (const MatchedCall& call : calls) {
        if (call.byCommsId) {
            byId.push_back(call);
        }
    }
    if (byId.size() >= static_cast<std::size_t>(minMatches)) {
        calls = std::move(byId);
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
    auto endOf = [&](std::size_t r, std::size_t c) { return ranks[r].summary->collectives[c].endNs; };
    // Ranks without a recorded host share a clock when their raw collective ends agree (within
    // kSameClockNs at nine in ten of the calls they share): inferred hosts (union-find).
    std::vector<std::size_t> parent(ranks.size());
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        parent[r] = r;
    }
    auto root = [&](std::size_t r) {
        while (parent[r] != r) {
            parent[r] = parent[parent[r]];
            r = parent[r];
        }
        return r;
    };
    std::map<std::pair<std::size_t, std::size_t>, std::pair<int, int>> agreement;  // (agree, shared)
    for (const MatchedCall& call : calls) {
        for (std::size_t m = 1; m < call.members.size(); ++m) {
            const auto [ra, ca] = call.members[m - 1];
            const auto [rb, cb] = call.members[m];
            if (!ranks[ra].summary->hostName.empty() || !ranks[rb].summary->hostName.empty()) {
                continue;
            }
            auto& [agree, shared] = agreement[{ra, rb}];
            ++shared;
            agree += std::llabs(endOf(ra, ca) - endOf(rb, cb)) <= kSameClockNs ? 1 : 0;
        }
    }
    for (const auto& [pair, counts] : agreement) {
        if (counts.second >= minMatches && counts.first * 10 >= counts.second * 9) {
            parent[root(pair.first)] = root(pair.second);
        }
    }
    std::vector<std::size_t> clockOf(ranks.size());
    std::map<std::string, std::size_t> clockOfHost;
    std::map<std::size_t, std::size_t> clockOfRoot;
    std::size_t clocks = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const std::string& host = ranks[r].summary->hostName;
        if (host.empty()) {
            auto [it, added] = clockOfRoot.emplace(root(r), clocks);
            clocks += added ? 1 : 0;
            clockOf[r] = it->second;
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
    // Two rounds. In each call, every clock it spans contributes ONE end (the median of its ranks'
    // ends), so calls inside one host (tensor-parallel groups) neither vote nor outweigh the calls
    // across hosts; the call's reference is the median of those ends on the current estimate, and
    // each clock's offset the median of its differences to the references.
    for (int round = 0; round < 2; ++round) {
        std::vector<std::vector<core::DurationNs>> differences(clocks);
        for (const MatchedCall& call : calls) {
            std::map<std::size_t, std::vector<core::DurationNs>> endsByClock;
            for (auto [r, c] : call.members) {
                endsByClock[clockOf[r]].push_back(endOf(r, c));
            }
            if (endsByClock.size() < 2) {
                continue;
            }
            std::vector<core::DurationNs> aligned;
            for (const auto& [k, ends] : endsByClock) {
                aligned.push_back(median(ends) - clockOffset[k]);
            }
            const core::DurationNs reference = median(aligned);
            for (const auto& [k, ends] : endsByClock) {
                differences[k].push_back(median(ends) - reference);
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
    if (clocks == 1 && !result.sameHost && calls.size() >= static_cast<std::size_t>(minMatches)) {
        // No host names, and every rank's collective ends agree as recorded: the ranks share one
        // clock (one host, or hosts already in sync), so there is nothing to align.
        for (JobRank& rank : ranks) {
            rank.clockOffsetNs = 0;
            rank.clockMatches = 0;
        }
        for (const MatchedCall& call : calls) {
            for (auto [r, c] : call.members) {
                ++ranks[r].clockMatches;
            }
        }
        result.estimated = true;
        result.note = "host names not recorded; every rank's collective ends agree as recorded (within " +
                      core::formatDuration(kSameClockNs) +
                      " at nine calls in ten): one clock, no offsets applied";
        return result;
    }
    if (clocks == 1 && result.sameHost) {
        // One host, one clock: nothing to align. As a check, each rank's own median difference to
        // the calls' median ends (which should come out near zero) is reported, not applied.
        std::vector<std::vector<core::DurationNs>> differences(ranks.size());
        for (const MatchedCall& call : calls) {
            std::vector<core::DurationNs> ends;
            for (auto [r, c] : call.members) {
                ends.push_back(endOf(r, c));
            }
            const core::DurationNs reference = median(ends);
            for (auto [r, c] : call.members) {
                differences[r].push_back(endOf(r, c) - reference);
            }
        }
        core::DurationNs largest = 0;
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            ranks[r].clockOffsetNs = 0;
            ranks[r].clockMatches = static_cast<std::int32_t>(differences[r].size());
            largest = std::max<core::DurationNs>(largest, std::llabs(median(differences[r])));
        }
        result.estimated = true;
        result.maxAbsOffsetNs = largest;
        result.note = "one host (" + *hosts.begin() +
                      "): its ranks share one clock; estimated per rank, the offsets "
                      "come out within " +
                      core::formatDuration(largest) + " of zero, as expected";
        return result;
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
    const std::string offsetText = result.maxAbsOffsetNs == 0
                                       ? "no clock offset (the ranks' collective ends agree as recorded)"
                                       : "clock offsets up to " + core::formatDuration(result.maxAbsOffsetNs);
    if (result.sameHost) {
        result.note = "one host (" + *hosts.begin() + "): " + offsetText + ", as expected near zero";
    } else if (hostsKnown) {
        result.note = std::to_string(hosts.size()) + " hosts: " + offsetText;
    } else {
        result.note = "host names not recorded: " + offsetText;
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
                                const JobOptions& options, std::size_t* callsTouched) {
    std::size_t dropped = 0;
    for (MatchedCall& call : calls) {
        if (!endsTogether(call) || call.byCommsId) {
            continue;  // point-to-point: its ends say nothing about the pairing; Comms Id: certain
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
        if (callsTouched != nullptr && call.members.size() < before) {
            ++*callsTouched;
        }
    }
    std::erase_if(calls, [](const MatchedCall& call) { return call.members.size() < 2; });
    return dropped;
}

}  // namespace chokepoint::job::stages

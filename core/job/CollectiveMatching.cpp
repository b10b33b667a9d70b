#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <tuple>

#include "core/job/JobStages.h"

namespace chokepoint::job::stages {

std::vector<MatchedCall> matchCollectives(const std::vector<JobRank>& ranks) {
    // Kineto's "Comms Id" hashes (group, seq, p2p, rank start/stride, world size): with "Seq" it
    // names one call on every participant. A rank takes part once per call, so a second member
    // from the same rank (a hash collision) goes to the order pass instead.
    std::map<std::pair<std::uint64_t, std::int64_t>, MatchedCall> byId;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const auto& collectives = ranks[r].summary->collectives;
        for (std::size_t c = 0; c < collectives.size(); ++c) {
            const RankCollective& call = collectives[c];
            if (!call.hasCommsId) {
                continue;
            }
            MatchedCall& matched = byId[{call.commsId, call.seq}];
            if (matched.members.empty()) {
                matched.kind = call.kind;
                matched.groupKey = call.groupKey;
                matched.stepNumber = call.stepNumber;
                matched.sequence =
                    static_cast<std::int32_t>(std::clamp<std::int64_t>(call.seq, 0, INT32_MAX));
                matched.byCommsId = true;
            }
            if (matched.members.empty() || matched.members.back().first != r) {
                matched.members.emplace_back(r, c);
            }
        }
    }
    // A call with an id that no other rank shares lies outside the other traces' windows, unless
    // some ranks write no ids at all (older PyTorch): only then does it go to the order pass.
    bool someWithoutId = false;
    for (const JobRank& rank : ranks) {
        for (const RankCollective& c : rank.summary->collectives) {
            someWithoutId = someWithoutId || !c.hasCommsId;
        }
    }
    std::set<std::pair<std::size_t, std::size_t>> pairedById;  // and those left alone
    std::vector<MatchedCall> calls;
    for (auto& [key, call] : byId) {
        if (call.members.size() >= 2 || !someWithoutId) {
            pairedById.insert(call.members.begin(), call.members.end());
        }
        if (call.members.size() >= 2) {
            calls.push_back(std::move(call));
        }
    }
    // In the order the order pass would list them: (group, kind, step, seq).
    std::sort(calls.begin(), calls.end(), [](const MatchedCall& a, const MatchedCall& b) {
        return std::tie(a.groupKey, a.kind, a.stepNumber, a.sequence) <
               std::tie(b.groupKey, b.kind, b.stepNumber, b.sequence);
    });

    // The rest by order. Steps are usable only when every rank with such collectives placed them in
    // steps.
    bool useSteps = true;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const auto& collectives = ranks[r].summary->collectives;
        for (std::size_t c = 0; c < collectives.size(); ++c) {
            if (collectives[c].stepNumber < 0 && pairedById.count({r, c}) == 0) {
                useSteps = false;
                break;
            }
        }
    }
    using Key = std::tuple<std::string, std::string, std::int64_t, std::int32_t>;  // group, kind, step, seq
    std::map<Key, MatchedCall> byKey;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        std::map<std::tuple<std::string, std::string, std::int64_t>, std::int32_t> nextSequence;
        const auto& collectives = ranks[r].summary->collectives;
        for (std::size_t c = 0; c < collectives.size(); ++c) {
            if (pairedById.count({r, c}) > 0) {
                continue;
            }
            const RankCollective& call = collectives[c];
            const std::int64_t step = useSteps ? call.stepNumber : -1;
            std::int32_t& seq = nextSequence[{call.groupKey, call.kind, step}];
            MatchedCall& matched = byKey[{call.groupKey, call.kind, step, seq}];
            if (matched.members.empty()) {
                matched.kind = call.kind;
                matched.groupKey = call.groupKey;
                matched.stepNumber = call.stepNumber;
                matched.sequence = seq;
            }
            matched.members.emplace_back(r, c);
            ++seq;
        }
    }
    for (auto& [key, call] : byKey) {
        if (call.members.size() >= 2) {
            calls.push_back(std::move(call));
        }
    }
    return calls;
}

std::size_t pairRemainingByEnds(const std::vector<JobRank>& ranks, std::vector<MatchedCall>& calls,
                                const JobOptions& options) {
    std::set<std::pair<std::size_t, std::size_t>> used;
    for (const MatchedCall& call : calls) {
        used.insert(call.members.begin(), call.members.end());
    }
    struct Item {
        core::TimestampNs endNs;
        std::size_t rank;
        std::size_t collective;
    };
    std::map<std::pair<std::string, std::string>, std::vector<Item>> byGroup;  // (group, kind)
    for (std::size_t r = 0; r < ranks.size(); ++r) {
        const auto& collectives = ranks[r].summary->collectives;
        for (std::size_t c = 0; c < collectives.size(); ++c) {
            if (used.count({r, c}) == 0) {
                byGroup[{collectives[c].groupKey, collectives[c].kind}].push_back(
                    {collectives[c].endNs - ranks[r].clockOffsetNs, r, c});
            }
        }
    }
    std::size_t added = 0;
    for (auto& [key, items] : byGroup) {
        std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.endNs < b.endNs; });
        std::int32_t sequence = 0;
        for (std::size_t i = 0; i < items.size();) {
            MatchedCall call;
            call.groupKey = key.first;
            call.kind = key.second;
            call.sequence = -1 - sequence;  // negative: paired by end time, not by order
            std::set<std::size_t> ranksIn;
            std::size_t j = i;
            for (; j < items.size() && items[j].endNs - items[i].endNs <= options.maxEndSpreadNs; ++j) {
                if (ranksIn.insert(items[j].rank).second) {
                    call.members.emplace_back(items[j].rank, items[j].collective);
                }
            }
            if (call.members.size() >= 2) {
                const auto [r, c] = call.members.front();
                call.stepNumber = ranks[r].summary->collectives[c].stepNumber;
                calls.push_back(std::move(call));
                ++sequence;
                ++added;
            }
            i = j;
        }
    }
    return added;
}

}  // namespace chokepoint::job::stages

#include <algorithm>
#include <map>
#include <tuple>

#include "core/job/JobStages.h"

namespace chokepoint::job::stages {

std::vector<MatchedCall> matchCollectives(const std::vector<JobRank>& ranks) {
    // Steps are usable for matching only when every rank with collectives placed them in steps.
    bool useSteps = true;
    for (const JobRank& rank : ranks) {
        for (const RankCollective& c : rank.summary->collectives) {
            if (c.stepNumber < 0) {
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
    std::vector<MatchedCall> calls;
    for (auto& [key, call] : byKey) {
        if (call.members.size() >= 2) {
            calls.push_back(std::move(call));
        }
    }
    return calls;
}

}  // namespace chokepoint::job::stages

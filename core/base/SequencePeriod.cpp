#include "core/base/SequencePeriod.h"

#include <algorithm>
#include <unordered_map>

namespace chokepoint::core {

SequencePeriod findSequencePeriod(std::span<const std::uint32_t> seq, const SequencePeriodOptions& options) {
    SequencePeriod out;
    const std::size_t n = seq.size();
    const std::size_t minRepeats = static_cast<std::size_t>(std::max(2, options.minRepeats));
    struct IdInfo {
        std::size_t count = 0;
        std::size_t first = 0;
        std::size_t last = 0;
        std::unordered_map<std::size_t, std::size_t> distances;  // distance to the previous -> times
    };
    std::unordered_map<std::uint32_t, IdInfo> ids;
    for (std::size_t i = 0; i < n; ++i) {
        auto [it, inserted] = ids.try_emplace(seq[i]);
        IdInfo& info = it->second;
        if (inserted) {
            info.first = i;
        } else {
            ++info.distances[i - info.last];
        }
        info.last = i;
        ++info.count;
    }
    // Candidate anchors: ids that recur at a (mostly) constant distance.
    struct Anchor {
        std::uint32_t id;
        std::size_t period;
        std::size_t first;
    };
    std::vector<Anchor> anchors;
    for (const auto& [id, info] : ids) {
        if (info.count < minRepeats) {
            continue;
        }
        std::size_t bestDistance = 0;
        std::size_t bestCount = 0;
        for (const auto& [distance, count] : info.distances) {
            if (count > bestCount || (count == bestCount && distance < bestDistance)) {
                bestDistance = distance;
                bestCount = count;
            }
        }
        const double regular = static_cast<double>(bestCount) / static_cast<double>(info.count - 1);
        if (bestDistance >= std::max<std::size_t>(2, options.minPeriod) &&
            regular >= options.minPeriodMatch) {
            anchors.push_back({id, bestDistance, info.first});
        }
    }
    if (anchors.empty()) {
        return out;
    }
    std::sort(anchors.begin(), anchors.end(), [](const Anchor& a, const Anchor& b) {
        return a.period != b.period ? a.period < b.period : a.first < b.first;
    });
    std::size_t period = 0;
    std::size_t regionStart = 0;
    int tried = 0;
    std::vector<std::uint32_t> suffixMatch;  // matches of seq[i] == seq[i + p] from i on
    for (std::size_t a = 0; a < anchors.size() && tried < options.maxPeriodsTried; ++a) {
        if (a > 0 && anchors[a].period == anchors[a - 1].period) {
            continue;
        }
        ++tried;
        const std::size_t p = anchors[a].period;
        if (p * 2 > n) {
            break;
        }
        const std::size_t m = n - p;
        suffixMatch.assign(m + 1, 0);
        for (std::size_t i = m; i-- > 0;) {
            suffixMatch[i] = suffixMatch[i + 1] + (seq[i] == seq[i + p] ? 1u : 0u);
        }
        for (std::size_t start = 0; start < m; ++start) {
            const std::size_t idsLeft = n - start;
            if (idsLeft < minRepeats * p || idsLeft * 2 < n) {
                break;  // too little left to call periodic
            }
            const double match = static_cast<double>(suffixMatch[start]) / static_cast<double>(m - start);
            if (match >= options.minPeriodMatch) {
                period = p;
                regionStart = start;
                break;
            }
        }
        if (period != 0) {
            break;
        }
    }
    if (period == 0) {
        return out;
    }
    const Anchor* anchor = nullptr;
    std::size_t anchorFirst = n;
    for (const Anchor& a : anchors) {
        if (a.period != period) {
            continue;
        }
        std::size_t first = std::max(a.first, regionStart);
        while (first < n && seq[first] != a.id) {
            ++first;
        }
        if (first < anchorFirst) {
            anchor = &a;
            anchorFirst = first;
        }
    }
    if (anchor == nullptr) {
        return out;
    }
    out.period = period;
    out.regionStart = regionStart;
    out.anchor = anchor->id;
    for (std::size_t i = anchorFirst; i < n; ++i) {
        if (seq[i] == anchor->id) {
            out.repetitionStarts.push_back(i);
        }
    }
    return out;
}

}  // namespace chokepoint::core

#include "core/timeline/TrackLayout.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

namespace chokepoint::timeline {
namespace {

bool contains(const std::vector<std::string>& sorted, std::string_view key) {
    return std::binary_search(sorted.begin(), sorted.end(), key, std::less<>());
}

void setMember(std::vector<std::string>& sorted, std::string_view key, bool member) {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), key, std::less<>());
    const bool present = it != sorted.end() && *it == key;
    if (member && !present) {
        sorted.insert(it, std::string(key));
    } else if (!member && present) {
        sorted.erase(it);
    }
}

// Rank of each key in `order`; keys not listed rank after every listed one.
std::unordered_map<std::string_view, std::size_t> ranks(const std::vector<std::string>& order) {
    std::unordered_map<std::string_view, std::size_t> rank;
    for (std::size_t i = 0; i < order.size(); ++i) {
        rank.emplace(order[i], i);
    }
    return rank;
}

std::size_t rankOf(const std::unordered_map<std::string_view, std::size_t>& rank, std::string_view key) {
    const auto it = rank.find(key);
    return it == rank.end() ? std::numeric_limits<std::size_t>::max() : it->second;
}

// Groups in display order, each with all its tracks (hidden ones included) in display order.
std::vector<TrackGroupView> orderedGroups(const TrackSet& set, const TrackLayout& layout) {
    std::vector<TrackGroupView> groups;
    std::unordered_map<std::string_view, std::size_t> groupIndex;
    for (std::size_t t = 0; t < set.tracks.size(); ++t) {
        const std::string& key = set.tracks[t].group;
        auto [it, inserted] = groupIndex.emplace(key, groups.size());
        if (inserted) {
            TrackGroupView g;
            g.key = key;
            g.firstTrack = t;
            groups.push_back(std::move(g));
        }
        groups[it->second].tracks.push_back(t);
    }
    const auto groupRank = ranks(layout.groupOrder);
    std::stable_sort(groups.begin(), groups.end(), [&](const TrackGroupView& a, const TrackGroupView& b) {
        return rankOf(groupRank, a.key) < rankOf(groupRank, b.key);
    });
    const auto trackRank = ranks(layout.trackOrder);
    for (TrackGroupView& g : groups) {
        std::stable_sort(g.tracks.begin(), g.tracks.end(), [&](std::size_t a, std::size_t b) {
            return rankOf(trackRank, set.tracks[a].key) < rankOf(trackRank, set.tracks[b].key);
        });
        g.trackCount = g.tracks.size();
        g.collapsed = contains(layout.collapsedGroups, g.key);
    }
    return groups;
}

// Replaces `order` by `current` followed by the keys of `order` that `current` lacks (another
// trace's tracks keep their place for when that trace is opened).
void recordOrder(std::vector<std::string>& order, std::vector<std::string> current) {
    std::vector<std::string> sorted = current;
    std::sort(sorted.begin(), sorted.end());
    for (std::string& key : order) {
        if (!std::binary_search(sorted.begin(), sorted.end(), key)) {
            current.push_back(std::move(key));
        }
    }
    order = std::move(current);
}

}  // namespace

std::vector<TrackGroupView> applyTrackLayout(const TrackSet& set, const TrackLayout& layout) {
    std::vector<TrackGroupView> groups = orderedGroups(set, layout);
    for (TrackGroupView& g : groups) {
        const auto visibleEnd = std::stable_partition(g.tracks.begin(), g.tracks.end(), [&](std::size_t t) {
            return !contains(layout.hiddenTracks, set.tracks[t].key);
        });
        g.hiddenCount = static_cast<std::size_t>(g.tracks.end() - visibleEnd);
        g.tracks.erase(visibleEnd, g.tracks.end());
    }
    return groups;
}

TrackLayout defaultTrackLayout(const TrackSet& tracks, const core::TraceModel& model) {
    TrackLayout layout;
    for (const Track& track : tracks.tracks) {
        if (track.kind != TrackKind::Counter || track.counterIndex < 0 ||
            static_cast<std::size_t>(track.counterIndex) >= model.counters.size()) {
            continue;
        }
        const core::CounterTrack& counter = model.counters[static_cast<std::size_t>(track.counterIndex)];
        const bool perThreadCpu = counter.deviceIndex < 0 && counter.tid != 0 && counter.unit == "%";
        if (!perThreadCpu || counter.values.empty()) {
            continue;
        }
        const double peak = *std::max_element(counter.values.begin(), counter.values.end());
        if (peak < kIdleThreadCpuPercent) {
            setTrackHidden(layout, track.key, true);
        }
    }
    return layout;
}

bool isTrackHidden(const TrackLayout& layout, std::string_view trackKey) {
    return contains(layout.hiddenTracks, trackKey);
}

bool isGroupCollapsed(const TrackLayout& layout, std::string_view groupKey) {
    return contains(layout.collapsedGroups, groupKey);
}

void setTrackHidden(TrackLayout& layout, std::string_view trackKey, bool hidden) {
    setMember(layout.hiddenTracks, trackKey, hidden);
}

void setGroupCollapsed(TrackLayout& layout, std::string_view groupKey, bool collapsed) {
    setMember(layout.collapsedGroups, groupKey, collapsed);
}

void showAllTracks(TrackLayout& layout) {
    layout.hiddenTracks.clear();
}

bool moveGroup(TrackLayout& layout, const TrackSet& set, std::string_view groupKey, int delta) {
    const std::vector<TrackGroupView> groups = orderedGroups(set, layout);
    const auto it = std::find_if(groups.begin(), groups.end(),
                                 [&](const TrackGroupView& g) { return g.key == groupKey; });
    if (it == groups.end() || delta == 0) {
        return false;
    }
    const auto from = it - groups.begin();
    const auto to = from + delta;
    if (to < 0 || to >= static_cast<std::ptrdiff_t>(groups.size())) {
        return false;
    }
    std::vector<std::string> keys;
    for (const TrackGroupView& g : groups) {
        keys.push_back(g.key);
    }
    std::string moved = std::move(keys[static_cast<std::size_t>(from)]);
    keys.erase(keys.begin() + from);
    keys.insert(keys.begin() + to, std::move(moved));
    recordOrder(layout.groupOrder, std::move(keys));
    return true;
}

bool moveTrack(TrackLayout& layout, const TrackSet& set, std::string_view trackKey, int delta) {
    std::vector<TrackGroupView> groups = orderedGroups(set, layout);
    for (TrackGroupView& g : groups) {
        const auto it = std::find_if(g.tracks.begin(), g.tracks.end(),
                                     [&](std::size_t t) { return set.tracks[t].key == trackKey; });
        if (it == g.tracks.end()) {
            continue;
        }
        // Step over hidden tracks: the move is among the tracks the user sees.
        std::ptrdiff_t pos = it - g.tracks.begin();
        const std::ptrdiff_t step = delta < 0 ? -1 : 1;
        int remaining = delta < 0 ? -delta : delta;
        std::ptrdiff_t target = pos;
        for (std::ptrdiff_t i = pos + step;
             remaining > 0 && i >= 0 && i < static_cast<std::ptrdiff_t>(g.tracks.size()); i += step) {
            if (!isTrackHidden(layout, set.tracks[g.tracks[static_cast<std::size_t>(i)]].key)) {
                target = i;
                --remaining;
            }
        }
        if (target == pos) {
            return false;
        }
        const std::size_t moved = g.tracks[static_cast<std::size_t>(pos)];
        g.tracks.erase(g.tracks.begin() + pos);
        g.tracks.insert(g.tracks.begin() + target, moved);
        std::vector<std::string> keys;
        for (const TrackGroupView& group : groups) {
            for (std::size_t t : group.tracks) {
                keys.push_back(set.tracks[t].key);
            }
        }
        recordOrder(layout.trackOrder, std::move(keys));
        return true;
    }
    return false;
}

}  // namespace chokepoint::timeline

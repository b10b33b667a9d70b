#include "core/timeline/StreamSyncs.h"

#include <algorithm>
#include <map>
#include <utility>

namespace chokepoint::timeline {

std::vector<std::vector<core::TimeRange>> streamSyncsByTrack(const core::TraceModel& model,
                                                             const TrackSet& tracks) {
    std::vector<std::vector<core::TimeRange>> byTrack(tracks.tracks.size());
    std::map<std::pair<std::int32_t, std::int32_t>, std::size_t> trackOfStream;
    for (std::size_t t = 0; t < tracks.tracks.size(); ++t) {
        const Track& track = tracks.tracks[t];
        if (track.kind == TrackKind::GpuStream && track.streamId >= 0) {
            trackOfStream.emplace(std::make_pair(track.deviceIndex, track.streamId), t);
        }
    }
    const core::SyncTable& syncs = model.syncs;
    for (std::size_t i = 0; i < syncs.size(); ++i) {
        if (syncs.streamId[i] < 0 || syncs.endNs[i] < syncs.startNs[i]) {
            continue;
        }
        const auto it = trackOfStream.find({syncs.deviceIndex[i], syncs.streamId[i]});
        if (it != trackOfStream.end()) {
            byTrack[it->second].push_back({syncs.startNs[i], syncs.endNs[i]});
        }
    }
    for (auto& ranges : byTrack) {
        std::sort(ranges.begin(), ranges.end(),
                  [](const core::TimeRange& a, const core::TimeRange& b) { return a.startNs < b.startNs; });
    }
    return byTrack;
}

}  // namespace chokepoint::timeline

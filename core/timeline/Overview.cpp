#include "core/timeline/Overview.h"

#include <algorithm>
#include <set>

namespace chokepoint::timeline {
namespace {

// Adds each event's overlap with every bucket (in nanoseconds) to `sums`.
void accumulate(const Lane& lane, core::TimeRange span, std::vector<double>& sums) {
    const double bucketNs = static_cast<double>(span.durationNs()) / static_cast<double>(sums.size());
    const auto last = static_cast<std::ptrdiff_t>(sums.size()) - 1;
    for (std::size_t i = 0; i < lane.size(); ++i) {
        const double s = static_cast<double>(std::max(lane.startNs(i), span.startNs) - span.startNs);
        const double e = static_cast<double>(std::min(lane.endNs(i), span.endNs) - span.startNs);
        if (e <= s) {
            continue;
        }
        auto b = std::clamp(static_cast<std::ptrdiff_t>(s / bucketNs), std::ptrdiff_t{0}, last);
        const auto bEnd = std::clamp(static_cast<std::ptrdiff_t>(e / bucketNs), std::ptrdiff_t{0}, last);
        for (; b <= bEnd; ++b) {
            const double b0 = static_cast<double>(b) * bucketNs;
            const double overlap = std::min(e, b0 + bucketNs) - std::max(s, b0);
            if (overlap > 0) {
                sums[static_cast<std::size_t>(b)] += overlap;
            }
        }
    }
}

std::vector<float> normalize(const std::vector<double>& sums, double bucketNs, std::size_t parallel) {
    std::vector<float> out(sums.size(), 0.0f);
    if (parallel == 0 || bucketNs <= 0) {
        return out;
    }
    for (std::size_t b = 0; b < sums.size(); ++b) {
        out[b] = static_cast<float>(std::min(1.0, sums[b] / (bucketNs * static_cast<double>(parallel))));
    }
    return out;
}

}  // namespace

Overview computeOverview(const TrackSet& tracks, std::size_t buckets) {
    Overview overview;
    overview.span = tracks.span;
    if (buckets == 0 || tracks.span.durationNs() <= 0) {
        return overview;
    }
    std::vector<double> gpu(buckets, 0.0), host(buckets, 0.0);
    std::set<std::int32_t> devices;
    std::size_t threads = 0;
    for (const Track& track : tracks.tracks) {
        bool counted = false;
        for (const TrackLane& lane : track.lanes) {
            if (lane.role == LaneRole::GpuWork) {
                devices.insert(track.deviceIndex);
                accumulate(lane.lane, tracks.span, gpu);
            } else if (track.kind == TrackKind::HostThread && lane.depth == 0 &&
                       lane.role == LaneRole::CpuOp) {
                // Top-level CPU ops (ranges such as ProfilerStep#N span everything and say nothing).
                accumulate(lane.lane, tracks.span, host);
                if (!counted) {
                    ++threads;
                    counted = true;
                }
            }
        }
    }
    const double bucketNs = static_cast<double>(tracks.span.durationNs()) / static_cast<double>(buckets);
    overview.gpuBusy = normalize(gpu, bucketNs, devices.size());
    overview.hostBusy = normalize(host, bucketNs, threads);
    return overview;
}

}  // namespace chokepoint::timeline

#include "core/timeline/TimelineTracks.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "core/base/Format.h"
#include "core/base/Strings.h"
#include "core/model/ThreadLabels.h"

namespace chokepoint::timeline {

std::size_t Track::eventCount() const {
    std::size_t n = 0;
    for (const TrackLane& l : lanes) {
        n += l.lane.size();
    }
    return n;
}

std::size_t TrackSet::memoryBytes() const {
    std::size_t bytes = tracks.capacity() * sizeof(Track);
    for (const Track& t : tracks) {
        for (const TrackLane& l : t.lanes) {
            bytes += l.lane.memoryBytes();
        }
    }
    return bytes;
}

namespace {

using StreamKey = std::pair<std::int32_t, std::int32_t>;  // device, stream

struct StreamBuild {
    std::size_t gpuCount = 0;
    Lane work;
    std::vector<Lane> annotations;  // by depth
};

struct ThreadBuild {
    std::vector<Lane> ranges;  // by depth
    std::vector<Lane> ops;     // by depth
    std::vector<Lane> apiCalls;
    std::vector<Lane> samples;                   // one lane of stack samples
    std::vector<core::TimestampNs> apiLaneEnds;  // greedy packing of overlapping calls
};

Lane& laneAt(std::vector<Lane>& lanes, std::size_t depth) {
    if (lanes.size() <= depth) {
        lanes.resize(depth + 1);
    }
    return lanes[depth];
}

std::string deviceGroupName(const core::TraceModel& model, std::int32_t device) {
    std::string name = "GPU " + std::to_string(device);
    if (const core::DeviceInfo* info = model.device(device); info && !info->name.empty()) {
        name += " · " + info->name;
    }
    return name;
}

std::string processGroupName(const core::TraceModel& model, std::int64_t pid) {
    std::string name = "Process " + std::to_string(pid);
    for (const core::ProcessInfo& p : model.processes) {
        if (p.pid == pid && !p.name.empty()) {
            name += " · " + p.name;
            break;
        }
    }
    return name;
}

// The part of a recorded name that adds to "Stream 7" / "Thread 123": Kineto names streams
// "stream 7" and threads "thread 123 (pt_main_thread)", which would repeat the id.
std::string extraName(const std::string& name, std::string_view kind, std::int64_t id) {
    std::string prefix = std::string(kind) + " " + std::to_string(id);
    if (name.size() >= prefix.size()) {
        bool same = true;
        for (std::size_t i = 0; i < prefix.size() && same; ++i) {
            same = core::toLower(name[i]) == core::toLower(prefix[i]);
        }
        if (same) {
            std::string rest = name.substr(prefix.size());
            // Drop separators and one pair of parentheses: " (pt_main_thread)" -> "pt_main_thread".
            while (!rest.empty() && (rest.front() == ' ' || rest.front() == ':' || rest.front() == '-')) {
                rest.erase(rest.begin());
            }
            if (rest.size() >= 2 && rest.front() == '(' && rest.back() == ')') {
                rest = rest.substr(1, rest.size() - 2);
            }
            return rest;
        }
    }
    return name;
}

}  // namespace

TrackSet buildTracks(const core::TraceModel& model) {
    TrackSet set;
    set.span = model.timeSpan();

    // --- GPU streams: one lane of work per stream, merged from three start-sorted tables. ---
    std::map<StreamKey, StreamBuild> streams;
    const core::KernelTable& k = model.kernels;
    const core::MemcpyTable& c = model.memcpys;
    const core::MemsetTable& s = model.memsets;
    for (std::size_t i = 0; i < k.size(); ++i) {
        ++streams[{k.deviceIndex[i], k.streamId[i]}].gpuCount;
    }
    for (std::size_t i = 0; i < c.size(); ++i) {
        ++streams[{c.deviceIndex[i], c.streamId[i]}].gpuCount;
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
        ++streams[{s.deviceIndex[i], s.streamId[i]}].gpuCount;
    }
    for (auto& [key, build] : streams) {
        build.work.reserve(build.gpuCount);
    }
    // Appending per table is fine: Lane::finish() sorts only when the merged order is not sorted,
    // which happens only on streams that mix kernels with copies or memsets.
    for (std::size_t i = 0; i < k.size(); ++i) {
        streams[{k.deviceIndex[i], k.streamId[i]}].work.add(
            k.startNs[i], k.endNs[i], {EventKind::Kernel, static_cast<std::uint32_t>(i)});
    }
    for (std::size_t i = 0; i < c.size(); ++i) {
        streams[{c.deviceIndex[i], c.streamId[i]}].work.add(
            c.startNs[i], c.endNs[i], {EventKind::Memcpy, static_cast<std::uint32_t>(i)});
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
        streams[{s.deviceIndex[i], s.streamId[i]}].work.add(
            s.startNs[i], s.endNs[i], {EventKind::Memset, static_cast<std::uint32_t>(i)});
    }

    // --- Ranges: host ranges on their thread, GPU-projected ones on their stream. ---
    std::map<core::ThreadIndex, ThreadBuild> threads;
    const core::RangeTable& r = model.ranges;
    for (std::size_t i = 0; i < r.size(); ++i) {
        const EventRef ref{EventKind::Range, static_cast<std::uint32_t>(i)};
        if (r.source[i] == core::RangeSource::GpuUserAnnotation || r.thread[i] == core::kNoThread) {
            if (r.deviceIndex[i] < 0) {
                continue;  // neither a thread nor a stream: nowhere to draw it
            }
            laneAt(streams[{r.deviceIndex[i], r.streamId[i]}].annotations, r.depth[i])
                .add(r.startNs[i], r.endNs[i], ref);
        } else {
            laneAt(threads[r.thread[i]].ranges, r.depth[i]).add(r.startNs[i], r.endNs[i], ref);
        }
    }
    const core::CpuOpTable& o = model.cpuOps;
    for (std::size_t i = 0; i < o.size(); ++i) {
        if (o.thread[i] == core::kNoThread) {
            continue;
        }
        laneAt(threads[o.thread[i]].ops, o.depth[i])
            .add(o.startNs[i], o.endNs[i], {EventKind::CpuOp, static_cast<std::uint32_t>(i)});
    }
    const core::ApiCallTable& a = model.apiCalls;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a.thread[i] == core::kNoThread) {
            continue;
        }
        ThreadBuild& t = threads[a.thread[i]];
        // API calls are start-sorted: put each in the first row that is free at its start.
        std::size_t row = 0;
        while (row < t.apiLaneEnds.size() && t.apiLaneEnds[row] > a.startNs[i]) {
            ++row;
        }
        if (row == t.apiLaneEnds.size()) {
            t.apiLaneEnds.push_back(0);
        }
        t.apiLaneEnds[row] = std::max(a.startNs[i], a.endNs[i]);
        laneAt(t.apiCalls, row)
            .add(a.startNs[i], a.endNs[i], {EventKind::ApiCall, static_cast<std::uint32_t>(i)});
    }

    // Sampled stacks: one lane of instants per thread (sorted by time after finalize()).
    const core::StackSampleTable& q = model.stackSamples;
    for (std::size_t i = 0; i < q.size(); ++i) {
        if (q.thread[i] == core::kNoThread) {
            continue;
        }
        laneAt(threads[q.thread[i]].samples, 0)
            .add(q.timeNs[i], q.timeNs[i], {EventKind::StackSample, static_cast<std::uint32_t>(i)});
    }

    // --- Emit tracks in display order. ---
    for (auto& [key, build] : streams) {
        Track track;
        track.kind = TrackKind::GpuStream;
        track.deviceIndex = key.first;
        track.streamId = key.second;
        track.group = deviceGroupName(model, key.first);
        track.label = "Stream " + std::to_string(key.second);
        track.key = "gpu/" + std::to_string(key.first) + "/" + std::to_string(key.second);
        for (const core::StreamInfo& info : model.streams) {
            if (info.deviceIndex == key.first && info.streamId == key.second) {
                if (const std::string extra = extraName(info.name, "stream", key.second); !extra.empty()) {
                    track.label += " · " + extra;
                }
            }
        }
        for (std::size_t d = 0; d < build.annotations.size(); ++d) {
            if (!build.annotations[d].empty()) {
                build.annotations[d].finish();
                track.lanes.push_back({LaneRole::GpuAnnotation, static_cast<std::uint16_t>(d),
                                       std::move(build.annotations[d])});
            }
        }
        if (!build.work.empty()) {
            build.work.finish();
            track.lanes.push_back({LaneRole::GpuWork, 0, std::move(build.work)});
        }
        set.tracks.push_back(std::move(track));
    }

    std::vector<std::pair<core::ThreadIndex, ThreadBuild*>> threadOrder;
    for (auto& [index, build] : threads) {
        threadOrder.emplace_back(index, &build);
    }
    auto threadKey = [&](core::ThreadIndex t) {
        return t < model.threads.size() ? std::make_pair(model.threads[t].pid, model.threads[t].tid)
                                        : std::make_pair(std::int64_t{0}, std::int64_t{t});
    };
    std::sort(threadOrder.begin(), threadOrder.end(),
              [&](const auto& x, const auto& y) { return threadKey(x.first) < threadKey(y.first); });
    for (auto& [index, build] : threadOrder) {
        Track track;
        track.kind = TrackKind::HostThread;
        track.thread = index;
        const auto [pid, tid] = threadKey(index);
        track.pid = pid;
        track.group = processGroupName(model, pid);
        track.label = "Thread " + core::formatThreadId(tid);
        track.key = "thread/" + std::to_string(pid) + "/" + std::to_string(tid);
        if (index < model.threads.size()) {
            if (const std::string extra = extraName(model.threads[index].name, "thread", tid);
                !extra.empty()) {
                track.label += " · " + extra;
            }
        }
        auto moveLanes = [&track](std::vector<Lane>& lanes, LaneRole role) {
            for (std::size_t d = 0; d < lanes.size(); ++d) {
                if (!lanes[d].empty()) {
                    lanes[d].finish();
                    track.lanes.push_back({role, static_cast<std::uint16_t>(d), std::move(lanes[d])});
                }
            }
        };
        moveLanes(build->ranges, LaneRole::Range);
        moveLanes(build->ops, LaneRole::CpuOp);
        moveLanes(build->apiCalls, LaneRole::ApiCall);
        moveLanes(build->samples, LaneRole::StackSample);
        if (!track.lanes.empty()) {
            set.tracks.push_back(std::move(track));
        }
    }

    // Per-thread host counters (the agent's "CPU %" per thread) are named after their thread:
    // "CPU % · main thread (python3, pid 523)", "CPU % · DataLoader worker 2 (pid 880)".
    std::optional<core::ThreadLabels> threadLabels;
    for (std::size_t i = 0; i < model.counters.size(); ++i) {
        const core::CounterTrack& counter = model.counters[i];
        if (counter.timesNs.empty()) {
            continue;
        }
        const bool perThread = counter.deviceIndex < 0 && counter.tid != 0;
        Track track;
        track.kind = TrackKind::Counter;
        track.counterIndex = static_cast<std::int32_t>(i);
        track.deviceIndex = counter.deviceIndex;
        track.pid = counter.pid;
        track.group = counter.deviceIndex >= 0 ? deviceGroupName(model, counter.deviceIndex) + " · counters"
                                               : "Host counters";
        track.label = counter.name + (counter.unit.empty() ? "" : " (" + counter.unit + ")");
        track.key = "counter/" + std::to_string(counter.deviceIndex) + "/" + std::to_string(counter.pid) +
                    "/" + track.label;
        if (perThread) {
            if (!threadLabels) {
                threadLabels.emplace(model);
            }
            track.key += "/" + std::to_string(counter.tid);
            track.label = counter.name + " · " + threadLabels->of(counter.pid, counter.tid).label;
        }
        set.tracks.push_back(std::move(track));
    }
    return set;
}

EventLocation locateEvent(const TrackSet& set, const core::TraceModel& model, EventRef ref) {
    const core::TimeRange times = eventTimes(model, ref);
    auto matchesTrack = [&](const Track& track) {
        switch (ref.kind) {
            case EventKind::Kernel:
                return track.kind == TrackKind::GpuStream &&
                       track.deviceIndex == model.kernels.deviceIndex[ref.row] &&
                       track.streamId == model.kernels.streamId[ref.row];
            case EventKind::Memcpy:
                return track.kind == TrackKind::GpuStream &&
                       track.deviceIndex == model.memcpys.deviceIndex[ref.row] &&
                       track.streamId == model.memcpys.streamId[ref.row];
            case EventKind::Memset:
                return track.kind == TrackKind::GpuStream &&
                       track.deviceIndex == model.memsets.deviceIndex[ref.row] &&
                       track.streamId == model.memsets.streamId[ref.row];
            case EventKind::Range:
                if (model.ranges.thread[ref.row] != core::kNoThread &&
                    model.ranges.source[ref.row] != core::RangeSource::GpuUserAnnotation) {
                    return track.kind == TrackKind::HostThread &&
                           track.thread == model.ranges.thread[ref.row];
                }
                return track.kind == TrackKind::GpuStream &&
                       track.deviceIndex == model.ranges.deviceIndex[ref.row] &&
                       track.streamId == model.ranges.streamId[ref.row];
            case EventKind::CpuOp:
                return track.kind == TrackKind::HostThread && track.thread == model.cpuOps.thread[ref.row];
            case EventKind::ApiCall:
                return track.kind == TrackKind::HostThread && track.thread == model.apiCalls.thread[ref.row];
            case EventKind::StackSample:
                return track.kind == TrackKind::HostThread &&
                       track.thread == model.stackSamples.thread[ref.row];
        }
        return false;
    };
    if (!isValid(model, ref)) {
        return {};
    }
    for (std::size_t t = 0; t < set.tracks.size(); ++t) {
        const Track& track = set.tracks[t];
        if (!matchesTrack(track)) {
            continue;
        }
        for (std::size_t l = 0; l < track.lanes.size(); ++l) {
            const Lane& lane = track.lanes[l].lane;
            for (std::size_t i = lane.firstStartingAtOrAfter(times.startNs);
                 i < lane.size() && lane.startNs(i) == times.startNs; ++i) {
                if (lane.ref(i) == ref) {
                    return {static_cast<int>(t), static_cast<int>(l), i};
                }
            }
        }
    }
    return {};
}

}  // namespace chokepoint::timeline

#pragma once
// The track layout of a timeline, built once per model: one track per GPU stream (kernels,
// copies, memsets, plus GPU-projected annotations above them), one per host thread (user/NVTX
// ranges by nesting depth, then CPU ops by depth, then runtime/driver calls, then its sampled call
// stacks as instants in one lane), and one per counter.
// Tracks come grouped: GPU streams by device (ascending), then host threads by process, then
// counters. Building is O(n log n) in the events; the widget caches it per model.

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/TraceModel.h"
#include "core/timeline/Lane.h"

namespace chokepoint::timeline {

enum class TrackKind : std::uint8_t { GpuStream, HostThread, Counter };

enum class LaneRole : std::uint8_t { GpuWork, GpuAnnotation, Range, CpuOp, ApiCall, StackSample };

struct TrackLane {
    LaneRole role = LaneRole::GpuWork;
    std::uint16_t depth = 0;  // nesting depth for ranges and ops, packing row otherwise
    Lane lane;
};

struct Track {
    TrackKind kind = TrackKind::GpuStream;
    std::string group;  // "GPU 0 · NVIDIA H100", "Process 1234 · python", "Counters"
    std::string label;  // "Stream 7", "Thread 1234 · pt_autograd_0", "DRAM throughput (%)"
    // Stable identity across re-imports (TrackLayout keys): "gpu/0/7", "thread/1234/5678",
    // "counter/<device>/<pid>/<name>".
    std::string key;
    std::int32_t deviceIndex = -1;
    std::int32_t streamId = -1;
    core::ThreadIndex thread = core::kNoThread;
    std::int64_t pid = 0;
    std::int32_t counterIndex = -1;  // index into TraceModel::counters for counter tracks
    std::vector<TrackLane> lanes;    // top to bottom; empty for counter tracks
    std::size_t eventCount() const;
};

struct TrackSet {
    std::vector<Track> tracks;
    core::TimeRange span;  // the model's time span
    std::size_t memoryBytes() const;
};

TrackSet buildTracks(const core::TraceModel& model);

// Where an event sits in a TrackSet. Invalid (track < 0) when the event is not on any track.
struct EventLocation {
    int track = -1;
    int lane = -1;
    std::size_t index = 0;  // index within the lane
    bool valid() const { return track >= 0; }
};

// Finds the track and lane of an event by its table and row: O(log n) in the lane after a lookup
// of the track by device/stream or thread.
EventLocation locateEvent(const TrackSet& tracks, const core::TraceModel& model, EventRef ref);

}  // namespace chokepoint::timeline

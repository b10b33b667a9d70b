// The syncs that wait on a GPU stream are grouped under that stream's track (issue 25: Kineto's
// "stream N (sync)" rows go back to their stream, and the timeline draws them there).
#include "core/timeline/StreamSyncs.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::timeline {
namespace {

void addSync(core::TraceModel& model, core::TimestampNs startNs, core::TimestampNs endNs,
             std::int32_t stream) {
    core::SyncRow row;
    row.startNs = startNs;
    row.endNs = endNs;
    row.deviceIndex = 0;
    row.streamId = stream;
    row.kind = core::SyncKind::StreamSynchronize;
    model.syncs.add(row);
}

TEST(StreamSyncsTest, EachSyncSitsUnderItsOwnStreamSortedByStart) {
    testutils::TraceBuilder b;
    b.device(0, "NVIDIA H100 80GB HBM3", 132);
    b.kernel("sgemm", 0, 100'000, 0, 7);
    b.kernel("relu", 0, 50'000, 0, 13);
    b.cpuOp("step", 0, 200'000);
    addSync(b.model(), 150'000, 160'000, 7);
    addSync(b.model(), 10'000, 90'000, 7);
    addSync(b.model(), 20'000, 40'000, 13);
    addSync(b.model(), 30'000, 35'000, -1);  // a device sync: no stream of its own
    addSync(b.model(), 30'000, 35'000, 99);  // a stream with no work on the timeline
    const core::TraceModel model = b.build();
    const TrackSet tracks = buildTracks(model);
    const auto byTrack = streamSyncsByTrack(model, tracks);
    ASSERT_EQ(byTrack.size(), tracks.tracks.size());
    std::size_t placed = 0;
    for (std::size_t t = 0; t < tracks.tracks.size(); ++t) {
        const Track& track = tracks.tracks[t];
        placed += byTrack[t].size();
        if (track.kind != TrackKind::GpuStream) {
            EXPECT_TRUE(byTrack[t].empty()) << track.label;
        } else if (track.streamId == 7) {
            ASSERT_EQ(byTrack[t].size(), 2u);
            EXPECT_EQ(byTrack[t][0], (core::TimeRange{10'000, 90'000}));
            EXPECT_EQ(byTrack[t][1], (core::TimeRange{150'000, 160'000}));
        } else if (track.streamId == 13) {
            ASSERT_EQ(byTrack[t].size(), 1u);
            EXPECT_EQ(byTrack[t][0], (core::TimeRange{20'000, 40'000}));
        }
    }
    EXPECT_EQ(placed, 3u);
}

}  // namespace
}  // namespace chokepoint::timeline

#include <gtest/gtest.h>

#include "core/timeline/Overview.h"
#include "core/timeline/SearchRows.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::timeline {
namespace {

TEST(OverviewTest, GpuBusyShareLandsInItsBuckets) {
    testutils::TraceBuilder b;
    b.kernel("a", 0, 100, 0, 7);     // first quarter busy on stream 7
    b.kernel("b", 250, 300, 0, 13);  // half of the third quarter on stream 13
    b.kernel("c", 350, 400, 1, 7);   // device 1: the last quarter, half
    b.cpuOp("aten::mm", 100, 200);
    b.range("ProfilerStep#1", 0, 400);  // ranges do not count as host work
    const core::TraceModel model = b.build();
    const TrackSet tracks = buildTracks(model);
    const Overview o = computeOverview(tracks, 4);
    ASSERT_EQ(o.gpuBusy.size(), 4u);
    // Two devices: stream time is divided by 2.
    EXPECT_FLOAT_EQ(o.gpuBusy[0], 0.5f);
    EXPECT_FLOAT_EQ(o.gpuBusy[1], 0.0f);
    EXPECT_FLOAT_EQ(o.gpuBusy[2], 0.25f);
    EXPECT_FLOAT_EQ(o.gpuBusy[3], 0.25f);
    ASSERT_EQ(o.hostBusy.size(), 4u);
    EXPECT_FLOAT_EQ(o.hostBusy[0], 0.0f);
    EXPECT_FLOAT_EQ(o.hostBusy[1], 1.0f);
    EXPECT_TRUE(computeOverview(tracks, 0).gpuBusy.empty());
}

TEST(SearchRowsTest, RowNamesTheEventItsTrackAndTimes) {
    testutils::TraceBuilder b;
    b.device(0, "H100");
    b.kernel("first", 1000, 1500, 0, 7);
    b.kernel("ampere_sgemm", 3000, 3250, 0, 7);
    const core::TraceModel model = b.build();
    const TrackSet tracks = buildTracks(model);
    const SearchResults results(model, "SGEMM");
    ASSERT_EQ(results.size(), 1u);
    const SearchRow row = searchRow(model, tracks, results[0]);
    EXPECT_EQ(row.name, "ampere_sgemm");
    EXPECT_EQ(row.track, "GPU 0 · H100 / Stream 7");
    EXPECT_EQ(row.startFromTraceNs, 2000);
    EXPECT_EQ(row.durationNs, 250);
    EXPECT_TRUE(searchRow(model, tracks, SearchHit{0, EventRef{}}).name.empty());
}

}  // namespace
}  // namespace chokepoint::timeline

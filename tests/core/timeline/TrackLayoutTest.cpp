#include "core/timeline/TrackLayout.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::timeline {
namespace {

// Two GPU streams in "GPU 0", one thread in "Process 1", one counter in "Counters".
TrackSet sampleTracks() {
    TrackSet set;
    auto add = [&set](std::string group, std::string key) {
        Track t;
        t.group = std::move(group);
        t.key = std::move(key);
        t.label = t.key;
        set.tracks.push_back(std::move(t));
    };
    add("GPU 0", "gpu/0/7");
    add("GPU 0", "gpu/0/13");
    add("Process 1", "thread/1/1");
    add("Process 1", "thread/1/2");
    add("Counters", "counter/-1/1/mem");
    return set;
}

std::vector<std::string> groupKeys(const std::vector<TrackGroupView>& groups) {
    std::vector<std::string> keys;
    for (const TrackGroupView& g : groups) {
        keys.push_back(g.key);
    }
    return keys;
}

TEST(TrackLayoutTest, EmptyLayoutKeepsBuildOrder) {
    const TrackSet set = sampleTracks();
    const auto groups = applyTrackLayout(set, {});
    ASSERT_EQ(groups.size(), 3u);
    EXPECT_EQ(groupKeys(groups), (std::vector<std::string>{"GPU 0", "Process 1", "Counters"}));
    EXPECT_EQ(groups[0].tracks, (std::vector<std::size_t>{0, 1}));
    EXPECT_EQ(groups[1].tracks, (std::vector<std::size_t>{2, 3}));
    EXPECT_EQ(groups[1].firstTrack, 2u);
    EXPECT_FALSE(groups[0].collapsed);
}

TEST(TrackLayoutTest, HideCollapseAndShowAll) {
    const TrackSet set = sampleTracks();
    TrackLayout layout;
    setTrackHidden(layout, "gpu/0/13", true);
    setTrackHidden(layout, "gpu/0/13", true);  // idempotent
    setGroupCollapsed(layout, "Process 1", true);
    EXPECT_EQ(layout.hiddenTracks.size(), 1u);
    auto groups = applyTrackLayout(set, layout);
    EXPECT_EQ(groups[0].tracks, (std::vector<std::size_t>{0}));
    EXPECT_EQ(groups[0].hiddenCount, 1u);
    EXPECT_EQ(groups[0].trackCount, 2u);
    EXPECT_TRUE(groups[1].collapsed);
    EXPECT_TRUE(isGroupCollapsed(layout, "Process 1"));
    showAllTracks(layout);
    groups = applyTrackLayout(set, layout);
    EXPECT_EQ(groups[0].tracks.size(), 2u);
    EXPECT_TRUE(groups[1].collapsed);  // collapsing is not hiding
    setGroupCollapsed(layout, "Process 1", false);
    EXPECT_TRUE(layout.empty());
}

TEST(TrackLayoutTest, MoveGroupsAndTracks) {
    const TrackSet set = sampleTracks();
    TrackLayout layout;
    EXPECT_FALSE(moveGroup(layout, set, "GPU 0", -1));  // already first
    EXPECT_FALSE(moveGroup(layout, set, "no such group", 1));
    EXPECT_TRUE(moveGroup(layout, set, "Counters", -1));
    EXPECT_EQ(groupKeys(applyTrackLayout(set, layout)),
              (std::vector<std::string>{"GPU 0", "Counters", "Process 1"}));
    EXPECT_TRUE(moveTrack(layout, set, "gpu/0/13", -1));
    EXPECT_FALSE(moveTrack(layout, set, "gpu/0/13", -1));  // first of its group
    EXPECT_EQ(applyTrackLayout(set, layout)[0].tracks, (std::vector<std::size_t>{1, 0}));
    // A move steps over hidden tracks.
    TrackLayout hidden;
    setTrackHidden(hidden, "thread/1/1", true);
    EXPECT_FALSE(moveTrack(hidden, set, "thread/1/2", -1));
}

TEST(TrackLayoutTest, UnknownKeysAreIgnoredButKept) {
    const TrackSet set = sampleTracks();
    TrackLayout layout;
    layout.groupOrder = {"Other trace group", "Process 1"};
    layout.hiddenTracks = {"gpu/9/9"};
    layout.collapsedGroups = {"GPU 7"};
    const auto groups = applyTrackLayout(set, layout);
    EXPECT_EQ(groupKeys(groups), (std::vector<std::string>{"Process 1", "GPU 0", "Counters"}));
    for (const TrackGroupView& g : groups) {
        EXPECT_FALSE(g.collapsed);
        EXPECT_EQ(g.hiddenCount, 0u);
    }
    ASSERT_TRUE(moveGroup(layout, set, "Counters", -1));
    // Another trace's group stays in the recorded order.
    EXPECT_NE(std::find(layout.groupOrder.begin(), layout.groupOrder.end(), "Other trace group"),
              layout.groupOrder.end());
}

TEST(TrackLayoutTest, BuiltTracksHaveStableUniqueKeys) {
    testutils::TraceBuilder b;
    b.kernel("k1", 0, 10, 0, 7);
    b.kernel("k2", 20, 30, 0, 13);
    b.kernel("k3", 20, 30, 1, 7);
    const core::TraceModel model = b.build();
    const TrackSet a = buildTracks(model);
    const TrackSet again = buildTracks(model);
    ASSERT_EQ(a.tracks.size(), 3u);
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < a.tracks.size(); ++i) {
        EXPECT_EQ(a.tracks[i].key, again.tracks[i].key);
        keys.push_back(a.tracks[i].key);
    }
    EXPECT_EQ(keys, (std::vector<std::string>{"gpu/0/7", "gpu/0/13", "gpu/1/7"}));
}

// The agent samples every thread of the job; threads that never ran are hidden until the user
// arranges the tracks. Device counters and busy threads stay.
TEST(TrackLayoutTest, TheDefaultLayoutHidesTheCpuCountersOfIdleThreads) {
    testutils::TraceBuilder b;
    b.kernel("k", 0, 10, 0, 7);
    core::TraceModel model = b.build();
    auto counter = [&](std::string name, std::string unit, std::int16_t device, std::int64_t tid,
                       std::vector<double> values) {
        core::CounterTrack c;
        c.name = std::move(name);
        c.unit = std::move(unit);
        c.deviceIndex = device;
        c.pid = 42;
        c.tid = tid;
        for (std::size_t i = 0; i < values.size(); ++i) {
            c.timesNs.push_back(static_cast<core::TimestampNs>(i) * 1000);
        }
        c.values = std::move(values);
        model.counters.push_back(std::move(c));
    };
    counter("CPU %", "%", -1, 100, {12.0, 98.5, 40.0});  // the training thread
    counter("CPU %", "%", -1, 101, {0.0, 0.0, 0.0});     // never ran
    counter("CPU %", "%", -1, 102, {0.0, 0.4, 0.0});     // woke up once, briefly
    counter("CPU %", "%", -1, 103, {0.0, 1.5, 0.0});     // did a little work
    counter("SM active", "%", 0, 0, {0.0, 0.0});         // a device counter, even at 0
    const TrackSet tracks = buildTracks(model);
    const TrackLayout layout = defaultTrackLayout(tracks, model);
    std::vector<std::string> hiddenTids;
    for (const Track& track : tracks.tracks) {
        if (isTrackHidden(layout, track.key)) {
            hiddenTids.push_back(
                std::to_string(model.counters[static_cast<std::size_t>(track.counterIndex)].tid));
        }
    }
    EXPECT_EQ(hiddenTids, (std::vector<std::string>{"101", "102"}));
    // Hidden, not gone: the group says how many, and showing all brings them back.
    std::size_t hiddenInGroups = 0;
    for (const TrackGroupView& group : applyTrackLayout(tracks, layout)) {
        hiddenInGroups += group.hiddenCount;
    }
    EXPECT_EQ(hiddenInGroups, 2u);
    TrackLayout shown = layout;
    showAllTracks(shown);
    EXPECT_TRUE(shown.hiddenTracks.empty());
}

}  // namespace
}  // namespace chokepoint::timeline

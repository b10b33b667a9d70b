#include <gtest/gtest.h>

#include "core/timeline/TimelineTracks.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::timeline {
namespace {

core::TraceModel sampleModel() {
    testutils::TraceBuilder b;
    b.device(0, "NVIDIA H100 80GB HBM3", 132);
    b.range("ProfilerStep#1", 0, 1'000'000);
    b.range("forward", 10'000, 400'000);
    b.cpuOp("aten::linear", 20'000, 300'000);
    b.cpuOp("aten::mm", 30'000, 200'000);
    b.apiCall("cudaLaunchKernel", 40'000, 50'000, 11);
    b.apiCall("cuLaunchKernel", 41'000, 49'000, 0);  // nested driver call: second row
    b.kernel("sgemm", 60'000, 160'000, 0, 7, 11);
    b.kernel("relu", 170'000, 180'000, 0, 7);
    b.memcpy(core::MemcpyKind::HostToDevice, 1 << 20, 165'000, 168'000, 0, 7);
    b.kernel("nccl_allreduce", 60'000, 500'000, 0, 13);
    b.memset(4096, 5'000, 6'000, 1, 3);
    b.cpuOp("loader", 0, 100'000, /*tid=*/2);
    core::CounterTrack counter;
    counter.name = "SM active";
    counter.unit = "%";
    counter.deviceIndex = 0;
    counter.timesNs = {0, 100'000};
    counter.values = {10, 90};
    b.model().counters.push_back(counter);
    return b.build();
}

TEST(TimelineTracksTest, BuildsStreamThreadAndCounterTracksInOrder) {
    core::TraceModel model = sampleModel();
    TrackSet set = buildTracks(model);
    ASSERT_EQ(set.tracks.size(), 6u);
    EXPECT_EQ(set.tracks[0].kind, TrackKind::GpuStream);
    EXPECT_EQ(set.tracks[0].streamId, 7);
    EXPECT_EQ(set.tracks[0].group, "GPU 0 · NVIDIA H100 80GB HBM3");
    EXPECT_EQ(set.tracks[1].streamId, 13);
    EXPECT_EQ(set.tracks[2].deviceIndex, 1);
    EXPECT_EQ(set.tracks[3].kind, TrackKind::HostThread);
    EXPECT_EQ(set.tracks[4].kind, TrackKind::HostThread);
    EXPECT_EQ(set.tracks[5].kind, TrackKind::Counter);
    EXPECT_EQ(set.tracks[5].label, "SM active (%)");

    // Stream 7 merges kernels and the copy into one sorted lane.
    const Track& stream7 = set.tracks[0];
    ASSERT_EQ(stream7.lanes.size(), 1u);
    const Lane& work = stream7.lanes[0].lane;
    ASSERT_EQ(work.size(), 3u);
    EXPECT_EQ(work.ref(1).kind, EventKind::Memcpy);
    EXPECT_EQ(stream7.eventCount(), 3u);

    // Thread 1: two range depths, two op depths, two API rows (the driver call nests).
    const Track& thread1 = set.tracks[3];
    ASSERT_EQ(thread1.lanes.size(), 6u);
    EXPECT_EQ(thread1.lanes[0].role, LaneRole::Range);
    EXPECT_EQ(thread1.lanes[1].role, LaneRole::Range);
    EXPECT_EQ(thread1.lanes[1].depth, 1);
    EXPECT_EQ(thread1.lanes[2].role, LaneRole::CpuOp);
    EXPECT_EQ(thread1.lanes[4].role, LaneRole::ApiCall);
    EXPECT_EQ(thread1.lanes[5].role, LaneRole::ApiCall);
    EXPECT_EQ(set.span, model.timeSpan());
    EXPECT_GT(set.memoryBytes(), 0u);
}

TEST(TimelineTracksTest, LocatesEventsByReference) {
    core::TraceModel model = sampleModel();
    TrackSet set = buildTracks(model);
    for (std::uint32_t row = 0; row < model.kernels.size(); ++row) {
        const EventRef ref{EventKind::Kernel, row};
        EventLocation where = locateEvent(set, model, ref);
        ASSERT_TRUE(where.valid()) << row;
        EXPECT_EQ(set.tracks[static_cast<std::size_t>(where.track)]
                      .lanes[static_cast<std::size_t>(where.lane)]
                      .lane.ref(where.index),
                  ref);
    }
    for (std::uint32_t row = 0; row < model.cpuOps.size(); ++row) {
        EXPECT_TRUE(locateEvent(set, model, {EventKind::CpuOp, row}).valid());
    }
    EXPECT_FALSE(locateEvent(set, model, {EventKind::Kernel, 999}).valid());
    EXPECT_FALSE(locateEvent(set, model, {}).valid());
}

TEST(TimelineTracksTest, LabelsDoNotRepeatTheIdFromRecordedNames) {
    testutils::TraceBuilder b;
    b.kernel("k", 0, 10, 0, 7);
    b.kernel("k", 0, 10, 0, 9);
    b.cpuOp("op", 0, 10, /*tid=*/42);
    b.cpuOp("op", 0, 10, /*tid=*/43);
    core::TraceModel& m = b.model();
    m.streams.push_back({0, 7, "stream 7"});
    m.streams.push_back({0, 9, "NCCL"});
    m.threads[m.threadIndex(1, 42)].name = "thread 42 (pt_main_thread)";
    m.threads[m.threadIndex(1, 43)].name = "DataLoader worker 0";
    core::TraceModel model = b.build();
    TrackSet set = buildTracks(model);
    ASSERT_EQ(set.tracks.size(), 4u);
    EXPECT_EQ(set.tracks[0].label, "Stream 7");
    EXPECT_EQ(set.tracks[1].label, "Stream 9 · NCCL");
    EXPECT_EQ(set.tracks[2].label, "Thread 42 · pt_main_thread");
    EXPECT_EQ(set.tracks[3].label, "Thread 43 · DataLoader worker 0");
}

TEST(TimelineTracksTest, NegativeThreadIdsShowUnsigned) {
    // hta-negative-queue records its threads as -1220540864: a 32-bit pthread id written as a
    // signed int, with no thread name. The label shows the id it stands for.
    testutils::TraceBuilder b;
    b.cpuOp("op", 0, 10, /*tid=*/-1220540864);
    b.cpuOp("op", 0, 10, /*tid=*/-1107294656);
    core::TraceModel& m = b.model();
    m.threads[m.threadIndex(1, -1107294656)].name = "pt_autograd_0";
    TrackSet set = buildTracks(b.build());
    ASSERT_EQ(set.tracks.size(), 2u);
    EXPECT_EQ(set.tracks[0].label, "Thread 3074426432");
    EXPECT_EQ(set.tracks[1].label, "Thread 3187672640 · pt_autograd_0");
}

TEST(TimelineTracksTest, EmptyModelHasNoTracks) {
    core::TraceModel model;
    model.finalize();
    TrackSet set = buildTracks(model);
    EXPECT_TRUE(set.tracks.empty());
    EXPECT_TRUE(set.span.empty());
}

TEST(TimelineTracksTest, EventNamesAndTimes) {
    core::TraceModel model = sampleModel();
    EXPECT_EQ(eventName(model, {EventKind::Memcpy, 0}), "Memcpy HtoD");
    EXPECT_EQ(eventName(model, {EventKind::Memset, 0}), "Memset");
    EXPECT_EQ(eventName(model, {EventKind::Kernel, 999}), "");
    const TrackSet set = buildTracks(model);
    const Lane& work = set.tracks[0].lanes[0].lane;
    EXPECT_EQ(eventName(model, work.ref(0)), "sgemm");
    EXPECT_EQ(eventTimes(model, work.ref(0)), (core::TimeRange{60'000, 160'000}));
}

// The agent's per-thread CPU-use tracks are named after their thread, and each keeps its own key.
TEST(TimelineTracksTest, CpuUseTracksAreNamedAfterTheirThread) {
    core::TraceModel model;
    model.processes.push_back({523, "python3 train.py"});
    model.threadIndex(523, 523, "python3");
    model.threadIndex(880, 880, "pt_data_worker");
    for (std::int64_t pid : {523, 880}) {
        core::CounterTrack track;
        track.name = "CPU %";
        track.unit = "%";
        track.pid = pid;
        track.tid = pid;
        track.timesNs = {0, 10};
        track.values = {50, 60};
        model.counters.push_back(track);
    }
    model.finalize();
    const TrackSet set = buildTracks(model);
    ASSERT_EQ(set.tracks.size(), 2u);
    EXPECT_EQ(set.tracks[0].label, "CPU % · main thread (python3, pid 523)");
    EXPECT_EQ(set.tracks[1].label, "CPU % · DataLoader worker 0 (pid 880)");
    EXPECT_NE(set.tracks[0].key, set.tracks[1].key);
}

// Stack samples are instants in one lane at the bottom of their thread's track; the event is named
// by its leaf function and lists its frames leaf first.
TEST(TimelineTracksTest, StackSamplesAreALaneOfTheirThread) {
    testutils::TraceBuilder b;
    b.cpuOp("aten::mm", 0, 100'000, /*tid=*/1);
    b.sample(50'000, "train.py:main;torch/utils/data/dataloader.py:_BaseDataLoaderIter.__next__", 1);
    b.sample(60'000, "train.py:main", 1);
    b.sample(70'000, "worker.py:loop", 5);  // a thread with samples only
    core::TraceModel model = b.build();
    TrackSet set = buildTracks(model);
    ASSERT_EQ(set.tracks.size(), 2u);
    const Track& main = set.tracks[0];
    ASSERT_EQ(main.lanes.size(), 2u);
    EXPECT_EQ(main.lanes.back().role, LaneRole::StackSample);
    EXPECT_EQ(main.lanes.back().lane.size(), 2u);
    EXPECT_EQ(set.tracks[1].lanes.size(), 1u);
    const EventRef first{EventKind::StackSample, 0};
    EXPECT_TRUE(isValid(model, first));
    EXPECT_FALSE(isValid(model, EventRef{EventKind::StackSample, 3}));
    EXPECT_EQ(eventName(model, first), "_BaseDataLoaderIter.__next__");
    EXPECT_EQ(eventTimes(model, first), (core::TimeRange{50'000, 50'000}));
    EXPECT_EQ(stackSampleFrames(model, first),
              (std::vector<std::string>{"_BaseDataLoaderIter.__next__ (torch/utils/data/dataloader.py)",
                                        "main (train.py)"}));
    const EventLocation where = locateEvent(set, model, first);
    ASSERT_TRUE(where.valid());
    EXPECT_EQ(where.track, 0);
    EXPECT_EQ(where.lane, 1);
}

}  // namespace
}  // namespace chokepoint::timeline

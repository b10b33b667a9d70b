#include "core/model/TraceModel.h"

#include <gtest/gtest.h>

#include "core/model/StackMerge.h"
#include "tests/testutils/TraceBuilder.h"

using namespace chokepoint::core;
using chokepoint::testutils::TraceBuilder;

TEST(TraceModel, FinalizeSortsTablesAndKeepsLaunchLinks) {
    TraceBuilder b;
    b.apiCall("cudaLaunchKernel", 500, 600, /*correlation*/ 2);
    b.apiCall("cudaLaunchKernel", 100, 200, /*correlation*/ 1);
    b.kernel("second", 2000, 3000, 0, 7, 2);
    b.kernel("first", 1000, 1500, 0, 7, 1);
    TraceModel m = b.build();

    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_EQ(m.text(m.kernels.name[0]), "first");
    EXPECT_EQ(m.apiCalls.startNs[0], 100);
    ASSERT_TRUE(m.kernels.launchCall[0].valid());
    EXPECT_EQ(m.apiCalls.correlationId[m.kernels.launchCall[0].index], 1);
    EXPECT_EQ(m.apiCalls.correlationId[m.kernels.launchCall[1].index], 2);
    EXPECT_EQ(m.stats.count("correlation.gpu_event_without_launch_call"), 0);
}

TEST(TraceModel, UnmatchedCorrelationIsCounted) {
    TraceBuilder b;
    b.apiCall("cudaLaunchKernel", 100, 200, 1);
    b.kernel("orphan", 1000, 1500, 0, 7, 99);
    TraceModel m = b.build();
    EXPECT_FALSE(m.kernels.launchCall[0].valid());
    EXPECT_EQ(m.stats.count("correlation.gpu_event_without_launch_call"), 1);
}

TEST(TraceModel, NestsRangesPerThread) {
    TraceBuilder b;
    b.range("inner", 200, 300, 1);
    b.range("ProfilerStep#1", 0, 1000, 1);
    b.range("other-thread", 250, 260, 2);
    b.range("innermost", 210, 220, 1);
    TraceModel m = b.build();
    ASSERT_EQ(m.ranges.size(), 4u);
    EXPECT_EQ(m.text(m.ranges.name[0]), "ProfilerStep#1");
    EXPECT_EQ(m.ranges.depth[0], 0);
    EXPECT_EQ(m.text(m.ranges.name[1]), "inner");
    EXPECT_EQ(m.ranges.depth[1], 1);
    EXPECT_EQ(m.ranges.parent[1], RangeId{0});
    EXPECT_EQ(m.text(m.ranges.name[2]), "innermost");
    EXPECT_EQ(m.ranges.depth[2], 2);
    EXPECT_EQ(m.text(m.ranges.name[3]), "other-thread");
    EXPECT_EQ(m.ranges.depth[3], 0);
    EXPECT_FALSE(m.ranges.parent[3].valid());
}

TEST(TraceModel, ApiCallsAttachToInnermostEnclosingOp) {
    TraceBuilder b;
    b.cpuOp("aten::linear", 0, 1000);
    b.cpuOp("aten::addmm", 100, 900);
    b.cpuOp("aten::relu", 1000, 1200);
    b.apiCall("cudaLaunchKernel", 200, 300);
    b.apiCall("cudaLaunchKernel", 950, 990);
    b.apiCall("cudaLaunchKernel", 1100, 1150);
    b.apiCall("cudaLaunchKernel", 1300, 1400);
    TraceModel m = b.build();
    auto opName = [&](std::size_t call) {
        CpuOpId op = m.apiCalls.cpuOp[call];
        return op.valid() ? std::string(m.text(m.cpuOps.name[op.index])) : std::string("-");
    };
    EXPECT_EQ(opName(0), "aten::addmm");
    EXPECT_EQ(opName(1), "aten::linear");
    EXPECT_EQ(opName(2), "aten::relu");
    EXPECT_EQ(opName(3), "-");
}

TEST(TraceModel, TimeSpanCoversAllTables) {
    TraceBuilder b;
    b.kernel("k", 1000, 2000);
    b.cpuOp("op", 500, 700);
    b.memcpy(MemcpyKind::HostToDevice, 1024, 2500, 2600);
    TraceModel m = b.build();
    EXPECT_EQ(m.timeSpan(), (TimeRange{500, 2600}));
    EXPECT_EQ(m.gpuEventCount(), 2u);
    EXPECT_EQ(m.streams.size(), 1u);
}

TEST(TraceModel, EmptyModelFinalizes) {
    TraceModel m;
    m.finalize();
    EXPECT_TRUE(m.timeSpan().empty());
    EXPECT_EQ(m.gpuEventCount(), 0u);
}

TEST(TraceModel, InternsFramesAndStacksLeafFirst) {
    TraceModel m;
    FrameIndex main = m.internFrame("train.py", "main", 10);
    FrameIndex next = m.internFrame("torch/utils/data/dataloader.py", "__next__", 628);
    EXPECT_EQ(m.internFrame("train.py", "main", 10), main);
    EXPECT_NE(m.internFrame("train.py", "main", 11), main);  // another line is another frame
    StackIndex s = m.internStack({next, main});
    StackIndex root = m.internStack({main});
    EXPECT_EQ(m.internStack({next, main}), s);
    EXPECT_NE(m.internStack({main, next}), s);  // order matters
    EXPECT_NE(root, s);
    EXPECT_EQ(m.stackCount(), 3u);
    ASSERT_EQ(m.stack(s).size(), 2u);
    EXPECT_EQ(m.stack(s)[0], next);
    EXPECT_EQ(m.text(m.stackFrames[m.stack(s)[1]].function), "main");
    EXPECT_TRUE(m.stack(99).empty());
    // Rows appended directly (as the .cptrace reader does) are found by later intern calls.
    m.stackFrames.push_back(StackFrame{m.intern("a.py"), m.intern("f"), 1});
    EXPECT_EQ(m.internFrame("a.py", "f", 1), m.stackFrames.size() - 1);
}

TEST(TraceModel, FinalizeSortsStackSamplesByTime) {
    TraceBuilder b;
    b.sample(300, "train.py:main;train.py:step", 1);
    b.sample(100, "train.py:main", 2);
    b.sample(200, "train.py:main;train.py:step", 1);
    TraceModel m = b.build();
    ASSERT_EQ(m.stackSamples.size(), 3u);
    EXPECT_EQ(m.stackSamples.timeNs[0], 100);
    EXPECT_EQ(m.threads[m.stackSamples.thread[0]].tid, 2);
    EXPECT_EQ(m.stackSamples.stack[1], m.stackSamples.stack[2]);
    EXPECT_EQ(m.stack(m.stackSamples.stack[1]).size(), 2u);
    EXPECT_EQ(m.timeSpan().startNs, 100);
    EXPECT_EQ(m.timeSpan().endNs, 300);
}

TEST(TraceModel, MergeStackSamplesMatchesThreadsAndInternsFrames) {
    TraceBuilder capture;
    capture.apiCall("cudaLaunchKernel", 0, 10, 0, /*tid*/ 7);
    capture.sample(5, "train.py:main", 7);
    TraceModel into = capture.build();
    TraceBuilder sampler;
    sampler.sample(20, "train.py:main;dataloader.py:__next__", 7);  // the same thread (pid 1, tid 7)
    sampler.sample(30, "train.py:main", 9);                         // a new thread
    sampler.model().threads[1].name = "pt_data_worker";
    TraceModel from = sampler.build();
    EXPECT_EQ(mergeStackSamples(into, from), 2u);
    EXPECT_EQ(mergeStackSamples(into, from), 2u);  // samples again, frames and stacks shared
    into.finalize();
    ASSERT_EQ(into.stackSamples.size(), 5u);
    EXPECT_EQ(into.threads.size(), 2u);
    EXPECT_EQ(into.threads[1].name, "pt_data_worker");
    EXPECT_EQ(into.stackFrames.size(), 2u);
    EXPECT_EQ(into.stackCount(), 2u);
    EXPECT_EQ(into.stackSamples.stack[0], into.stackSamples.stack[3]);  // "train.py:main" at 5 and 30
    EXPECT_EQ(into.stackSamples.thread[1], 0u);
}

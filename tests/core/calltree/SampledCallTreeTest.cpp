// Call trees from sampled stacks (SampledCallTree.h): threads at the top, frames merged by function
// and file, each sample standing for the time to its thread's next one.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/calltree/SampledCallTree.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::calltree {
namespace {

using testutils::TraceBuilder;

constexpr core::DurationNs kIntervalNs = 10'000'000;  // 100 Hz

std::uint32_t childNamed(const core::TraceModel& model, const CallTree& tree, std::uint32_t parent,
                         std::string_view function, std::string_view file = {}) {
    for (std::uint32_t c : tree.nodes[parent].children) {
        const CallNode& n = tree.nodes[c];
        if (model.text(n.name) == function && (file.empty() || model.text(n.file) == file)) {
            return c;
        }
    }
    return kNoNode;
}

std::uint32_t threadNode(const core::TraceModel& model, const CallTree& tree, std::int64_t tid) {
    for (std::uint32_t c : tree.root().children) {
        const CallNode& n = tree.nodes[c];
        if (n.thread != core::kNoThread && model.threads[n.thread].tid == tid) {
            return c;
        }
    }
    return kNoNode;
}

// The main thread loads data 6 samples in 10 and steps 4; a monitor thread sleeps in its loop.
core::TraceModel trainingLoop() {
    TraceBuilder b;
    for (int i = 0; i < 10; ++i) {
        const core::TimestampNs t = i * kIntervalNs;
        b.sample(t, i < 6 ? "train.py:main;data.py:load_batch;data.py:decode" : "train.py:main;model.py:step",
                 1);
        b.sample(t + 1'000, "threading.py:run;tqdm/_monitor.py:monitor", 2);
    }
    return b.build();
}

TEST(SampledCallTree, ThreadsThenFramesWithTheTimeOfTheirSamples) {
    const core::TraceModel model = trainingLoop();
    const CallTree tree = buildSampledTopDown(model);
    EXPECT_TRUE(tree.sampled);
    ASSERT_EQ(tree.root().children.size(), 2u);
    EXPECT_EQ(tree.root().calls, 20);
    EXPECT_EQ(tree.root().totalNs, 20 * kIntervalNs);  // each thread's last sample: one median interval
    const std::uint32_t mainThread = threadNode(model, tree, 1);
    ASSERT_NE(mainThread, kNoNode);
    EXPECT_EQ(tree.nodes[mainThread].totalNs, 10 * kIntervalNs);
    const std::uint32_t main = childNamed(model, tree, mainThread, "main", "train.py");
    ASSERT_NE(main, kNoNode);
    const std::uint32_t load = childNamed(model, tree, main, "load_batch");
    const std::uint32_t step = childNamed(model, tree, main, "step");
    ASSERT_NE(load, kNoNode);
    ASSERT_NE(step, kNoNode);
    EXPECT_EQ(tree.nodes[main].children.front(), load);  // heaviest first
    EXPECT_EQ(tree.nodes[load].calls, 6);
    EXPECT_EQ(tree.nodes[load].totalNs, 6 * kIntervalNs);
    EXPECT_EQ(tree.nodes[load].selfNs, 0);
    const std::uint32_t decode = childNamed(model, tree, load, "decode");
    ASSERT_NE(decode, kNoNode);
    EXPECT_EQ(tree.nodes[decode].selfNs, 6 * kIntervalNs);
    EXPECT_EQ(tree.nodes[step].selfNs, 4 * kIntervalNs);
    // The sleeping monitor thread keeps to its own branch.
    const std::uint32_t monitorThread = threadNode(model, tree, 2);
    ASSERT_NE(monitorThread, kNoNode);
    EXPECT_EQ(tree.nodes[monitorThread].totalNs, 10 * kIntervalNs);
    EXPECT_EQ(childNamed(model, tree, monitorThread, "main"), kNoNode);
    for (const CallNode& n : tree.nodes) {
        EXPECT_EQ(n.gpuNs, 0);
    }
}

TEST(SampledCallTree, AFunctionsLinesAreOneNodeAndSameNamedFunctionsOfTwoFilesAreTwo) {
    TraceBuilder b;
    core::TraceModel& m = b.model();
    const core::ThreadIndex thread = m.threadIndex(1, 1);
    const core::FrameIndex outer = m.internFrame("model.py", "forward", 10);
    const core::FrameIndex lineA = m.internFrame("layers.py", "forward", 3);
    const core::FrameIndex lineB = m.internFrame("layers.py", "forward", 7);
    const core::FrameIndex other = m.internFrame("attention.py", "forward", 3);
    m.stackSamples.add({0, thread, m.internStack({lineA, outer})});
    m.stackSamples.add({kIntervalNs, thread, m.internStack({lineB, outer})});
    m.stackSamples.add({2 * kIntervalNs, thread, m.internStack({other, outer})});
    const core::TraceModel model = b.build();
    const CallTree tree = buildSampledTopDown(model);
    const std::uint32_t t = tree.root().children.front();
    const std::uint32_t top = childNamed(model, tree, t, "forward", "model.py");
    ASSERT_NE(top, kNoNode);
    ASSERT_EQ(tree.nodes[top].children.size(), 2u);
    const std::uint32_t layers = childNamed(model, tree, top, "forward", "layers.py");
    ASSERT_NE(layers, kNoNode);
    EXPECT_EQ(tree.nodes[layers].calls, 2);
    EXPECT_EQ(tree.nodes[childNamed(model, tree, top, "forward", "attention.py")].calls, 1);
}

TEST(SampledCallTree, BottomUpListsTheHottestFunctionsWithTheirCallers) {
    const core::TraceModel model = trainingLoop();
    const CallTree bottomUp = buildBottomUp(buildSampledTopDown(model));
    EXPECT_TRUE(bottomUp.sampled);
    const std::uint32_t monitor = childNamed(model, bottomUp, CallTree::kRoot, "monitor");
    const std::uint32_t decode = childNamed(model, bottomUp, CallTree::kRoot, "decode");
    ASSERT_NE(monitor, kNoNode);
    ASSERT_NE(decode, kNoNode);
    EXPECT_EQ(bottomUp.nodes[monitor].selfNs, 10 * kIntervalNs);
    EXPECT_EQ(bottomUp.nodes[decode].selfNs, 6 * kIntervalNs);
    EXPECT_NE(childNamed(model, bottomUp, decode, "load_batch"), kNoNode);
}

TEST(SampledCallTree, NoSamplesNoNodes) {
    TraceBuilder b;
    b.cpuOp("aten::mm", 0, 100);
    const core::TraceModel model = b.build();
    const CallTree tree = buildSampledTopDown(model);
    EXPECT_EQ(tree.size(), 1u);
    EXPECT_EQ(tree.root().totalNs, 0);
}

}  // namespace
}  // namespace chokepoint::calltree

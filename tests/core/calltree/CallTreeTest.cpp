// Top-down and bottom-up call trees on models built in code: self, total and GPU attribution.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/calltree/CallTree.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::calltree {
namespace {

using core::CpuOpCategory;
using testutils::TraceBuilder;

// The child of `parent` named `name`, or kNoNode.
std::uint32_t child(const core::TraceModel& model, const CallTree& tree, std::uint32_t parent,
                    std::string_view name) {
    for (std::uint32_t c : tree.nodes[parent].children) {
        if (model.text(tree.nodes[c].name) == name) {
            return c;
        }
    }
    return kNoNode;
}

// The node at the path "a/b/c" below the root.
const CallNode& at(const core::TraceModel& model, const CallTree& tree, const std::string& path) {
    std::uint32_t node = CallTree::kRoot;
    std::size_t from = 0;
    while (from <= path.size()) {
        const std::size_t slash = std::min(path.find('/', from), path.size());
        node = child(model, tree, node, path.substr(from, slash - from));
        if (node == kNoNode) {
            ADD_FAILURE() << "no node " << path;
            static const CallNode none;
            return none;
        }
        from = slash + 1;
    }
    return tree.nodes[node];
}

// A launches directly (kernel 50 ns) and through D (300 ns) and C (100 ns); a second A call; A on
// a second thread; one kernel without a launch call.
core::TraceModel nestedModel() {
    TraceBuilder b;
    b.cpuOp("A", 0, 1000);
    b.cpuOp("B", 100, 400);
    b.cpuOp("D", 150, 250);
    b.cpuOp("C", 500, 900);
    b.apiCall("cudaLaunchKernel", 160, 170, 1);
    b.apiCall("cudaLaunchKernel", 600, 610, 3);
    b.apiCall("cudaLaunchKernel", 950, 960, 2);
    b.kernel("k_d", 2000, 2300, 0, 7, 1);
    b.kernel("k_a", 3000, 3050, 0, 7, 2);
    b.kernel("k_c", 3100, 3200, 0, 7, 3);
    b.cpuOp("A", 2000, 2500);
    b.cpuOp("B", 2100, 2200);
    b.cpuOp("A", 0, 200, /*tid=*/2);
    b.kernel("orphan", 4000, 4010, 0, 7, 99);
    return b.build();
}

TEST(CallTreeTest, TopDownSelfTotalAndGpuTime) {
    const core::TraceModel model = nestedModel();
    const CallTree tree = buildTopDown(model);

    const CallNode& a = at(model, tree, "A");
    EXPECT_EQ(a.calls, 3);
    EXPECT_EQ(a.totalNs, 1000 + 500 + 200);
    EXPECT_EQ(a.selfNs, (1000 - 300 - 400) + (500 - 100) + 200);
    EXPECT_EQ(a.gpuNs, 300 + 100 + 50);
    EXPECT_EQ(a.gpuSelfNs, 50);
    EXPECT_EQ(model.cpuOps.startNs[a.longestOp.index], 0);
    EXPECT_EQ(a.longestNs, 1000);

    const CallNode& b = at(model, tree, "A/B");
    EXPECT_EQ(b.calls, 2);
    EXPECT_EQ(b.totalNs, 400);
    EXPECT_EQ(b.selfNs, 200 + 100);
    EXPECT_EQ(b.gpuNs, 300);
    EXPECT_EQ(b.gpuSelfNs, 0);

    const CallNode& d = at(model, tree, "A/B/D");
    EXPECT_EQ(d.calls, 1);
    EXPECT_EQ(d.totalNs, 100);
    EXPECT_EQ(d.selfNs, 100);
    EXPECT_EQ(d.gpuNs, 300);
    EXPECT_EQ(d.gpuSelfNs, 300);
    EXPECT_EQ(d.depth, 3u);

    const CallNode& c = at(model, tree, "A/C");
    EXPECT_EQ(c.totalNs, 400);
    EXPECT_EQ(c.gpuNs, 100);

    EXPECT_EQ(tree.root().totalNs, 1700);
    EXPECT_EQ(tree.root().calls, 3);
    EXPECT_EQ(tree.root().gpuNs, 450);
    EXPECT_EQ(tree.unattributedGpuNs, 10);
    EXPECT_EQ(tree.unattributedKernels, 1);
    // Children longest first.
    ASSERT_EQ(a.children.size(), 2u);
    EXPECT_EQ(model.text(tree.nodes[a.children[0]].name), "C");  // 400 = 400: more self first
    EXPECT_EQ(pathTo(tree, child(model, tree, child(model, tree, CallTree::kRoot, "A"), "C")).size(), 2u);
}

TEST(CallTreeTest, PartialOverlapIsClippedSoSelfStaysNonNegative) {
    TraceBuilder b;
    b.cpuOp("outer", 0, 100);
    b.cpuOp("spill", 50, 150);  // ends after its parent
    const core::TraceModel model = b.build();
    const CallTree tree = buildTopDown(model);
    EXPECT_EQ(at(model, tree, "outer").selfNs, 50);
    EXPECT_EQ(at(model, tree, "outer/spill").selfNs, 100);
    EXPECT_EQ(at(model, tree, "outer/spill").totalNs, 100);
}

core::TraceModel pythonModel() {
    TraceBuilder b;
    const core::CpuOpId frame = b.cpuOp("train.py(10): forward", 0, 1000);
    b.cpuOp("aten::mm", 100, 300);
    b.apiCall("cudaLaunchKernel", 150, 160, 1);
    b.apiCall("cudaLaunchKernel", 500, 510, 2);  // in the frame, outside any operator
    b.kernel("gemm", 2000, 2200, 0, 7, 1);
    b.kernel("copy", 2300, 2340, 0, 7, 2);
    b.model().cpuOps.category[frame.index] = CpuOpCategory::PythonFunction;
    return b.build();
}

TEST(CallTreeTest, PythonFramesNestOrAreLeftOut) {
    const core::TraceModel model = pythonModel();
    const CallTree withPython = buildTopDown(model);
    const CallNode& frame = at(model, withPython, "train.py(10): forward");
    EXPECT_EQ(frame.totalNs, 1000);
    EXPECT_EQ(frame.selfNs, 800);
    EXPECT_EQ(frame.gpuNs, 240);
    EXPECT_EQ(frame.gpuSelfNs, 40);
    EXPECT_EQ(at(model, withPython, "train.py(10): forward/aten::mm").gpuNs, 200);
    EXPECT_EQ(withPython.unattributedGpuNs, 0);

    CallTreeOptions noPython;
    noPython.includePython = false;
    const CallTree operators = buildTopDown(model, noPython);
    ASSERT_EQ(operators.root().children.size(), 1u);
    const CallNode& mm = at(model, operators, "aten::mm");
    EXPECT_EQ(mm.totalNs, 200);
    EXPECT_EQ(mm.gpuNs, 200);
    EXPECT_EQ(operators.root().totalNs, 200);
    EXPECT_EQ(operators.unattributedGpuNs, 40);
    EXPECT_EQ(operators.unattributedKernels, 1);
}

TEST(CallTreeTest, GroupsByInputShapes) {
    TraceBuilder b;
    b.cpuOp("aten::mm", 0, 10, 1, "[[2, 3], [3, 4]]");
    b.cpuOp("aten::mm", 20, 40, 1, "[[2, 3], [3, 4]]");
    b.cpuOp("aten::mm", 50, 100, 1, "[[8, 8], [8, 8]]");
    const core::TraceModel model = b.build();
    EXPECT_EQ(buildTopDown(model).root().children.size(), 1u);
    CallTreeOptions byShapes;
    byShapes.byInputShapes = true;
    const CallTree tree = buildTopDown(model, byShapes);
    ASSERT_EQ(tree.root().children.size(), 2u);
    const CallNode& first = tree.nodes[tree.root().children[0]];
    EXPECT_EQ(model.text(first.inputShapes), "[[8, 8], [8, 8]]");
    EXPECT_EQ(first.totalNs, 50);
    const CallNode& second = tree.nodes[tree.root().children[1]];
    EXPECT_EQ(second.calls, 2);
    EXPECT_EQ(second.totalNs, 30);
}

TEST(CallTreeTest, BottomUpListsCallersWithTheCalleesSelfTime) {
    const core::TraceModel model = nestedModel();
    const CallTree bottomUp = buildBottomUp(buildTopDown(model));
    // D is called once, through B, from A.
    const CallNode& d = at(model, bottomUp, "D");
    EXPECT_EQ(d.calls, 1);
    EXPECT_EQ(d.selfNs, 100);
    EXPECT_EQ(d.totalNs, 100);
    EXPECT_EQ(d.gpuNs, 300);
    EXPECT_EQ(at(model, bottomUp, "D/B/A").selfNs, 100);
    // B: both calls, from A.
    const CallNode& b = at(model, bottomUp, "B/A");
    EXPECT_EQ(b.calls, 2);
    EXPECT_EQ(b.selfNs, 300);
    EXPECT_EQ(b.totalNs, 400);
    // A is only ever outermost.
    EXPECT_TRUE(at(model, bottomUp, "A").children.empty());
    EXPECT_EQ(at(model, bottomUp, "A").selfNs, 300 + 400 + 200);
    // Hottest functions (most self time) first: A 900, C 400, B 300, D 100.
    ASSERT_EQ(bottomUp.root().children.size(), 4u);
    EXPECT_EQ(model.text(bottomUp.nodes[bottomUp.root().children[0]].name), "A");
    EXPECT_EQ(model.text(bottomUp.nodes[bottomUp.root().children[1]].name), "C");
    EXPECT_EQ(model.text(bottomUp.nodes[bottomUp.root().children[3]].name), "D");
    // Every function's self time adds up to the top-down total self time.
    core::DurationNs selfSum = 0;
    for (std::uint32_t c : bottomUp.root().children) {
        selfSum += bottomUp.nodes[c].selfNs;
    }
    EXPECT_EQ(selfSum, 900 + 300 + 100 + 400);
}

TEST(CallTreeTest, BottomUpCountsRecursionOnce) {
    TraceBuilder b;
    b.cpuOp("f", 0, 100);
    b.cpuOp("f", 10, 60);
    b.cpuOp("g", 20, 30);
    const core::TraceModel model = b.build();
    const CallTree topDown = buildTopDown(model);
    EXPECT_EQ(at(model, topDown, "f/f/g").totalNs, 10);
    const CallTree bottomUp = buildBottomUp(topDown);
    const CallNode& f = at(model, bottomUp, "f");
    EXPECT_EQ(f.calls, 2);
    EXPECT_EQ(f.selfNs, 50 + 40);
    EXPECT_EQ(f.totalNs, 100);  // the inner call lies inside the outer one
    EXPECT_EQ(at(model, bottomUp, "f/f").selfNs, 40);
    EXPECT_EQ(at(model, bottomUp, "g/f/f").totalNs, 10);
}

TEST(CallTreeTest, EmptyModelGivesARootOnly) {
    TraceBuilder b;
    b.kernel("k", 0, 10);
    const core::TraceModel model = b.build();
    const CallTree tree = buildTopDown(model);
    ASSERT_EQ(tree.size(), 1u);
    EXPECT_EQ(tree.root().totalNs, 0);
    EXPECT_EQ(tree.unattributedGpuNs, 10);
    EXPECT_EQ(buildBottomUp(tree).size(), 1u);
    EXPECT_TRUE(pathTo(tree, CallTree::kRoot).empty());
}

}  // namespace
}  // namespace chokepoint::calltree

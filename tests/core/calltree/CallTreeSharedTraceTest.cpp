// Invariants of the call trees and the Ops table on real traces from ../shared/traces: the BERT
// trace has Python stacks over operators, the ResNet-50 trace operators only.

#include <gtest/gtest.h>

#include <string>

#include "core/calltree/CallTree.h"
#include "core/calltree/OpStats.h"
#include "core/import/TraceLoader.h"
#include "tests/testutils/SharedTraces.h"

namespace chokepoint::calltree {
namespace {

void checkInvariants(const core::TraceModel& model, const CallTreeOptions& options) {
    SCOPED_TRACE(std::string("includePython=") + (options.includePython ? "1" : "0") +
                 " byInputShapes=" + (options.byInputShapes ? "1" : "0"));
    const CallTree tree = buildTopDown(model, options);

    // Figures measured independently from the model's own nesting.
    core::DurationNs topLevelNs = 0;
    core::DurationNs kernelNs = 0;
    std::int64_t includedOps = 0;
    const bool anyPartial = model.stats.count("nesting.cpu_op_partial_overlap") > 0;
    for (std::size_t i = 0; i < model.cpuOps.size(); ++i) {
        const bool python = model.cpuOps.category[i] == core::CpuOpCategory::PythonFunction;
        if (!options.includePython && python) {
            continue;
        }
        ++includedOps;
        bool outermost = true;
        for (core::CpuOpId p = model.cpuOps.parent[i]; p.valid(); p = model.cpuOps.parent[p.index]) {
            if (options.includePython ||
                model.cpuOps.category[p.index] != core::CpuOpCategory::PythonFunction) {
                outermost = false;
                break;
            }
        }
        if (outermost) {
            topLevelNs += model.cpuOps.endNs[i] - model.cpuOps.startNs[i];
        }
    }
    for (std::size_t k = 0; k < model.kernels.size(); ++k) {
        kernelNs += model.kernels.durationNs(k);
    }

    EXPECT_EQ(tree.root().totalNs, topLevelNs);
    EXPECT_EQ(tree.root().gpuNs + tree.unattributedGpuNs, kernelNs);
    core::DurationNs selfSum = 0;
    std::int64_t callSum = 0;
    for (std::uint32_t id = 1; id < tree.size(); ++id) {
        const CallNode& n = tree.nodes[id];
        ASSERT_LE(n.selfNs, n.totalNs) << model.text(n.name);
        ASSERT_LE(n.gpuSelfNs, n.gpuNs) << model.text(n.name);
        ASSERT_GE(n.selfNs, 0);
        ASSERT_GT(n.calls, 0);
        ASSERT_EQ(n.depth, tree.nodes[n.parent].depth + 1);
        selfSum += n.selfNs;
        callSum += n.calls;
    }
    EXPECT_EQ(callSum, includedOps);
    // Self times partition the outermost ops' time unless children spill past their parents.
    if (anyPartial) {
        EXPECT_GE(selfSum, topLevelNs);
    } else {
        EXPECT_EQ(selfSum, topLevelNs);
    }

    const CallTree bottomUp = buildBottomUp(tree);
    core::DurationNs buSelf = 0;
    for (std::uint32_t c : bottomUp.root().children) {
        buSelf += bottomUp.nodes[c].selfNs;
        EXPECT_LE(bottomUp.nodes[c].totalNs, topLevelNs);
    }
    EXPECT_EQ(buSelf, selfSum);

    const OpStatsTable table = buildOpStats(model, options);
    core::DurationNs opSelf = 0;
    std::int64_t opCalls = 0;
    for (const OpStatsRow& row : table.rows) {
        ASSERT_LE(row.selfNs, row.totalNs);
        opSelf += row.selfNs;
        opCalls += row.calls;
    }
    EXPECT_EQ(opSelf, selfSum);
    EXPECT_EQ(opCalls, includedOps);
    EXPECT_EQ(table.topLevelTotalNs, topLevelNs);
}

TEST(CallTreeSharedTraceTest, BertPythonStacks) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "tracelens-h100__gaunernst_bert-small-uncased__1016001.json.gz");
    auto loaded = core::loadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const core::TraceModel& model = loaded.value();

    const CallTree tree = buildTopDown(model);
    std::uint32_t maxDepth = 0;
    bool pythonOverOperator = false;
    for (const CallNode& n : tree.nodes) {
        maxDepth = std::max(maxDepth, n.depth);
    }
    for (std::size_t i = 0; i < model.cpuOps.size() && !pythonOverOperator; ++i) {
        const core::CpuOpId p = model.cpuOps.parent[i];
        pythonOverOperator = p.valid() && model.cpuOps.category[i] == core::CpuOpCategory::Operator &&
                             model.cpuOps.category[p.index] == core::CpuOpCategory::PythonFunction;
    }
    EXPECT_TRUE(pythonOverOperator) << "the trace records operators under Python frames";
    EXPECT_GT(maxDepth, 5u);
    EXPECT_GT(tree.root().gpuNs, 0);

    for (bool python : {true, false}) {
        for (bool shapes : {false, true}) {
            checkInvariants(model, CallTreeOptions{python, shapes});
        }
    }
}

TEST(CallTreeSharedTraceTest, ResNetOperators) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "kineto-rn50-nw0__worker0.1623143089861.pt.trace.json.gz");
    auto loaded = core::loadTrace(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const core::TraceModel& model = loaded.value();
    checkInvariants(model, CallTreeOptions{});
    checkInvariants(model, CallTreeOptions{true, true});
    EXPECT_GT(buildTopDown(model).root().gpuNs, 0);
}

}  // namespace
}  // namespace chokepoint::calltree

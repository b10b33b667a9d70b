// The flat Ops table on models built in code.

#include <gtest/gtest.h>

#include <string_view>

#include "core/calltree/OpStats.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::calltree {
namespace {

using testutils::TraceBuilder;

const OpStatsRow* find(const core::TraceModel& model, const OpStatsTable& table, std::string_view name,
                       std::string_view shapes = {}) {
    for (const OpStatsRow& row : table.rows) {
        if (model.text(row.name) == name && (shapes.empty() || model.text(row.inputShapes) == shapes)) {
            return &row;
        }
    }
    return nullptr;
}

TEST(OpStatsTest, GroupsByNameAcrossPathsAndThreads) {
    TraceBuilder b;
    b.cpuOp("aten::linear", 0, 1000, 1, "[[4, 8]]");
    b.cpuOp("aten::addmm", 100, 900, 1, "[[4, 8], [8, 8]]");
    b.apiCall("cudaLaunchKernel", 200, 210, 1);
    b.kernel("gemm", 5000, 5600, 0, 7, 1);
    b.cpuOp("aten::addmm", 2000, 2200, 2, "[[2, 2], [2, 2]]");  // called from nothing, thread 2
    b.apiCall("cudaLaunchKernel", 2100, 2110, 2, /*tid=*/2);
    b.kernel("gemm", 6000, 6100, 0, 7, 2);
    const core::TraceModel model = b.build();

    const OpStatsTable table = buildOpStats(model);
    ASSERT_EQ(table.rows.size(), 2u);
    EXPECT_EQ(table.topLevelTotalNs, 1000 + 200);
    const OpStatsRow* addmm = find(model, table, "aten::addmm");
    ASSERT_NE(addmm, nullptr);
    EXPECT_EQ(addmm->calls, 2);
    EXPECT_EQ(addmm->selfNs, 1000);
    EXPECT_EQ(addmm->totalNs, 1000);
    EXPECT_EQ(addmm->gpuNs, 700);
    EXPECT_EQ(addmm->gpuSelfNs, 700);
    EXPECT_EQ(addmm->meanTotalNs(), 500);
    EXPECT_EQ(addmm->longestNs, 800);
    const OpStatsRow* linear = find(model, table, "aten::linear");
    ASSERT_NE(linear, nullptr);
    EXPECT_EQ(linear->selfNs, 200);
    EXPECT_EQ(linear->totalNs, 1000);
    EXPECT_EQ(linear->gpuNs, 600);
    EXPECT_EQ(linear->gpuSelfNs, 0);
    // Largest self time first.
    EXPECT_EQ(&table.rows[0], addmm);

    CallTreeOptions byShapes;
    byShapes.byInputShapes = true;
    const OpStatsTable shaped = buildOpStats(model, byShapes);
    ASSERT_EQ(shaped.rows.size(), 3u);
    const OpStatsRow* small = find(model, shaped, "aten::addmm", "[[2, 2], [2, 2]]");
    ASSERT_NE(small, nullptr);
    EXPECT_EQ(small->calls, 1);
    EXPECT_EQ(small->gpuNs, 100);
}

TEST(OpStatsTest, PythonFramesCanBeLeftOut) {
    TraceBuilder b;
    const core::CpuOpId frame = b.cpuOp("nn.Module: Linear_0", 0, 500);
    b.cpuOp("aten::linear", 100, 300);
    b.model().cpuOps.category[frame.index] = core::CpuOpCategory::PythonFunction;
    const core::TraceModel model = b.build();
    EXPECT_EQ(buildOpStats(model).rows.size(), 2u);
    CallTreeOptions noPython;
    noPython.includePython = false;
    const OpStatsTable table = buildOpStats(model, noPython);
    ASSERT_EQ(table.rows.size(), 1u);
    EXPECT_EQ(table.topLevelTotalNs, 200);
    EXPECT_EQ(table.rows[0].category, core::CpuOpCategory::Operator);
}

}  // namespace
}  // namespace chokepoint::calltree

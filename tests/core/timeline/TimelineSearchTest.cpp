#include <gtest/gtest.h>

#include "core/timeline/TimelineSearch.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::timeline {
namespace {

TEST(TimelineSearchTest, MatchesCaseInsensitiveSubstringsAcrossTables) {
    testutils::TraceBuilder b;
    b.kernel("ampere_sgemm_128x64", 300, 400);
    b.kernel("relu_kernel", 100, 200);
    b.kernel("SGEMM_splitk", 500, 600);
    b.cpuOp("aten::mm", 50, 700);
    b.range("gemm phase", 0, 1000);
    b.memcpy(core::MemcpyKind::HostToDevice, 64, 800, 900);
    core::TraceModel model = b.build();

    SearchResults gemm(model, "GEMM");
    ASSERT_EQ(gemm.size(), 3u);  // two kernels and the range
    EXPECT_EQ(gemm[0].ref.kind, EventKind::Range);
    EXPECT_EQ(gemm[1].startNs, 300);
    EXPECT_EQ(gemm[2].startNs, 500);

    SearchResults copies(model, "htod");
    ASSERT_EQ(copies.size(), 1u);
    EXPECT_EQ(copies[0].ref.kind, EventKind::Memcpy);

    EXPECT_TRUE(SearchResults(model, "no such thing").empty());
    EXPECT_TRUE(SearchResults(model, "").empty());
}

TEST(TimelineSearchTest, NextAndPreviousWrapAround) {
    testutils::TraceBuilder b;
    for (int i = 0; i < 5; ++i) {
        b.kernel("k", i * 100, i * 100 + 10);
    }
    core::TraceModel model = b.build();
    SearchResults hits(model, "k");
    ASSERT_EQ(hits.size(), 5u);
    EXPECT_EQ(hits.nextAfter(hits[1].startNs, hits[1].ref), 2u);
    EXPECT_EQ(hits.nextAfter(hits[4].startNs, hits[4].ref), 0u);  // wraps
    EXPECT_EQ(hits.previousBefore(hits[0].startNs, hits[0].ref), 4u);
    EXPECT_EQ(hits.previousBefore(hits[3].startNs, hits[3].ref), 2u);
    EXPECT_EQ(hits.nextAfter(250, {}), 3u);  // from an arbitrary time
    EXPECT_EQ(hits.indexOf(hits[2].startNs, hits[2].ref), 2u);
    EXPECT_EQ(hits.indexOf(7, {EventKind::Kernel, 99}), hits.size());
}

TEST(TimelineSearchTest, ContainsIgnoreCase) {
    EXPECT_TRUE(containsIgnoreCase("cudaLaunchKernel", "LAUNCH"));
    EXPECT_TRUE(containsIgnoreCase("x", ""));
    EXPECT_FALSE(containsIgnoreCase("abc", "abcd"));
}

}  // namespace
}  // namespace chokepoint::timeline

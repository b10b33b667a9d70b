#include "core/timeline/LaunchedWork.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::timeline {
namespace {

TEST(LaunchedWorkTest, FollowsFlowsBothWays) {
    testutils::TraceBuilder b;
    b.cpuOp("aten::linear", 0, 100);
    b.cpuOp("aten::relu", 200, 300);
    b.apiCall("cudaLaunchKernel", 10, 20, /*correlationId=*/1);
    b.apiCall("cudaLaunchKernel", 30, 40, 2);
    b.apiCall("cudaLaunchKernel", 210, 220, 3);
    b.kernel("gemm", 500, 600, 0, 7, 1);
    b.kernel("bias", 610, 620, 0, 7, 2);
    b.kernel("relu", 630, 640, 0, 7, 3);
    b.kernel("orphan", 700, 710, 0, 7, 0);
    const core::TraceModel model = b.build();

    const auto kernelNamed = [&](std::string_view name) {
        for (std::uint32_t i = 0; i < model.kernels.size(); ++i) {
            if (model.strings.view(model.kernels.name[i]) == name) {
                return EventRef{EventKind::Kernel, i};
            }
        }
        return EventRef{};
    };
    const auto opNamed = [&](std::string_view name) {
        for (std::uint32_t i = 0; i < model.cpuOps.size(); ++i) {
            if (model.strings.view(model.cpuOps.name[i]) == name) {
                return EventRef{EventKind::CpuOp, i};
            }
        }
        return EventRef{};
    };

    // Kernel -> launch call -> the same kernel.
    const EventRef gemm = kernelNamed("gemm");
    const EventRef call = launchCallOf(model, gemm);
    ASSERT_TRUE(call.valid());
    EXPECT_EQ(call.kind, EventKind::ApiCall);
    EXPECT_EQ(launchedWork(model, call), (std::vector<EventRef>{gemm}));
    EXPECT_FALSE(launchCallOf(model, kernelNamed("orphan")).valid());

    // An op launched the work of every call inside it, in start order.
    EXPECT_EQ(launchedWork(model, opNamed("aten::linear")),
              (std::vector<EventRef>{gemm, kernelNamed("bias")}));
    EXPECT_EQ(launchedWork(model, opNamed("aten::relu")), (std::vector<EventRef>{kernelNamed("relu")}));
    // Nothing for GPU work itself or an invalid reference.
    EXPECT_TRUE(launchedWork(model, gemm).empty());
    EXPECT_TRUE(launchedWork(model, EventRef{}).empty());
    EXPECT_TRUE(launchedWork(model, EventRef{EventKind::CpuOp, 99}).empty());
}

}  // namespace
}  // namespace chokepoint::timeline

#include "core/analysis/metrics/PhaseDetection.h"

#include <gtest/gtest.h>

#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

const Phase* find(const PhasesResult& r, std::int32_t step, PhaseKind kind) {
    for (const Phase& p : r.phases) {
        if (p.stepIndex == step && p.kind == kind) {
            return &p;
        }
    }
    return nullptr;
}

// One training step on the main thread (tid 1) and an autograd thread (tid 2):
//   0-100   DataLoader __next__, then the batch H2D copy launched at 105
//   120-300 forward: aten::addmm launches a GEMM
//   300-600 backward on the autograd thread: AddmmBackward0 launches a GEMM
//   620-700 Optimizer.step#SGD.step launches an update kernel; an NCCL all-reduce runs on stream 20
TEST(PhaseDetection, FindsDataForwardBackwardOptimizerAndCommunication) {
    TraceBuilder b;
    b.model().threadIndex(1, 2, "pt_autograd_0");
    b.range("ProfilerStep#1", 0, 1000);
    b.range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 100);
    b.apiCall("cudaMemcpyAsync", 105, 110, 1);
    b.memcpy(core::MemcpyKind::HostToDevice, 1 << 20, 112, 140, 0, 7, 1);
    b.cpuOp("aten::addmm", 120, 300);
    b.apiCall("cudaLaunchKernel", 130, 140, 2);
    b.kernel("ampere_sgemm_128x64_tn", 150, 290, 0, 7, 2);
    b.cpuOp("autograd::engine::evaluate_function: AddmmBackward0", 300, 600, 2);
    b.apiCall("cudaLaunchKernel", 310, 320, 3, 2);
    b.kernel("ampere_sgemm_64x64_nt", 330, 580, 0, 7, 3);
    b.cpuOp("Optimizer.step#SGD.step", 620, 700);
    b.apiCall("cudaLaunchKernel", 630, 640, 4);
    b.kernel("multi_tensor_apply_kernel", 650, 690, 0, 7, 4);
    b.kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 400, 620, 0, 20);
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    PhasesResult phases = detectPhases(model, steps);

    const Phase* data = find(phases, 0, PhaseKind::DataLoading);
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(data->cpuTimeNs, 100);
    EXPECT_EQ(data->gpuTimeNs, 28);  // the batch copy
    const Phase* forward = find(phases, 0, PhaseKind::Forward);
    ASSERT_NE(forward, nullptr);
    EXPECT_EQ(forward->cpuRanges.front(), (core::TimeRange{100, 300}));
    EXPECT_EQ(forward->gpuTimeNs, 140);
    const Phase* backward = find(phases, 0, PhaseKind::Backward);
    ASSERT_NE(backward, nullptr);
    EXPECT_EQ(backward->cpuTimeNs, 300);
    EXPECT_EQ(backward->gpuTimeNs, 250);
    const Phase* optimizer = find(phases, 0, PhaseKind::Optimizer);
    ASSERT_NE(optimizer, nullptr);
    EXPECT_EQ(optimizer->gpuTimeNs, 40);
    const Phase* comm = find(phases, 0, PhaseKind::Communication);
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(comm->gpuTimeNs, 220);
    EXPECT_EQ(comm->gpuEventCount, 1);
    for (bool seen : phases.seen) {
        EXPECT_TRUE(seen);
    }
    EXPECT_EQ(phases.kernelPhase.size(), model.kernels.size());
}

TEST(PhaseDetection, DataLoaderWorkerThreadsAreDataLoading) {
    TraceBuilder b;
    b.model().threadIndex(1, 5, "DataLoader worker 0");
    b.range("ProfilerStep#1", 0, 1000);
    b.cpuOp("aten::stack", 100, 400, 5);
    b.kernel("gemm", 500, 900);
    core::TraceModel model = b.build();
    PhasesResult phases = detectPhases(model, detectSteps(model));
    const Phase* data = find(phases, 0, PhaseKind::DataLoading);
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(data->cpuTimeNs, 300);
}

// A capture without CPU ops (the agent's, Nsight Systems'): the autograd thread's launches are
// backward, and forward runs from the step's start to the first of them. Before, backward was
// found from the launches but "no backward markers" left forward unsplit (and unreported).
TEST(PhaseDetection, LaunchesOnTheAutogradThreadSplitForwardFromBackward) {
    TraceBuilder b;
    b.model().threadIndex(1, 2, "pt_autograd_0");
    b.range("chokepoint:step#1", 0, 1000);
    b.apiCall("cudaLaunchKernel", 100, 110, 1);  // forward, main thread
    b.kernel("ampere_sgemm_128x64_tn", 120, 300, 0, 7, 1);
    b.apiCall("cudaLaunchKernel", 400, 410, 2, 2);  // backward, autograd thread
    b.kernel("ampere_sgemm_64x64_nt", 420, 800, 0, 7, 2);
    core::TraceModel model = b.build();
    PhasesResult phases = detectPhases(model, detectSteps(model));
    EXPECT_TRUE(phases.note.empty()) << phases.note;
    const Phase* forward = find(phases, 0, PhaseKind::Forward);
    ASSERT_NE(forward, nullptr);
    EXPECT_EQ(forward->gpuTimeNs, 180);
    const Phase* backward = find(phases, 0, PhaseKind::Backward);
    ASSERT_NE(backward, nullptr);
    EXPECT_EQ(backward->gpuTimeNs, 380);
}

// An attach capture loses the runtime API's launches (#21): only cuLaunchKernelEx calls join. A
// kernel without a launch between two kernels of one phase on its stream takes that phase (a
// stream runs kernels in issue order); one at a phase boundary, or with a launch outside every
// phase, stays unattributed.
TEST(PhaseDetection, KernelsWithoutALaunchTakeThePhaseAroundThemOnTheirStream) {
    TraceBuilder b;
    b.model().threadIndex(1, 2, "pt_autograd_0");
    b.range("chokepoint:step#1", 0, 2000);
    b.apiCall("cuLaunchKernelEx", 100, 110, 1);  // forward GEMM
    b.kernel("nvjet_gemm_a", 120, 200, 0, 7, 1);
    b.kernel("elementwise_no_launch", 200, 250, 0, 7, 0);  // between two forward kernels
    b.apiCall("cuLaunchKernelEx", 150, 160, 2);
    b.kernel("nvjet_gemm_b", 250, 400, 0, 7, 2);
    // Forward before it, backward after; it ran after the host's forward ended (800), so neither
    // the stream order nor the time it ran places it.
    b.kernel("elementwise_at_the_boundary", 805, 815, 0, 7, 0);
    b.kernel("other_stream_no_launch", 830, 840, 0, 9, 0);  // alone on its stream
    b.apiCall("cuLaunchKernelEx", 800, 810, 3, 2);          // backward, autograd thread
    b.kernel("nvjet_gemm_c", 820, 900, 0, 7, 3);
    core::TraceModel model = b.build();
    PhasesResult phases = detectPhases(model, detectSteps(model));
    auto phaseOf = [&](std::string_view name) {
        for (std::size_t i = 0; i < model.kernels.size(); ++i) {
            if (model.text(model.kernels.name[i]) == name) {
                return static_cast<int>(phases.kernelPhase[i]);
            }
        }
        return -2;
    };
    EXPECT_EQ(phaseOf("elementwise_no_launch"), static_cast<int>(PhaseKind::Forward));
    EXPECT_EQ(phaseOf("elementwise_at_the_boundary"), -1);
    EXPECT_EQ(phaseOf("other_stream_no_launch"), -1);
    const Phase* forward = find(phases, 0, PhaseKind::Forward);
    ASSERT_NE(forward, nullptr);
    EXPECT_EQ(forward->gpuTimeNs, 280);  // 120-400: both GEMMs and the kernel between them
    EXPECT_EQ(forward->gpuEventCount, 3);
}

TEST(PhaseDetection, WithoutBackwardMarkersForwardIsNotSplit) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 100);
    b.cpuOp("aten::mm", 10, 50);
    b.kernel("gemm", 20, 60);
    core::TraceModel model = b.build();
    PhasesResult phases = detectPhases(model, detectSteps(model));
    EXPECT_FALSE(phases.seen[static_cast<std::size_t>(PhaseKind::Forward)]);
    EXPECT_NE(phases.note.find("not split"), std::string::npos);
}

TEST(PhaseDetection, NameClassifiers) {
    EXPECT_TRUE(isDataLoadingName("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"));
    EXPECT_FALSE(isDataLoadingName("aten::mm"));
    EXPECT_TRUE(isBackwardOpName("autograd::engine::evaluate_function: ConvolutionBackward0"));
    EXPECT_TRUE(isBackwardOpName("aten::convolution_backward"));
    EXPECT_FALSE(isBackwardOpName("aten::addmm"));
    EXPECT_TRUE(isOptimizerName("Optimizer.step#AdamW.step"));
    EXPECT_TRUE(isOptimizerName("aten::_fused_adamw_"));
    EXPECT_TRUE(isCommunicationOpName("c10d::allreduce_"));
    EXPECT_TRUE(isCommunicationOpName("nccl:all_reduce"));
    EXPECT_TRUE(isCommunicationOpName("record_param_comms"));
    EXPECT_FALSE(isCommunicationOpName("aten::add"));
}

}  // namespace
}  // namespace chokepoint::analysis

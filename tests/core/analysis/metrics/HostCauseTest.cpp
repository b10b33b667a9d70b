// The host causes of GPU idle on small traces built in code: one ProfilerStep with two kernels and
// a 2 ms gap between them (100 us .. 2.1 ms), and host activity on the launching thread during the
// gap. Dispatch (dense launches) is LaunchOverhead; the same host busy without launches is
// HostWork with its frames named by exclusive time; compilation, checkpointing/logging/evaluation,
// garbage collection and input preparation in the main process get their own causes.

#include <gtest/gtest.h>

#include "core/analysis/metrics/GpuTimeAccounting.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;
constexpr core::TimestampNs kUs = 1'000;

struct Scenario {
    TraceBuilder b;
    GpuTimeAccountingResult result;
    Scenario() {
        b.range("ProfilerStep#1", 0, 3000 * kUs);
        b.apiCall("cudaLaunchKernel", 0, 5 * kUs, 1);
        b.kernel("ampere_sgemm_128x64_tn", 10 * kUs, 100 * kUs, 0, 7, 1);
        b.apiCall("cudaLaunchKernel", 2090 * kUs, 2095 * kUs, 2);
        b.kernel("ampere_sgemm_128x64_tn", 2100 * kUs, 3000 * kUs, 0, 7, 2);
    }
    IdleInterval gap() {
        core::TraceModel model = b.build();
        result = computeGpuTimeAccounting(model, detectSteps(model), computeKernelStats(model));
        m_names = std::move(model.strings);
        for (const IdleInterval& idle : result.idleIntervals) {
            if (idle.streamId < 0 && idle.range.startNs == 100 * kUs) {
                EXPECT_EQ(idle.range.endNs, 2100 * kUs);
                return idle;
            }
        }
        ADD_FAILURE() << "no idle interval at 100 us";
        return {};
    }
    std::string name(core::StringId id) const { return std::string(m_names.view(id)); }

private:
    core::StringPool m_names;
};

TEST(HostCause, DenseLaunchesAreLaunchOverhead) {
    Scenario s;
    // Eager dispatch: an op every 40 us, each launching a short kernel on another device.
    for (core::TimestampNs t = 100 * kUs; t + 40 * kUs <= 2090 * kUs; t += 40 * kUs) {
        s.b.cpuOp("aten::add", t, t + 38 * kUs);
        s.b.apiCall("cudaLaunchKernel", t + 30 * kUs, t + 36 * kUs);
    }
    const IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::LaunchOverhead);
    EXPECT_GT(idle.launchCount, 40);
    EXPECT_TRUE(s.result.hostWorkFrames.empty());
}

TEST(HostCause, HostBusyWithoutLaunchingIsHostWorkWithItsFrames) {
    Scenario s;
    // Python that launches nothing: an outer frame with two children; the first child takes most
    // of the exclusive time.
    s.b.cpuOp("train.py(88): training_step", 100 * kUs, 2085 * kUs);
    s.b.cpuOp("metrics.py(12): update_confusion_matrix", 150 * kUs, 1650 * kUs);
    s.b.cpuOp("<built-in method append of list object at 0x7f00>", 1700 * kUs, 1900 * kUs);
    const IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::HostWork);
    EXPECT_EQ(idle.launchCount, 1);  // only the next kernel's launch, at the end
    EXPECT_EQ(s.name(idle.evidence.name), "metrics.py(12): update_confusion_matrix");
    ASSERT_GE(s.result.hostWorkFrames.size(), 3u);
    // By exclusive time: the child 1.5 ms, the parent's own time ~0.28 ms, append 0.2 ms.
    EXPECT_EQ(s.name(s.result.hostWorkFrames[0].name), "metrics.py(12): update_confusion_matrix");
    EXPECT_NEAR(static_cast<double>(s.result.hostWorkFrames[0].exclusiveNs), 1500.0 * kUs, 50.0 * kUs);
    EXPECT_EQ(s.name(s.result.hostWorkFrames[1].name), "train.py(88): training_step");
    EXPECT_NEAR(static_cast<double>(s.result.hostWorkFrames[1].exclusiveNs), 285.0 * kUs, 70.0 * kUs);
    EXPECT_GE(s.result.perStep[0].idleByCauseNs[static_cast<std::size_t>(IdleCause::HostWork)], 2000 * kUs);
}

TEST(HostCause, ASparseLaunchDoesNotMakeHostWorkDispatch) {
    Scenario s;
    s.b.cpuOp("train.py(88): training_step", 100 * kUs, 2085 * kUs);
    s.b.apiCall("cudaLaunchKernel", 1000 * kUs, 1005 * kUs);  // one launch in the middle
    EXPECT_EQ(s.gap().cause, IdleCause::HostWork);
}

TEST(HostCause, Compilation) {
    Scenario s;
    s.b.cpuOp("torch/_dynamo/convert_frame.py(1045): _compile", 100 * kUs, 2085 * kUs);
    s.b.cpuOp("torch/_inductor/graph.py(1885): compile_to_module", 300 * kUs, 2000 * kUs);
    s.b.cpuOp("torch/fx/graph.py(700): python_code", 400 * kUs, 1900 * kUs);
    const IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::Compilation);
    EXPECT_EQ(s.name(idle.evidence.name), "torch/_inductor/graph.py(1885): compile_to_module");
}

TEST(HostCause, RunningCompiledCodeIsNotCompilation) {
    Scenario s;
    s.b.range("Torch-Compiled Region: 0/0", 100 * kUs, 2085 * kUs);
    s.b.cpuOp("torch/_dynamo/eval_frame.py(632): _fn", 100 * kUs, 2085 * kUs);
    EXPECT_EQ(s.gap().cause, IdleCause::HostWork);
}

TEST(HostCause, CheckpointingLoggingEvaluation) {
    for (const char* frame : {"torch/serialization.py(618): save", "wandb/sdk/wandb_run.py(1830): log",
                              "trainer.py(210): evaluate"}) {
        Scenario s;
        s.b.cpuOp(frame, 100 * kUs, 2085 * kUs);
        const IdleInterval idle = s.gap();
        EXPECT_EQ(idle.cause, IdleCause::Housekeeping) << frame;
        EXPECT_EQ(s.name(idle.evidence.name), frame);
    }
}

TEST(HostCause, GarbageCollection) {
    Scenario s;
    s.b.range("gc.collect", 100 * kUs, 2085 * kUs);
    EXPECT_EQ(s.gap().cause, IdleCause::GarbageCollection);
}

TEST(HostCause, InputPreparationInTheMainProcessIsWaitingForData) {
    for (const char* frame :
         {"torchvision/transforms/transforms.py(354): __call__", "PIL/Image.py(2164): resize",
          "transformers/tokenization_utils_base.py(2803): __call__",
          "torch/utils/data/_utils/collate.py(171): default_collate"}) {
        Scenario s;
        s.b.cpuOp("train.py(60): get_batch", 100 * kUs, 2085 * kUs);
        s.b.cpuOp(frame, 120 * kUs, 2000 * kUs);
        const IdleInterval idle = s.gap();
        EXPECT_EQ(idle.cause, IdleCause::DataWait) << frame;
        EXPECT_EQ(s.name(idle.evidence.name), frame);
    }
}

TEST(HostCause, TheDataWaitNamesWhatTheInputPipelineRan) {
    Scenario s;
    // DataLoader.__next__ in the main process (num_workers=0): its own Python (decode, transforms
    // the profiler did not record) takes most of the gap; collate (aten::stack) and the float
    // conversion (aten::to) run inside it.
    s.b.cpuOp("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 100 * kUs, 2085 * kUs);
    s.b.cpuOp("aten::stack", 1500 * kUs, 1800 * kUs);
    s.b.cpuOp("aten::to", 1850 * kUs, 1950 * kUs);
    const IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::DataWait);
    EXPECT_TRUE(s.result.hostWorkFrames.empty());
    ASSERT_EQ(s.result.dataWaitFrames.size(), 3u);
    // By exclusive time: __next__'s own 1.6 ms, stack 0.3 ms, to 0.1 ms (sampled at 64 points).
    EXPECT_EQ(s.name(s.result.dataWaitFrames[0].name),
              "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
    EXPECT_NEAR(static_cast<double>(s.result.dataWaitFrames[0].exclusiveNs), 1600.0 * kUs, 70.0 * kUs);
    EXPECT_EQ(s.name(s.result.dataWaitFrames[1].name), "aten::stack");
    EXPECT_NEAR(static_cast<double>(s.result.dataWaitFrames[1].exclusiveNs), 300.0 * kUs, 70.0 * kUs);
    EXPECT_EQ(s.name(s.result.dataWaitFrames[2].name), "aten::to");
    EXPECT_NEAR(static_cast<double>(s.result.dataWaitFrames[2].exclusiveNs), 100.0 * kUs, 70.0 * kUs);
}

TEST(HostCause, SynchronizationInsideAFrameStaysSynchronization) {
    Scenario s;
    s.b.cpuOp("train.py(88): training_step", 100 * kUs, 2085 * kUs);
    s.b.cpuOp("<built-in method item of Tensor object at 0x7f00>", 120 * kUs, 2080 * kUs);
    s.b.apiCall("cudaStreamSynchronize", 130 * kUs, 2070 * kUs);
    EXPECT_EQ(s.gap().cause, IdleCause::Synchronization);
}

TEST(HostCause, BroadcastTensorsIsNoCollective) {
    Scenario s;
    s.b.cpuOp("aten::broadcast_tensors", 100 * kUs, 2085 * kUs);
    const IdleInterval idle = s.gap();
    EXPECT_NE(idle.cause, IdleCause::Collective);
    EXPECT_EQ(idle.cause, IdleCause::LaunchOverhead);  // a framework op: the eager op stream
}

// Nsight Systems' MPI tracing writes each call as an NVTX range named after it: a rank blocked in
// MPI_Recv waits for communication; MPI_Init is start-up, not communication.
TEST(HostCause, MpiCallsThatMoveDataAreCommunication) {
    Scenario recv;
    recv.b.range("MPI_Recv", 100 * kUs, 2085 * kUs);
    const IdleInterval idle = recv.gap();
    EXPECT_EQ(idle.cause, IdleCause::Collective);
    EXPECT_EQ(recv.name(idle.evidence.name), "MPI_Recv");

    Scenario init;
    init.b.range("MPI_Init", 100 * kUs, 2085 * kUs);
    EXPECT_NE(init.gap().cause, IdleCause::Collective);
}

TEST(HostCause, SlowFrameworkOpsAreDispatchNotHostWork) {
    Scenario s;
    // A slow host: host-only framework ops of 300 us each between launches.
    for (core::TimestampNs t = 100 * kUs; t + 300 * kUs <= 2090 * kUs; t += 300 * kUs) {
        s.b.cpuOp("aten::empty", t, t + 290 * kUs);
    }
    EXPECT_EQ(s.gap().cause, IdleCause::LaunchOverhead);
}

}  // namespace
}  // namespace chokepoint::analysis

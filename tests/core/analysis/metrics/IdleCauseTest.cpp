// Each idle cause on a small synthetic trace: two GPU kernels with a 500 ns gap between them
// (100..600) inside one ProfilerStep, and host activity on the launching thread during the gap.

#include <gtest/gtest.h>

#include <vector>

#include "core/analysis/metrics/GpuTimeAccounting.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;

struct Scenario {
    TraceBuilder b;
    Scenario() {
        b.range("ProfilerStep#1", 0, 1000);
        b.apiCall("cudaLaunchKernel", 0, 5, 1);
        b.kernel("gemm_a", 10, 100, 0, 7, 1);
        b.apiCall("cudaLaunchKernel", 590, 595, 2);
        b.kernel("gemm_b", 600, 1000, 0, 7, 2);
    }
    // The one device-level idle interval in the gap.
    IdleInterval gap() {
        core::TraceModel model = b.build();
        StepsResult steps = detectSteps(model);
        GpuTimeAccountingResult r = computeGpuTimeAccounting(model, steps, computeKernelStats(model));
        m_names = std::move(model.strings);
        const IdleInterval* found = nullptr;
        for (const IdleInterval& idle : r.idleIntervals) {
            if (idle.streamId < 0 && idle.range.startNs == 100) {
                found = &idle;
            }
        }
        EXPECT_NE(found, nullptr);
        EXPECT_GE(r.perStep[0].idleByCauseNs[static_cast<std::size_t>(found->cause)], 500);
        return found != nullptr ? *found : IdleInterval{};
    }
    std::string name(core::StringId id) const { return std::string(m_names.view(id)); }

private:
    core::StringPool m_names;
};

TEST(IdleCause, WaitingForData) {
    Scenario s;
    s.b.range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 110, 580);
    IdleInterval idle = s.gap();
    EXPECT_EQ(idle.range, (core::TimeRange{100, 600}));
    EXPECT_EQ(idle.cause, IdleCause::DataWait);
    EXPECT_NEAR(idle.coverage, 470.0 / 500.0, 1e-9);
    EXPECT_EQ(idle.evidence.kind, IdleEvidence::Kind::Range);
    EXPECT_EQ(s.name(idle.evidence.name), "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
}

TEST(IdleCause, BlockingBatchUploadIsWaitingForData) {
    Scenario s;
    s.b.apiCall("cudaMemcpy", 100, 590, 77);
    s.b.memcpy(core::MemcpyKind::HostToDevice, 1 << 20, 600, 610, 0, 8, 77, core::MemoryKind::Pageable);
    IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::DataWait);
    EXPECT_EQ(s.name(idle.evidence.name), "cudaMemcpy");
}

TEST(IdleCause, Synchronization) {
    Scenario s;
    s.b.cpuOp("aten::item", 100, 590);
    s.b.cpuOp("aten::_local_scalar_dense", 101, 589);
    s.b.apiCall("cudaMemcpyAsync", 102, 110);
    s.b.apiCall("cudaStreamSynchronize", 110, 585);
    IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::Synchronization);
    EXPECT_EQ(idle.evidence.kind, IdleEvidence::Kind::ApiCall);  // innermost sync activity
    EXPECT_EQ(s.name(idle.evidence.name), "cudaStreamSynchronize");
}

TEST(IdleCause, LaunchOverhead) {
    Scenario s;
    // The CPU is busy dispatching: many small ops each with a launch of a short kernel elsewhere.
    for (int i = 0; i < 10; ++i) {
        core::TimestampNs t = 100 + i * 48;
        s.b.cpuOp("aten::add", t, t + 45);
        s.b.apiCall("cudaLaunchKernel", t + 30, t + 44);
    }
    IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::LaunchOverhead);
    EXPECT_EQ(idle.launchCount, 11);  // the ten plus the launch of gemm_b at 590
    EXPECT_GE(idle.coverage, 0.9);
}

TEST(IdleCause, WaitingOnHostCollective) {
    Scenario s;
    s.b.cpuOp("c10d::allreduce_", 100, 590);
    IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::Collective);
    EXPECT_EQ(s.name(idle.evidence.name), "c10d::allreduce_");
}

TEST(IdleCause, Unexplained) {
    Scenario s;
    s.b.cpuOp("aten::add", 100, 150);  // with gemm_b's launch, 11 % of the gap: below the 50 % threshold
    IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::Unexplained);
    EXPECT_NEAR(idle.coverage, 0.11, 1e-9);
}

TEST(IdleCause, ActivityOnOtherThreadsDoesNotExplainTheGap) {
    Scenario s;
    s.b.range("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 100, 600, /*tid=*/9);
    IdleInterval idle = s.gap();
    EXPECT_EQ(idle.cause, IdleCause::Unexplained);
}

TEST(IdleCause, StreamWaitsOnAnotherStreamOrCollective) {
    for (bool collective : {false, true}) {
        TraceBuilder b;
        b.range("ProfilerStep#1", 0, 1000);
        b.kernel("gemm", 0, 100, 0, 7);
        b.kernel("gemm", 500, 900, 0, 7);
        b.kernel("gemm", 950, 1000, 0, 7);
        b.kernel(collective ? "ncclKernel_AllReduce_RING_LL_Sum_float" : "copy_engine_work", 100, 500, 0, 20);
        core::TraceModel model = b.build();
        GpuTimeAccountingResult r =
            computeGpuTimeAccounting(model, detectSteps(model), computeKernelStats(model));
        const IdleInterval* wait = nullptr;
        for (const IdleInterval& idle : r.idleIntervals) {
            if (idle.streamId == 7 && idle.range.startNs == 100) {
                wait = &idle;
            }
        }
        ASSERT_NE(wait, nullptr);
        EXPECT_EQ(wait->range, (core::TimeRange{100, 500}));
        EXPECT_EQ(wait->cause, collective ? IdleCause::Collective : IdleCause::OtherStream);
        // The device itself was busy then: stream waits are not device idle time.
        EXPECT_EQ(r.perStep[0].idleNs, 50);
    }
}

// Queued waits, decided per gap: the kernel that ends the gap [100, 600) was launched at `launchAt`;
// the host runs a framework op through the gap (launch overhead, were the kernel not queued).
// Collective kernels, when asked for, run at the given ranges on another stream.
IdleInterval queuedGap(core::TimestampNs launchAt, std::vector<core::TimeRange> collectives) {
    TraceBuilder b;
    b.range("ProfilerStep#1", 0, 2000);
    b.apiCall("cudaLaunchKernel", 0, 5, 1);
    b.kernel("gemm_a", 10, 100, 0, 7, 1);
    b.apiCall("cudaLaunchKernel", launchAt, launchAt + 5, 2);
    b.kernel("gemm_b", 600, 1000, 0, 7, 2);
    b.cpuOp("aten::linear", 100, 590);
    std::int64_t correlation = 10;
    for (const core::TimeRange& c : collectives) {
        b.apiCall("cudaLaunchKernel", c.startNs - 8, c.startNs - 6, ++correlation);
        b.kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", c.startNs, c.endNs, 0, 9,
                 correlation);
    }
    core::TraceModel model = b.build();
    StepsResult steps = detectSteps(model);
    GpuTimeAccountingResult r = computeGpuTimeAccounting(model, steps, computeKernelStats(model));
    for (const IdleInterval& idle : r.idleIntervals) {
        if (idle.streamId < 0 && idle.range.startNs == 100) {
            EXPECT_EQ(idle.range.endNs, 600);
            return idle;
        }
    }
    ADD_FAILURE() << "no gap at 100";
    return {};
}

TEST(QueuedWait, QueuedWorkInsideTheCollectiveSpanWaitsOnCommunication) {
    const IdleInterval idle = queuedGap(50, {{20, 90}, {1000, 1100}});
    EXPECT_TRUE(idle.queued);
    EXPECT_EQ(idle.cause, IdleCause::Collective);
    EXPECT_EQ(idle.evidence.kind, IdleEvidence::Kind::Kernel);
}

// Counter-example: queued kernels and no collectives: not communication, and not the host either.
TEST(QueuedWait, QueuedWorkWithoutCollectivesIsNotCommunicationNorLaunchOverhead) {
    const IdleInterval idle = queuedGap(50, {});
    EXPECT_TRUE(idle.queued);
    EXPECT_EQ(idle.cause, IdleCause::Unexplained);
}

// Counter-example: collectives in the step, but the kernel after the gap was launched late, during
// the gap: the host was the limiter.
TEST(QueuedWait, CollectivesPresentButTheHostLaunchedLateIsLaunchOverhead) {
    const IdleInterval idle = queuedGap(590, {{20, 90}, {1000, 1100}});
    EXPECT_FALSE(idle.queued);
    EXPECT_EQ(idle.cause, IdleCause::LaunchOverhead);
}

// Counter-example: queued, collectives in the step, but only after the gap: the gap is outside the
// collective span, so it is not counted as a wait on communication.
TEST(QueuedWait, QueuedGapOutsideTheCollectiveSpanIsNotCommunication) {
    const IdleInterval idle = queuedGap(50, {{1000, 1100}, {1200, 1300}});
    EXPECT_TRUE(idle.queued);
    EXPECT_EQ(idle.cause, IdleCause::Unexplained);
}

}  // namespace
}  // namespace chokepoint::analysis

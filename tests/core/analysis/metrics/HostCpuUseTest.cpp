// What the host was doing during a GPU gap, from the threads' CPU use alone (the agent's "CPU %"
// counter tracks, one per thread): one ProfilerStep with two kernels and a 2 ms gap between them
// (100 us .. 2.1 ms) and no recorded host frames in the gap.

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "core/analysis/metrics/GpuTimeAccounting.h"
#include "tests/testutils/TraceBuilder.h"

namespace chokepoint::analysis {
namespace {

using testutils::TraceBuilder;
constexpr core::TimestampNs kUs = 1'000;

// A thread's CPU use at `percent`, sampled every 500 us over the step (a sample covers the
// interval since the previous one).
void cpuUse(TraceBuilder& b, std::int64_t pid, std::int64_t tid, std::string_view name, double percent) {
    b.model().threadIndex(pid, tid, name);
    core::CounterTrack track;
    track.name = "CPU %";
    track.unit = "%";
    track.pid = pid;
    track.tid = tid;
    for (core::TimestampNs t = 0; t <= 3000 * kUs; t += 500 * kUs) {
        track.timesNs.push_back(t);
        track.values.push_back(percent);
    }
    b.model().counters.push_back(std::move(track));
}

struct Gap {
    TraceBuilder b;
    core::TraceModel model;
    GpuTimeAccountingResult result;
    Gap() {
        b.range("ProfilerStep#1", 0, 3000 * kUs);
        b.apiCall("cudaLaunchKernel", 0, 5 * kUs, 1);  // thread (1, 1): the main thread
        b.kernel("ampere_sgemm_128x64_tn", 10 * kUs, 100 * kUs, 0, 7, 1);
        b.apiCall("cudaLaunchKernel", 2090 * kUs, 2095 * kUs, 2);
        b.kernel("ampere_sgemm_128x64_tn", 2100 * kUs, 3000 * kUs, 0, 7, 2);
    }
    const IdleInterval& idle() {
        model = b.build();
        result = computeGpuTimeAccounting(model, detectSteps(model), computeKernelStats(model));
        for (const IdleInterval& v : result.idleIntervals) {
            if (v.range.startNs == 100 * kUs) {
                return v;
            }
        }
        ADD_FAILURE() << "no gap from 100 us";
        return result.idleIntervals.front();
    }
    std::string threadName(std::uint32_t row) const {
        return row < model.threads.size() ? model.threads[row].name : std::string();
    }
};

TEST(HostCpuUse, TheMainThreadOnTheCpuIsHostTimeOnThatThread) {
    Gap g;
    cpuUse(g.b, 1, 1, "python3", 98);
    const IdleInterval& idle = g.idle();
    EXPECT_EQ(idle.cause, IdleCause::HostWork);
    ASSERT_EQ(idle.evidence.kind, IdleEvidence::Kind::Thread);
    EXPECT_EQ(g.model.threads[idle.evidence.row].tid, 1);
    ASSERT_FALSE(g.result.hostWorkFrames.empty());
    EXPECT_EQ(g.result.hostWorkFrames.front().thread, idle.evidence.row);
    EXPECT_EQ(g.result.hostWorkFrames.front().exclusiveNs, 2000 * kUs);
}

TEST(HostCpuUse, AThreadThatMostlyWaitsExplainsNothing) {
    Gap g;
    cpuUse(g.b, 1, 1, "python3", 10);
    EXPECT_EQ(g.idle().cause, IdleCause::Unexplained);
}

TEST(HostCpuUse, WorkersOnTheCpuWhileTheMainThreadWaitsIsTheInputPipeline) {
    Gap g;
    cpuUse(g.b, 1, 1, "python3", 3);
    cpuUse(g.b, 77, 77, "pt_data_worker", 100);
    const IdleInterval& idle = g.idle();
    EXPECT_EQ(idle.cause, IdleCause::DataWait);
    ASSERT_EQ(idle.evidence.kind, IdleEvidence::Kind::Thread);
    EXPECT_EQ(g.threadName(idle.evidence.row), "pt_data_worker");
    ASSERT_FALSE(g.result.dataWaitFrames.empty());
    EXPECT_EQ(g.result.dataWaitFrames.front().thread, idle.evidence.row);
}

TEST(HostCpuUse, BusyWorkersDoNotExplainAGapWhileTheMainThreadRuns) {
    Gap g;
    cpuUse(g.b, 1, 1, "python3", 100);
    cpuUse(g.b, 77, 77, "pt_data_worker", 100);  // prefetching, as workers always are
    EXPECT_EQ(g.idle().cause, IdleCause::HostWork);
}

TEST(HostCpuUse, RecordedActivityComesFirst) {
    Gap g;
    g.b.range("chokepoint:data", 150 * kUs, 2050 * kUs);  // the helper's wait for the next batch
    cpuUse(g.b, 1, 1, "python3", 100);
    const IdleInterval& idle = g.idle();
    EXPECT_EQ(idle.cause, IdleCause::DataWait);
    EXPECT_EQ(idle.evidence.kind, IdleEvidence::Kind::Range);
}

TEST(HostCpuUse, OnTheCpuWhileLaunchingIsDispatch) {
    Gap g;
    for (core::TimestampNs t = 150 * kUs; t < 2050 * kUs; t += 40 * kUs) {
        g.b.apiCall("cudaLaunchKernel", t, t + 5 * kUs, 0);
    }
    cpuUse(g.b, 1, 1, "python3", 100);
    EXPECT_EQ(g.idle().cause, IdleCause::LaunchOverhead);
}

// Exact switches (Nsight Systems' thread scheduling, core/import/NsysSchedReader.cpp): a switch at
// t is two samples at t, the state before and after, so a sample covers the time since the one
// before (here) and holds until the next one (the timeline) alike.
void switches(TraceBuilder& b, std::int64_t pid, std::int64_t tid, std::string_view name,
              std::vector<std::pair<core::TimestampNs, bool>> runningAfter) {
    b.model().threadIndex(pid, tid, name);
    core::CounterTrack track{"CPU %", "%", -1, pid, tid, {0}, {0}};
    bool running = false;
    for (auto [t, next] : runningAfter) {
        for (bool state : {running, next}) {
            track.timesNs.push_back(t);
            track.values.push_back(state ? 100 : 0);
        }
        running = next;
    }
    track.timesNs.push_back(3000 * kUs);
    track.values.push_back(running ? 100 : 0);
    b.model().counters.push_back(std::move(track));
}

TEST(HostCpuUse, ExactSwitchesPutTheThreadOnTheCpuWhereItRan) {
    // Switched in 300 us into the 2 ms gap and out 100 us before it ends: on the CPU 80 % of it.
    Gap on;
    switches(on.b, 1, 1, "python3", {{400 * kUs, true}, {2000 * kUs, false}});
    const IdleInterval& idle = on.idle();
    EXPECT_EQ(idle.cause, IdleCause::HostWork);
    EXPECT_NEAR(idle.coverage, 0.8, 1e-9);
    ASSERT_EQ(idle.evidence.kind, IdleEvidence::Kind::Thread);

    // The mirror image: waiting from 400 us to 2 ms, running only at the edges (20 %).
    Gap off;
    switches(off.b, 1, 1, "python3", {{50 * kUs, true}, {400 * kUs, false}, {2000 * kUs, true}});
    EXPECT_EQ(off.idle().cause, IdleCause::Unexplained);
}

}  // namespace
}  // namespace chokepoint::analysis

// The /proc sampler against threads and a child process with known CPU use.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "collectors/host/HostSampler.h"

namespace chokepoint::collectors {
namespace {

void spinFor(std::chrono::milliseconds d) {
    auto end = std::chrono::steady_clock::now() + d;
    volatile std::uint64_t x = 0;
    while (std::chrono::steady_clock::now() < end) {
        x = x + 1;
    }
}

const core::CounterTrack* trackFor(const core::TraceModel& m, std::int64_t pid, std::int64_t tid) {
    for (const auto& t : m.counters) {
        if (t.pid == pid && t.tid == tid) {
            return &t;
        }
    }
    return nullptr;
}

double meanOf(const core::CounterTrack& t) {
    double s = 0;
    for (double v : t.values) {
        s += v;
    }
    return t.values.empty() ? 0 : s / static_cast<double>(t.values.size());
}

std::int64_t threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::int64_t monoNs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// CPU time a track accounts for: each sample covers the interval since the previous one.
double integratedCpuMs(const core::CounterTrack& t, double firstIntervalMs) {
    double ms = 0;
    for (std::size_t k = 0; k < t.values.size(); ++k) {
        double intervalMs =
            k == 0 ? firstIntervalMs : static_cast<double>(t.timesNs[k] - t.timesNs[k - 1]) / 1e6;
        ms += t.values[k] / 100.0 * intervalMs;
    }
    return ms;
}

// The box is shared (2 cores, several builds): a spinning thread gets whatever share the scheduler
// gives it. So the checks compare the sampler with the thread's own CPU clock, not with 100 %.
TEST(HostSamplerTest, BusyThreadCpuMatchesItsOwnClockIdleThreadNearZero) {
    std::atomic<pid_t> busyTid{0}, idleTid{0};
    std::atomic<bool> stop{false};
    std::atomic<std::int64_t> busyCpuNs{0};
    std::thread busy([&] {
        busyTid = static_cast<pid_t>(::gettid());
        pthread_setname_np(pthread_self(), "cp-busy");
        while (!stop) {
            spinFor(std::chrono::milliseconds(2));
            busyCpuNs = threadCpuNs();
        }
    });
    std::thread idle([&] {
        idleTid = static_cast<pid_t>(::gettid());
        pthread_setname_np(pthread_self(), "cp-idle");
        while (!stop) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    while (busyTid == 0 || idleTid == 0 || busyCpuNs == 0) {
        std::this_thread::yield();
    }
    HostSampler::Options o;
    o.hz = 50;
    o.includeChildren = false;
    HostSampler sampler(o);
    std::int64_t cpu0 = busyCpuNs, wall0 = monoNs();
    sampler.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    sampler.stop();
    std::int64_t cpu1 = busyCpuNs, wall1 = monoNs();
    stop = true;
    busy.join();
    idle.join();

    core::TraceModel batch;
    sampler.drainInto(batch);
    const core::CounterTrack* b = trackFor(batch, ::getpid(), busyTid);
    const core::CounterTrack* i = trackFor(batch, ::getpid(), idleTid);
    ASSERT_NE(b, nullptr);
    ASSERT_NE(i, nullptr);
    // 50 Hz for 0.6 s: ~30 samples; an overloaded box may skip some, never more than the rate.
    EXPECT_GE(b->values.size(), 5u);
    EXPECT_LE(b->values.size(), 40u);
    EXPECT_EQ(b->unit, "%");
    double actualMs = static_cast<double>(cpu1 - cpu0) / 1e6;
    double sampledMs = integratedCpuMs(*b, 20.0);
    EXPECT_NEAR(sampledMs, actualMs, 0.35 * actualMs + 40.0)
        << "sampled " << sampledMs << " ms of CPU over " << static_cast<double>(wall1 - wall0) / 1e6 << " ms";
    EXPECT_LT(meanOf(*i), 5.0);
    EXPECT_GT(meanOf(*b), 5.0 * meanOf(*i));
    for (std::size_t k = 1; k < b->timesNs.size(); ++k) {
        EXPECT_GT(b->timesNs[k], b->timesNs[k - 1]);
    }
    bool named = false;
    for (const auto& t : batch.threads) {
        named = named || (t.tid == busyTid && t.name == "cp-busy");
    }
    EXPECT_TRUE(named);
    // A second drain returns only new samples (none).
    core::TraceModel again;
    sampler.drainInto(again);
    EXPECT_TRUE(again.counters.empty());
}

TEST(HostSamplerTest, ChildProcessIsFoundAndMeasured) {
    int ready[2], report[2];
    ASSERT_EQ(::pipe(ready), 0);
    ASSERT_EQ(::pipe(report), 0);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        // Spin for 400 ms of wall time, report the CPU time used, then wait to be killed.
        char c = 1;
        [[maybe_unused]] auto w = ::write(ready[1], &c, 1);
        spinFor(std::chrono::milliseconds(400));
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        std::int64_t ns = static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
        w = ::write(report[1], &ns, sizeof ns);
        ::pause();
        ::_exit(0);
    }
    char c;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    HostSampler::Options o;
    o.hz = 40;
    o.includeChildren = true;
    HostSampler sampler(o);
    sampler.start();
    std::int64_t childCpuNs = 0;
    ASSERT_EQ(::read(report[0], &childCpuNs, sizeof childCpuNs), static_cast<ssize_t>(sizeof childCpuNs));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sampler.stop();
    EXPECT_GE(sampler.trackedProcesses(), 2u);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    for (int fd : {ready[0], ready[1], report[0], report[1]}) {
        ::close(fd);
    }
    core::TraceModel batch;
    sampler.drainInto(batch);
    const core::CounterTrack* t = trackFor(batch, child, child);
    ASSERT_NE(t, nullptr);
    // The child's CPU before the sampler's baseline is not covered: allow that and jitter.
    double actualMs = static_cast<double>(childCpuNs) / 1e6;
    double sampledMs = integratedCpuMs(*t, 25.0);
    EXPECT_NEAR(sampledMs, actualMs, 0.3 * actualMs + 40.0);
    EXPECT_GT(sampledMs, 0.0);
}

TEST(HostSamplerTest, ExitedThreadsAreDroppedOnRescan) {
    HostSampler::Options o;
    o.includeChildren = false;
    o.rescanIntervalMs = 0;  // rescan every sample
    HostSampler sampler(o);
    sampler.sampleOnce(HostSampler::monotonicNowNs());
    std::size_t before = sampler.trackedThreads();
    std::thread t([] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sampler.sampleOnce(HostSampler::monotonicNowNs());
    EXPECT_EQ(sampler.trackedThreads(), before + 1);
    t.join();
    sampler.sampleOnce(HostSampler::monotonicNowNs());
    EXPECT_EQ(sampler.trackedThreads(), before);
}

TEST(HostSamplerTest, PendingSamplesAreBoundedAndDropsCounted) {
    HostSampler::Options o;
    o.includeChildren = false;
    o.maxPendingSamples = 3;
    HostSampler sampler(o);
    core::TimestampNs t = HostSampler::monotonicNowNs();
    for (int k = 0; k < 10; ++k) {
        sampler.sampleOnce(t + k * core::kNsPerMs);
    }
    EXPECT_GT(sampler.droppedSamples(), 0u);
    core::TraceModel batch;
    sampler.drainInto(batch);
    std::size_t total = 0;
    for (const auto& track : batch.counters) {
        total += track.values.size();
    }
    EXPECT_EQ(total, 3u);
}

}  // namespace
}  // namespace chokepoint::collectors

#pragma once
// Samples CPU use of every thread of a process and of its descendants (DataLoader workers,
// compiler subprocesses) from /proc, at a fixed rate on its own thread.
//
// Per thread it reads /proc/<pid>/task/<tid>/schedstat (ns on CPU, ns waiting on a run queue;
// falls back to stat utime+stime in clock ticks when schedstat is missing) through cached file
// descriptors, and turns two consecutive reads into "CPU %" (100 = one core busy) over the
// interval. Threads and child processes are rescanned every `rescanIntervalMs` (children from
// /proc/<pid>/task/<tid>/children, or a /proc scan of parent pids where that file does not exist). Costs a
// few µs per thread per sample (guide §6.1). Timestamps are CLOCK_MONOTONIC nanoseconds.
//
// Output: drainInto() appends one CounterTrack per thread ("CPU %", unit "%", pid/tid set) holding
// only the samples since the previous drain, and registers the threads with their names. Memory
// is bounded: at most `maxPendingSamples` samples wait for a drain; more are dropped and counted.

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/base/Time.h"
#include "core/model/TraceModel.h"

namespace chokepoint::collectors {

class HostSampler {
public:
    struct Options {
        pid_t rootPid = 0;  // 0 = this process
        int hz = 50;        // clamped to [1, 1000]
        bool includeChildren = true;
        int rescanIntervalMs = 250;  // new threads and child processes show up within this
        std::size_t maxPendingSamples = 1u << 20;
        std::string procRoot = "/proc";
    };

    explicit HostSampler(Options options);
    ~HostSampler();
    HostSampler(const HostSampler&) = delete;
    HostSampler& operator=(const HostSampler&) = delete;

    // Starts/stops the sampling thread (idempotent). stop() takes one last sample.
    void start();
    void stop();
    bool running() const { return m_thread.joinable(); }

    // One scan at `nowNs` (monotonic). The thread calls this; tests may call it directly.
    void sampleOnce(core::TimestampNs nowNs);

    // Moves pending samples into `batch` (see the file comment), dropping those taken before
    // `minTimeNs`. Thread-safe.
    void drainInto(core::TraceModel& batch, core::TimestampNs minTimeNs = 0);

    std::uint64_t droppedSamples() const { return m_dropped.load(); }
    std::size_t trackedThreads() const;
    std::size_t trackedProcesses() const;

    static core::TimestampNs monotonicNowNs();

private:
    struct ThreadState {
        pid_t pid = 0;
        pid_t tid = 0;
        int fd = -1;  // schedstat or stat
        bool schedstat = true;
        std::string name;
        std::int64_t lastCpuNs = -1;
        core::TimestampNs lastNs = 0;
        bool seen = false;  // found in the latest rescan
    };
    struct Pending {
        pid_t pid;
        pid_t tid;
        core::TimestampNs timeNs;
        double cpuPercent;
    };

    void rescan();
    void scanProcess(pid_t pid);
    std::vector<pid_t> descendants(pid_t root) const;
    bool readCpuNs(ThreadState& t, std::int64_t* cpuNs) const;
    void loop();

    Options m_options;
    mutable std::mutex m_mutex;  // guards m_threads, m_pending, m_names
    std::map<std::pair<pid_t, pid_t>, ThreadState> m_threads;
    std::vector<Pending> m_pending;
    std::map<std::pair<pid_t, pid_t>, std::string> m_names;  // names registered since the last drain
    std::vector<pid_t> m_processes;
    core::TimestampNs m_lastRescanNs = 0;
    std::atomic<std::uint64_t> m_dropped{0};

    std::thread m_thread;
    std::mutex m_wakeMutex;
    std::condition_variable m_wake;
    bool m_stop = false;
};

}  // namespace chokepoint::collectors

// Nsight Systems thread scheduling (SCHED_EVENTS, `nsys profile --cpuctxsw=process-tree`, the
// default on Linux): when each thread of the profiled processes was on a CPU (NsysImporter.h).
//
// Each thread of a process that did CUDA or NVTX work gets a "CPU %" counter track, the form the
// agent's /proc sampling takes (docs/COLLECTORS.md): 100 while the thread ran, 0 while it was
// switched out. The analysis reads GPU idle with a launching thread on the CPU as host work, and
// DataLoader threads on the CPU as the input pipeline, the same way for both sources.
//
// A switch at t is written as two samples at t, the state before and the state after. The analysis
// reads a sample as covering the time since the one before, the timeline as holding until the next
// one; with the pair both read the same intervals.
#include "core/import/NsysImporter.h"
#include "core/model/CounterSemantics.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace chokepoint::core::nsys {

namespace {

struct Switch {
    TimestampNs timeNs = 0;
    bool in = false;  // scheduled in (true) or out
};

// The thread's CPU track over `span` from its switches (sorted by time): empty when the thread never
// ran inside the span. Before its first switch a thread is in the state that switch leaves: running
// before a switch out, waiting before a switch in.
CounterTrack cpuTrack(const std::vector<Switch>& events, TimeRange span) {
    CounterTrack track;
    track.name = std::string(kThreadCpuTrack);
    track.unit = std::string(kThreadCpuUnit);
    track.deviceIndex = -1;
    bool running = !events.front().in;
    std::size_t i = 0;
    for (; i < events.size() && events[i].timeNs <= span.startNs; ++i) {
        running = events[i].in;
    }
    bool ranInSpan = running;
    auto sample = [&](TimestampNs timeNs) {
        track.timesNs.push_back(timeNs);
        track.values.push_back(running ? 100.0 : 0.0);
    };
    sample(span.startNs);
    for (; i < events.size() && events[i].timeNs < span.endNs; ++i) {
        if (events[i].in == running) {
            continue;  // a repeated switch in the same direction changes nothing
        }
        sample(events[i].timeNs);
        running = events[i].in;
        sample(events[i].timeNs);
        ranInSpan = ranInSpan || running;
    }
    sample(span.endNs);
    if (!ranInSpan) {
        return {};
    }
    return track;
}

}  // namespace

Status Importer::readThreadScheduling() {
    const std::string table = "SCHED_EVENTS";
    if (!m_db.hasTable(table)) {
        return Ok{};
    }
    // The processes whose threads matter: those that called CUDA, ran GPU work or wrote NVTX. A
    // system-wide capture schedules every process on the node; those stay out.
    std::set<std::int64_t> profiled;
    for (const auto* column : {&m_kernelPid, &m_memcpyPid, &m_memsetPid, &m_apiPid}) {
        for (std::int64_t pid : *column) {
            if (pid != 0) {
                profiled.insert(pid);
            }
        }
    }
    for (std::size_t i = 0; i < m_model.ranges.size(); ++i) {
        const ThreadIndex thread = m_model.ranges.thread[i];
        if (thread != kNoThread && thread < m_model.threads.size()) {
            profiled.insert(m_model.threads[thread].pid);
        }
    }
    if (profiled.empty()) {
        return Ok{};
    }
    Result<std::optional<Query>> q =
        select(table, {{{"start"}, true}, {{"isSchedIn"}, true}, {{"globalTid"}, true}}, {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    // The tracks keep to what the rest of the report covers (the CUDA calls, GPU work and NVTX
    // ranges): scheduling starts with the process, long before CUDA does, and would otherwise
    // stretch a whole-trace window over the interpreter's start-up and teardown.
    const TimeRange span = m_model.timeSpan();
    if (span.empty()) {
        return Ok{};
    }
    std::map<std::int64_t, std::vector<Switch>> byThread;  // globalTid -> its switches
    // A row without a usable time, direction or thread leaves a thread's track one switch short,
    // not GPU work lost: counted, the first one named.
    std::int64_t badRows = 0;
    std::string firstBad;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell start = readInt(st, 0);
        IntCell in = readInt(st, 1);
        IntCell globalTid = readInt(st, 2);
        const char* bad = !start.ok() || start.value < 0 ? "start"
                          : !in.ok()                     ? "isSchedIn"
                          : !globalTid.ok()              ? "globalTid"
                                                         : nullptr;
        if (bad != nullptr) {
            if (badRows++ == 0) {
                firstBad = "row " + std::to_string(row) + ": column " + bad;
            }
            return;
        }
        if (profiled.count(pidOf(globalTid.value)) == 0) {
            return;
        }
        byThread[globalTid.value].push_back({start.value, in.value != 0});
    });
    if (!s.ok()) {
        return s;
    }
    if (badRows > 0) {
        m_model.stats.add("import.nsys_bad_sched_row", Severity::Warning, badRows,
                          m_db.displayName() + ": table " + table + ": " + std::to_string(badRows) +
                              " rows without a usable start, isSchedIn or globalTid were dropped (first: " +
                              firstBad + "); the threads' CPU tracks miss those switches");
    }
    std::int64_t switches = 0;
    std::size_t tracks = 0;
    for (auto& [globalTid, events] : byThread) {
        std::stable_sort(events.begin(), events.end(),
                         [](const Switch& a, const Switch& b) { return a.timeNs < b.timeNs; });
        CounterTrack track = cpuTrack(events, span);
        if (track.timesNs.empty()) {
            continue;
        }
        track.pid = pidOf(globalTid);
        track.tid = tidOf(globalTid);
        switches += static_cast<std::int64_t>(events.size());
        ++tracks;
        threadFor(globalTid);  // the track's thread is in the thread table, named when ThreadNames had it
        m_model.counters.push_back(std::move(track));
    }
    if (switches > 0) {
        m_model.stats.add("import.nsys_thread_scheduling", Severity::Info, switches,
                          "thread switches imported from SCHED_EVENTS into " + std::to_string(tracks) +
                              " per-thread CPU tracks (on a CPU or not, for the profiled processes)");
    }
    return Ok{};
}

}  // namespace chokepoint::core::nsys

// Nsight Systems thread scheduling (SCHED_EVENTS): each thread of a profiled process becomes a
// "CPU %" counter track, 100 over the time it ran and 0 over the time it was switched out, cut to
// what the rest of the report covers. A switch is two samples at its time, before and after, so the
// analysis (a sample covers the time since the one before) and the timeline (a sample holds until
// the next) read the same intervals. Two of the shared real exports (nvFuser's report1 and Pipit's
// saxpy) have the table; these databases use the columns NVIDIA's exporter writes (start, cpu,
// isSchedIn, globalTid).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/import/NsysSqliteImporter.h"
#include "core/model/CounterSemantics.h"
#include "tests/core/import/NsysTestDb.h"

namespace chokepoint {
namespace {

using core::TraceModel;
using testutils::createDb;
using testutils::TempPath;

const core::CounterTrack* cpuTrack(const TraceModel& m, std::int64_t pid, std::int64_t tid) {
    for (const core::CounterTrack& t : m.counters) {
        if (t.pid == pid && t.tid == tid && core::isThreadCpuTrack(t)) {
            return &t;
        }
    }
    return nullptr;
}

// Process 77 launches on its main thread 77 from 2,000 to 20,000 ns: the span the report covers.
constexpr const char* kLaunchSql = R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'saxpy'), (2, 'cudaLaunchKernel_v7000'), (3, 'python3'), (4, 'pt_autograd_0');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (2000, 2500, 0, (77 << 24) | 77, 1, 2);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3000, 20000, 0, 7, 1, 77 << 24, 1);
)sql";

// Beside process 77's launches: its thread 78 and process 99 (not profiled: no CUDA, no NVTX) are
// only scheduled. The scheduling starts at 1,000 ns, before CUDA, and ends at 25,000 ns, after it.
constexpr const char* kSchedSql = R"sql(
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (4, 0, (77 << 24) | 78);
CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL, isSchedIn INTEGER NOT NULL,
  globalTid INTEGER);
INSERT INTO SCHED_EVENTS VALUES
  (1000, 3, 1, (77 << 24) | 77),
  (8000, 3, 1, (77 << 24) | 77),
  (5000, 3, 0, (77 << 24) | 77),
  (3000, 4, 0, (77 << 24) | 78),
  (15000, 4, 1, (77 << 24) | 78),
  (1500, 5, 1, (99 << 24) | 99),
  (25000, 5, 0, (99 << 24) | 99);
)sql";

TEST(NsysThreadScheduling, ThreadsOfProfiledProcessesGetCpuTracksCutToTheReport) {
    TempPath file(".sqlite");
    createDb(file.path(), std::string(kLaunchSql) + kSchedSql);
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    EXPECT_EQ(cpuTrack(m, 99, 99), nullptr);  // not a profiled process
    int tracks = 0;
    for (const core::CounterTrack& t : m.counters) {
        tracks += core::isThreadCpuTrack(t) ? 1 : 0;
    }
    EXPECT_EQ(tracks, 2);

    // The main thread: switched in at 1,000 (before the report's span), out at 5,000, in at 8,000
    // and running to the end.
    const core::CounterTrack* main = cpuTrack(m, 77, 77);
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->unit, "%");
    EXPECT_EQ(main->deviceIndex, -1);
    EXPECT_EQ(main->timesNs, (std::vector<core::TimestampNs>{2000, 5000, 5000, 8000, 8000, 20000}));
    EXPECT_EQ(main->values, (std::vector<double>{100, 100, 0, 0, 100, 100}));

    // Thread 78: running from before its first switch (out at 3,000), back in at 15,000.
    const core::CounterTrack* autograd = cpuTrack(m, 77, 78);
    ASSERT_NE(autograd, nullptr);
    EXPECT_EQ(autograd->timesNs, (std::vector<core::TimestampNs>{2000, 3000, 3000, 15000, 15000, 20000}));
    EXPECT_EQ(autograd->values, (std::vector<double>{100, 100, 0, 0, 100, 100}));
    bool named = false;
    for (const core::ThreadInfo& t : m.threads) {
        named = named || (t.pid == 77 && t.tid == 78 && t.name == "pt_autograd_0");
    }
    EXPECT_TRUE(named);

    // The tracks do not stretch the report: it still spans the CUDA call and the kernel.
    EXPECT_EQ(m.timeSpan().startNs, 2000);
    EXPECT_EQ(m.timeSpan().endNs, 20000);
    EXPECT_EQ(m.stats.count("import.nsys_thread_scheduling"), 5);  // the switches of process 77
}

TEST(NsysThreadScheduling, UnusableRowsAreCountedAndTheRestImported) {
    TempPath file(".sqlite");
    createDb(file.path(), std::string(kLaunchSql) + R"sql(
CREATE TABLE SCHED_EVENTS (start INTEGER, cpu INTEGER, isSchedIn INTEGER, globalTid INTEGER);
INSERT INTO SCHED_EVENTS VALUES
  (NULL, 3, 1, (77 << 24) | 77),
  ('soon', 3, 0, (77 << 24) | 77),
  (-5, 3, 0, (77 << 24) | 77),
  (4000, 3, NULL, (77 << 24) | 77),
  (6000, 3, 0, NULL),
  (9000, 3, 1, (77 << 24) | 77),
  (12000, 3, 0, (77 << 24) | 77);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    const core::CounterTrack* main = cpuTrack(m, 77, 77);
    ASSERT_NE(main, nullptr);
    EXPECT_EQ(main->timesNs, (std::vector<core::TimestampNs>{2000, 9000, 9000, 12000, 12000, 20000}));
    EXPECT_EQ(main->values, (std::vector<double>{0, 0, 100, 100, 0, 0}));
    // Counted, the first named with its place: a CPU track one switch short is not GPU work lost.
    EXPECT_EQ(m.stats.count("import.nsys_bad_sched_row"), 5);
    const core::TraceStat* stat = m.stats.find("import.nsys_bad_sched_row");
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, core::Severity::Warning);
    EXPECT_NE(stat->detail.find("SCHED_EVENTS: 5 rows"), std::string::npos) << stat->detail;
    EXPECT_NE(stat->detail.find("first: row 0: column start"), std::string::npos) << stat->detail;
}

TEST(NsysThreadScheduling, ReportsWithoutTheTableOrWithoutCudaHaveNoCpuTracks) {
    TempPath noTable(".sqlite");
    createDb(noTable.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'saxpy');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3000, 20000, 0, 7, 1, 77 << 24, 1);
)sql");
    auto plain = core::importNsysSqlite(noTable.path());
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_TRUE(plain.value().counters.empty());

    // Scheduling of processes that did nothing on the GPU: nothing to attach it to.
    TempPath schedOnly(".sqlite");
    createDb(schedOnly.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE SCHED_EVENTS (start INTEGER, cpu INTEGER, isSchedIn INTEGER, globalTid INTEGER);
INSERT INTO SCHED_EVENTS VALUES (1000, 3, 1, (77 << 24) | 77), (2000, 3, 0, (77 << 24) | 77);
)sql");
    auto bare = core::importNsysSqlite(schedOnly.path());
    ASSERT_TRUE(bare.ok()) << bare.error().message;
    EXPECT_TRUE(bare.value().counters.empty());
}

}  // namespace
}  // namespace chokepoint

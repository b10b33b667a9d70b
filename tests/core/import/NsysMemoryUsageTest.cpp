// Nsight Systems CUDA memory usage (nsys profile --cuda-memory-usage=true): allocations and frees of
// device memory become the GPU's memory track, a level the capacity check reads. None of the shared
// real exports has the table, so these databases use the columns and enum values NVIDIA's exporter
// writes (ENUM_CUDA_MEM_KIND and ENUM_CUDA_DEV_MEM_EVENT_OPER as in nvFuser's 2025.1 report1).

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

const core::CounterTrack* memoryTrack(const TraceModel& m, std::int16_t device) {
    for (const core::CounterTrack& t : m.counters) {
        if (t.deviceIndex == device && t.unit == "bytes") {
            return &t;
        }
    }
    return nullptr;
}

constexpr const char* kTable = R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER, deviceId INTEGER,
  contextId INTEGER, address INTEGER, pc INTEGER, bytes INTEGER, memKind INTEGER, memoryOperationType INTEGER,
  name INTEGER, correlationId INTEGER);
)sql";

TEST(NsysMemoryUsage, AllocationsAndFreesOfDeviceMemoryAreTheDevicesMemoryLevel) {
    TempPath file(".sqlite");
    createDb(file.path(), std::string(kTable) + R"sql(
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES
  (100, 42 << 24, 0, 1, 4096, 0, 2097152, 2, 0, 0, 1),
  (300, 42 << 24, 0, 1, 4096, 0, 2097152, 2, 1, 0, 3),
  (200, 42 << 24, 0, 1, 8192, 0, 20971520, 2, 0, 0, 2),
  (250, 42 << 24, 0, 1, 9000, 0, 4096, 1, 0, 0, 4),
  (260, 42 << 24, 1, 1, 9000, 0, 1048576, 5, 0, 0, 5),
  (270, 42 << 24, 0, 1, 9000, 0, NULL, 2, 0, 0, 6);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    const core::CounterTrack* gpu0 = memoryTrack(m, 0);
    ASSERT_NE(gpu0, nullptr);
    EXPECT_EQ(gpu0->name, core::kDeviceMemoryAllocatedTrack);
    EXPECT_EQ(gpu0->pid, 42);
    EXPECT_EQ(gpu0->timesNs,
              (std::vector<core::TimestampNs>{100, 200, 300}));  // sorted; pinned host left out
    EXPECT_EQ(gpu0->values, (std::vector<double>{2097152, 23068672, 20971520}));
    EXPECT_TRUE(core::isDeviceMemoryLevelTrack(*gpu0));
    const core::CounterTrack* gpu1 = memoryTrack(m, 1);  // device static memory counts
    ASSERT_NE(gpu1, nullptr);
    EXPECT_EQ(gpu1->values, (std::vector<double>{1048576}));
    EXPECT_EQ(m.stats.count("import.nsys_memory_usage"), 4);
    EXPECT_EQ(m.stats.count("import.nsys_host_memory_usage"), 1);
    const core::TraceStat* bad = m.stats.find("import.nsys_bad_memory_row");
    ASSERT_NE(bad, nullptr);
    EXPECT_NE(bad->detail.find("first: row 5: column bytes"), std::string::npos) << bad->detail;
}

// A capture that began after the process allocated (nsys --delay, a capture range) frees memory it
// never saw allocated: its sum is a change from an unknown start, never the job's peak.
TEST(NsysMemoryUsage, FreesOfMemoryAllocatedBeforeTheCaptureMakeItAChangeOnly) {
    TempPath file(".sqlite");
    createDb(file.path(), std::string(kTable) + R"sql(
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES
  (100, 42 << 24, 0, 1, 4096, 0, 8388608, 2, 1, 0, 1),
  (200, 42 << 24, 0, 1, 8192, 0, 2097152, 2, 0, 0, 2);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const core::CounterTrack* gpu0 = memoryTrack(result.value(), 0);
    ASSERT_NE(gpu0, nullptr);
    EXPECT_EQ(gpu0->name, core::kMemoryAllocatedChangeTrack);
    EXPECT_FALSE(core::isDeviceMemoryLevelTrack(*gpu0));
    EXPECT_EQ(result.value().stats.count("import.nsys_memory_before_capture"), 1);
}

}  // namespace
}  // namespace chokepoint

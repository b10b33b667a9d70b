// Nsight Systems SQLite importer against bad input: every case gives a clear error naming the file
// (and the table/row or byte where it applies) or loads with the problem counted in TraceStats.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "core/import/NsysSqliteImporter.h"
#include "tests/core/import/NsysTestDb.h"
#include "tests/testutils/SharedTraces.h"

namespace chokepoint {
namespace {

using testutils::createDb;
using testutils::readBytes;
using testutils::TempPath;
using testutils::writeBytes;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST(NsysCorruptInput, ZeroByteFile) {
    TempPath file(".sqlite");
    writeBytes(file.path(), {});
    auto result = core::importNsysSqlite(file.path());
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(contains(result.error().message, file.path())) << result.error().message;
    EXPECT_TRUE(contains(result.error().message, "empty")) << result.error().message;
}

TEST(NsysCorruptInput, MissingFileAndDirectory) {
    auto missing = core::importNsysSqlite("/nonexistent/chokepoint/x.sqlite");
    ASSERT_FALSE(missing.ok());
    EXPECT_TRUE(contains(missing.error().message, "/nonexistent/chokepoint/x.sqlite"));
    TempPath dir("-dir");
    std::filesystem::create_directory(dir.path());
    auto directory = core::importNsysSqlite(dir.path());
    ASSERT_FALSE(directory.ok());
    EXPECT_TRUE(contains(directory.error().message, dir.path())) << directory.error().message;
}

TEST(NsysCorruptInput, NotSqlite) {
    TempPath file(".sqlite");
    std::string json = "{\"traceEvents\": []}";
    writeBytes(file.path(), std::vector<unsigned char>(json.begin(), json.end()));
    auto result = core::importNsysSqlite(file.path());
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(contains(result.error().message, file.path()));
    EXPECT_TRUE(contains(result.error().message, "byte 0: not an SQLite database")) << result.error().message;

    std::vector<unsigned char> text(4096, 'x');
    auto bytes = core::importNsysSqliteBytes(text.data(), text.size(), "junk.bin");
    ASSERT_FALSE(bytes.ok());
    EXPECT_TRUE(contains(bytes.error().message, "junk.bin"));
}

TEST(NsysCorruptInput, TruncatedDatabase) {
    TempPath full(".sqlite");
    createDb(full.path(), testutils::newerSchemaSql());
    std::vector<unsigned char> bytes = readBytes(full.path());
    ASSERT_GT(bytes.size(), 8192u);
    for (std::size_t keep : {std::size_t{50}, std::size_t{100}, bytes.size() / 2, bytes.size() - 1}) {
        TempPath cut(".sqlite");
        writeBytes(cut.path(), std::vector<unsigned char>(bytes.begin(), bytes.begin() + keep));
        auto result = core::importNsysSqlite(cut.path());
        ASSERT_FALSE(result.ok()) << "kept " << keep << " bytes";
        EXPECT_TRUE(contains(result.error().message, cut.path()));
        if (keep >= 100) {
            EXPECT_TRUE(contains(result.error().message, "truncated")) << result.error().message;
        }
    }
}

TEST(NsysCorruptInput, TruncatedRealExport) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, "pipit-nsys__saxpy-mpi-cuda_nsys_perlmutter0.sqlite");
    std::vector<unsigned char> bytes = readBytes(path);
    bytes.resize(bytes.size() * 2 / 3);
    auto result = core::importNsysSqliteBytes(bytes.data(), bytes.size(), "cut.sqlite");
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(contains(result.error().message, "cut.sqlite: truncated database")) << result.error().message;
}

TEST(NsysCorruptInput, UnrelatedTables) {
    TempPath file(".sqlite");
    createDb(file.path(), "CREATE TABLE users (id INTEGER, name TEXT); INSERT INTO users VALUES (1, 'a');");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_FALSE(result.ok());
    EXPECT_TRUE(contains(result.error().message, "not an Nsight Systems export")) << result.error().message;
}

TEST(NsysCorruptInput, ViewsAndVirtualTablesAreNotRead) {
    // A hostile file could define a kernel "table" as a view with an endless recursive query.
    TempPath file(".sqlite");
    createDb(file.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS
  WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x AS start, x AS end FROM c;
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->kernels.size(), 0u);
    EXPECT_GE(result->stats.count("import.nsys_missing_table"), 1);
}

TEST(NsysCorruptInput, WrongTypesAndNulls) {
    TempPath file(".sqlite");
    createDb(file.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'k');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId, correlationId, demangledName, gridX);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (100, 200, 0, 7, 1, 1, 4),             -- good
  ('abc', 200, 0, 7, 2, 1, 4),           -- start is text: dropped
  (100, NULL, 0, 7, 3, 1, 4),            -- end is NULL: dropped
  (100, 200, 99999, 7, 4, 1, 4),         -- impossible device: dropped
  (100, 200, NULL, 7, 5, 1, 'x'),        -- device NULL -> 0; gridX text -> 0, counted
  (300, 250, 0, 7, 6, 99, 1e300),        -- end before start: clamped; unknown string id; huge REAL
  (400.0, 500.5, 0, 7, 7, X'00', 2),     -- REAL start accepted when integral; non-integral end: dropped
  (9223372036854775807, -9223372036854775808, 0, 7, 8, NULL, NULL); -- extremes: clamped, unnamed
CREATE TABLE NVTX_EVENTS (start, end, eventType, text, textId, globalTid, domainId);
INSERT INTO NVTX_EVENTS VALUES (NULL, 5, 59, 'x', NULL, 1, 0), (1, 5, 'push', 'y', NULL, 1, 0),
  (1, 5, 59, X'FFFE', 999, 1, 0), (1, 5, 1234, 'other', NULL, 1, 0);
CREATE TABLE TARGET_INFO_GPU (id, name, smCount, totalMemory);
INSERT INTO TARGET_INFO_GPU VALUES ('zero', 'bad id', 1, 1), (0, X'41', 'many', -5);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const core::TraceModel& m = result.value();
    EXPECT_EQ(m.kernels.size(), 4u);
    // start text, end NULL, device 99999, non-integral end; NVTX NULL start and text eventType;
    // TARGET_INFO_GPU text id.
    EXPECT_EQ(m.stats.count("import.nsys_bad_row"), 7);
    const core::TraceStat* bad = m.stats.find("import.nsys_bad_row");
    ASSERT_NE(bad, nullptr);
    EXPECT_TRUE(contains(bad->detail, file.path()));
    EXPECT_TRUE(contains(bad->detail, "table TARGET_INFO_GPU: row 0: column id is not an integer"))
        << bad->detail;
    EXPECT_GE(m.stats.count("import.nsys_bad_value"), 3);  // gridX 'x', gridX 1e300, smCount, totalMemory
    EXPECT_EQ(m.stats.count("import.negative_duration_clamped"), 2);
    EXPECT_EQ(m.stats.count("import.nsys_unknown_string_id"), 2);  // kernel 99, NVTX textId 999 not used
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        EXPECT_GE(m.kernels.endNs[i], m.kernels.startNs[i]);
    }
    EXPECT_EQ(m.ranges.size(), 1u);
    EXPECT_EQ(m.stats.count("import.nsys_nvtx_other_events"), 1);
    ASSERT_EQ(m.devices.size(), 1u);
    EXPECT_EQ(m.devices[0].smCount, 0);
    EXPECT_EQ(m.devices[0].totalMemoryBytes, 0);
}

TEST(NsysCorruptInput, MissingRequiredColumnSkipsTable) {
    TempPath file(".sqlite");
    createDb(file.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (begin INTEGER, finish INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    EXPECT_EQ(result->kernels.size(), 0u);
    const core::TraceStat* stat = result->stats.find("import.nsys_missing_column");
    ASSERT_NE(stat, nullptr);
    EXPECT_EQ(stat->severity, core::Severity::DataLoss);
    EXPECT_TRUE(contains(stat->detail, "CUPTI_ACTIVITY_KIND_KERNEL has no column start")) << stat->detail;
}

TEST(NsysCorruptInput, RandomByteDamageNeverCrashes) {
    TempPath file(".sqlite");
    createDb(file.path(), testutils::newerSchemaSql());
    const std::vector<unsigned char> original = readBytes(file.path());
    std::mt19937 rng(12345);
    int errors = 0;
    int loads = 0;
    for (int iteration = 0; iteration < 300; ++iteration) {
        std::vector<unsigned char> bytes = original;
        int flips = 1 + static_cast<int>(rng() % 16);
        for (int f = 0; f < flips; ++f) {
            // Keep the first 100 bytes sometimes, so damage reaches the pages behind the header.
            std::size_t lo = iteration % 2 ? 100 : 0;
            std::size_t at = lo + rng() % (bytes.size() - lo);
            bytes[at] = static_cast<unsigned char>(rng());
        }
        auto result = core::importNsysSqliteBytes(bytes.data(), bytes.size(), "damaged.sqlite");
        if (result.ok()) {
            ++loads;
            for (std::size_t i = 0; i < result->kernels.size(); ++i) {
                EXPECT_GE(result->kernels.endNs[i], result->kernels.startNs[i]);
            }
        } else {
            ++errors;
            EXPECT_TRUE(contains(result.error().message, "damaged.sqlite")) << result.error().message;
        }
    }
    EXPECT_EQ(errors + loads, 300);
}

}  // namespace
}  // namespace chokepoint

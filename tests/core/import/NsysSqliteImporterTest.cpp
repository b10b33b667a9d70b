// Nsight Systems SQLite importer: the real pipit export (schema 2.9, skipped when absent) checked
// against independent SQL counts, and a newer-schema (3.x) export built in the test.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/import/NsysSqliteImporter.h"
#include "tests/core/import/NsysTestDb.h"
#include "tests/testutils/SharedTraces.h"

namespace chokepoint {
namespace {

using core::ApiDomain;
using core::MemcpyKind;
using core::MemoryKind;
using core::RangeSource;
using core::SyncKind;
using core::TraceModel;
using testutils::createDb;
using testutils::queryInt;
using testutils::TempPath;

constexpr const char* kPipit = "pipit-nsys__saxpy-mpi-cuda_nsys_perlmutter0.sqlite";

std::string apiName(const TraceModel& m, core::ApiCallId id) {
    return id.valid() ? std::string(m.text(m.apiCalls.name[id.index])) : std::string("<none>");
}

const std::string* note(const TraceModel& m, const std::string& key) {
    for (const auto& [k, v] : m.metadata.notes) {
        if (k == key) {
            return &v;
        }
    }
    return nullptr;
}

TEST(NsysSqliteImporter, PipitCountsMatchIndependentSql) {
    CHOKEPOINT_REQUIRE_SHARED_TRACE(path, kPipit);
    auto result = core::importNsysSqlite(path);
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    EXPECT_TRUE(m.finalized());

    EXPECT_EQ(static_cast<std::int64_t>(m.kernels.size()),
              queryInt(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_EQ(static_cast<std::int64_t>(m.memcpys.size()),
              queryInt(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
    EXPECT_EQ(static_cast<std::int64_t>(m.memsets.size()),
              queryInt(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"));
    // Backtrace duplicates (eventClass 67) are not calls of their own.
    EXPECT_EQ(static_cast<std::int64_t>(m.apiCalls.size()),
              queryInt(path,
                       "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass IS NULL OR "
                       "eventClass != 67"));
    EXPECT_EQ(m.stats.count("import.nsys_backtrace_rows_skipped"),
              queryInt(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 67"));
    EXPECT_EQ(static_cast<std::int64_t>(m.ranges.size()),
              queryInt(path, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60, 70, 71)"));
    EXPECT_EQ(static_cast<std::int64_t>(m.syncs.size()),
              queryInt(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));

    // The README's figures: 5 saxpy kernels (88.6 ms), 15 memcpys (3.9 GB), A100-SXM4-40GB.
    EXPECT_EQ(m.kernels.size(), 5u);
    EXPECT_EQ(m.memcpys.size(), 15u);
    std::int64_t kernelNs = 0;
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        kernelNs += m.kernels.durationNs(i);
        EXPECT_NE(m.text(m.kernels.name[i]).find("saxpy"), std::string_view::npos);
        EXPECT_EQ(m.kernels.gridX[i], 2);
        EXPECT_EQ(m.kernels.blockX[i], 512);
        EXPECT_EQ(apiName(m, m.kernels.launchCall[i]), "cudaLaunchKernel");
    }
    EXPECT_EQ(kernelNs, queryInt(path, "SELECT SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
    EXPECT_NEAR(static_cast<double>(kernelNs) / 1e6, 88.6, 0.05);
    std::int64_t bytes = 0;
    int h2d = 0;
    int d2h = 0;
    for (std::size_t i = 0; i < m.memcpys.size(); ++i) {
        bytes += m.memcpys.sizeBytes[i];
        h2d += m.memcpys.kind[i] == MemcpyKind::HostToDevice;
        d2h += m.memcpys.kind[i] == MemcpyKind::DeviceToHost;
        if (m.memcpys.kind[i] == MemcpyKind::HostToDevice) {
            EXPECT_EQ(m.memcpys.srcKind[i], MemoryKind::Pageable);
            EXPECT_EQ(m.memcpys.dstKind[i], MemoryKind::Device);
        }
        EXPECT_EQ(apiName(m, m.memcpys.launchCall[i]), "cudaMemcpy");
    }
    EXPECT_EQ(bytes, queryInt(path, "SELECT SUM(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
    EXPECT_NEAR(static_cast<double>(bytes) / 1e9, 3.9, 0.05);
    EXPECT_EQ(h2d, queryInt(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1"));
    EXPECT_EQ(d2h, queryInt(path, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 2"));

    ASSERT_EQ(m.devices.size(), 1u);
    EXPECT_EQ(m.devices[0].name, "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(m.devices[0].smCount, 108);
    EXPECT_EQ(m.devices[0].computeMajor, 8);
    EXPECT_EQ(m.devices[0].computeMinor, 0);
    EXPECT_EQ(m.devices[0].totalMemoryBytes, queryInt(path, "SELECT totalMemory FROM TARGET_INFO_GPU"));
    EXPECT_EQ(m.devices[0].warpSize, 32);
    EXPECT_EQ(m.devices[0].maxThreadsPerSm, 2048);

    // NVTX ranges of the "MPI" domain, on the thread that NVTX named "MPI Rank 0" (pid 1230493).
    std::size_t mpiDomain = 0;
    for (std::size_t i = 0; i < m.ranges.size(); ++i) {
        EXPECT_EQ(m.ranges.source[i], RangeSource::Nvtx);
        mpiDomain += m.text(m.ranges.domain[i]) == "MPI";
        ASSERT_NE(m.ranges.thread[i], core::kNoThread);
        EXPECT_EQ(m.threads[m.ranges.thread[i]].pid, 1230493);
        EXPECT_EQ(m.threads[m.ranges.thread[i]].name, "MPI Rank 0");
    }
    EXPECT_EQ(static_cast<std::int64_t>(mpiDomain),
              queryInt(path, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 59 AND domainId = 1"));
    ASSERT_FALSE(m.processes.empty());
    EXPECT_EQ(m.processes[0].pid, 1230493);
    EXPECT_EQ(m.processes[0].name, "./saxpy-mpi-cuda");

    EXPECT_EQ(m.metadata.sourceFormat, "nsys-sqlite");
    EXPECT_EQ(m.metadata.producer, "Nsight Systems 2022.2.1.31");
    ASSERT_NE(note(m, "nsys.schemaVersion"), nullptr);
    EXPECT_EQ(*note(m, "nsys.schemaVersion"), "2.9.1");
    EXPECT_EQ(m.metadata.hostName, "nid001608");
    EXPECT_EQ(m.metadata.captureStartUnixNs, 1687813257637297504);
    EXPECT_FALSE(m.stats.hasAtLeast(core::Severity::DataLoss));
}

TEST(NsysSqliteImporter, NewerSchemaMapsEveryTable) {
    TempPath file(".sqlite");
    createDb(file.path(), testutils::newerSchemaSql());
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();

    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_EQ(m.text(m.kernels.name[0]), "void gemm_kernel<float>(float*, int)");
    EXPECT_EQ(m.kernels.gridX[0], 264);
    EXPECT_EQ(m.kernels.gridY[0], 2);
    EXPECT_EQ(m.kernels.blockX[0], 256);
    EXPECT_EQ(m.kernels.registersPerThread[0], 128);
    EXPECT_EQ(m.kernels.staticSharedBytes[0], 4096);
    EXPECT_EQ(m.kernels.dynamicSharedBytes[0], 8192);
    EXPECT_EQ(m.kernels.streamId[0], 7);
    EXPECT_EQ(apiName(m, m.kernels.launchCall[0]), "cudaLaunchKernel");  // "_v7000" removed
    EXPECT_EQ(m.kernels.deviceIndex[1], 1);
    EXPECT_EQ(apiName(m, m.kernels.launchCall[1]), "cuLaunchKernel");
    EXPECT_EQ(m.apiCalls.domain[m.kernels.launchCall[1].index], ApiDomain::Driver);

    // The backtrace duplicate (eventClass 67) is skipped.
    EXPECT_EQ(m.apiCalls.size(), 5u);
    EXPECT_EQ(m.stats.count("import.nsys_backtrace_rows_skipped"), 1);

    ASSERT_EQ(m.memcpys.size(), 1u);
    EXPECT_EQ(m.memcpys.kind[0], MemcpyKind::HostToDevice);
    EXPECT_EQ(m.memcpys.srcKind[0], MemoryKind::Pinned);
    EXPECT_EQ(m.memcpys.dstKind[0], MemoryKind::Device);
    EXPECT_EQ(m.memcpys.sizeBytes[0], 1048576);
    EXPECT_EQ(apiName(m, m.memcpys.launchCall[0]), "cudaMemcpyAsync");
    ASSERT_EQ(m.memsets.size(), 1u);
    EXPECT_EQ(m.memsets.memoryKind[0], MemoryKind::Device);
    EXPECT_EQ(m.memsets.sizeBytes[0], 4096);
    EXPECT_EQ(apiName(m, m.memsets.launchCall[0]), "cudaMemsetAsync");

    ASSERT_EQ(m.syncs.size(), 1u);
    EXPECT_EQ(m.syncs.kind[0], SyncKind::StreamSynchronize);
    EXPECT_EQ(apiName(m, m.syncs.apiCall[0]), "cudaStreamSynchronize");
    ASSERT_NE(m.syncs.thread[0], core::kNoThread);
    EXPECT_EQ(m.threads[m.syncs.thread[0]].tid, 4242);

    // CUDA ordinals 0 and 1 map to GPU ids 5 and 3 through TARGET_INFO_CUDA_DEVICE.
    ASSERT_EQ(m.devices.size(), 2u);
    for (const core::DeviceInfo& d : m.devices) {
        EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
        EXPECT_EQ(d.smCount, 132);
        EXPECT_EQ(d.computeMajor, 9);
        EXPECT_EQ(d.totalMemoryBytes, 85520809984);
        EXPECT_EQ(d.coreClockKhz, 1980000);
        EXPECT_EQ(d.maxThreadsPerSm, 2048);
    }
    EXPECT_EQ(m.devices[0].deviceIndex, 0);
    EXPECT_EQ(m.devices[1].deviceIndex, 1);
    ASSERT_NE(note(m, "nsys.gpu0.memoryBandwidthBytesPerSecond"), nullptr);
    EXPECT_EQ(*note(m, "nsys.gpu0.memoryBandwidthBytesPerSecond"), "3352320000000");

    // NVTX: push/pop with a registered string, start/end in domain "torch", a mark, an open range.
    ASSERT_EQ(m.ranges.size(), 4u);
    EXPECT_EQ(m.text(m.ranges.name[0]), "ProfilerStep#1");
    EXPECT_EQ(m.ranges.endNs[0], 9500);
    EXPECT_EQ(m.text(m.ranges.name[1]), "forward");
    EXPECT_EQ(m.text(m.ranges.domain[1]), "torch");
    EXPECT_EQ(m.ranges.depth[1], 1);
    EXPECT_EQ(m.text(m.ranges.name[2]), "checkpoint");
    EXPECT_EQ(m.ranges.startNs[2], m.ranges.endNs[2]);
    EXPECT_EQ(m.text(m.ranges.name[3]), "unfinished");
    EXPECT_EQ(m.stats.count("import.nsys_nvtx_open_range"), 1);
    ASSERT_NE(m.ranges.thread[0], core::kNoThread);
    EXPECT_EQ(m.threads[m.ranges.thread[0]].name, "python");

    EXPECT_EQ(m.metadata.producer, "Nsight Systems 2024.5.1.113");
    EXPECT_EQ(*note(m, "nsys.schemaVersion"), "3.11.2");
    // Tables a 3.x export may lack are counted, not fatal.
    EXPECT_EQ(m.stats.count("import.nsys_missing_table"), 0);
    EXPECT_FALSE(m.stats.hasAtLeast(core::Severity::Warning) &&
                 m.stats.count("import.nsys_nvtx_open_range") == 0);
}

TEST(NsysSqliteImporter, BytesAndFileGiveTheSameModel) {
    TempPath file(".sqlite");
    createDb(file.path(), testutils::newerSchemaSql());
    std::vector<unsigned char> bytes = testutils::readBytes(file.path());
    auto fromFile = core::importNsysSqlite(file.path());
    auto fromBytes = core::importNsysSqliteBytes(bytes.data(), bytes.size(), "memory.sqlite");
    ASSERT_TRUE(fromFile.ok()) << fromFile.error().message;
    ASSERT_TRUE(fromBytes.ok()) << fromBytes.error().message;
    EXPECT_EQ(fromFile->kernels.startNs, fromBytes->kernels.startNs);
    EXPECT_EQ(fromFile->apiCalls.correlationId, fromBytes->apiCalls.correlationId);
    EXPECT_EQ(fromFile->ranges.size(), fromBytes->ranges.size());
    EXPECT_EQ(fromBytes->metadata.sourcePath, "memory.sqlite");
}

TEST(NsysSqliteImporter, OlderGpuTableAndDriverTable) {
    // Early exports: TARGET_INFO_CUDA_GPU with CUDA-style column names, a separate DRIVER table,
    // no eventClass column, and no ENUM tables (documented numeric values are used).
    TempPath file(".sqlite");
    createDb(file.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'volta_sgemm_128x64_nn'), (2, 'cuLaunchKernel'), (3, 'cudaMemcpy_v3020');
CREATE TABLE TARGET_INFO_CUDA_GPU (id INTEGER, name TEXT, totalGlobalMemory INTEGER, numMultiprocessors INTEGER,
  computeCapabilityMajor INTEGER, computeCapabilityMinor INTEGER, numThreadsPerWarp INTEGER,
  maxWarpsPerMultiprocessor INTEGER, coreClockRate INTEGER);
INSERT INTO TARGET_INFO_CUDA_GPU VALUES (0, 'Tesla V100-SXM2-16GB', 16945512448, 80, 7, 0, 32, 64, 1530000000);
CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER VALUES (100, 200, (77 << 24) | 78, 5, 2);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (300, 400, (77 << 24) | 77, 6, 3);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, shortName INTEGER, gridX INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (250, 350, 0, 7, 5, 1, 80);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (350, 390, 0, 7, 6, 64, 10, 2, 2);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    ASSERT_EQ(m.devices.size(), 1u);
    EXPECT_EQ(m.devices[0].name, "Tesla V100-SXM2-16GB");
    EXPECT_EQ(m.devices[0].smCount, 80);
    EXPECT_EQ(m.devices[0].computeMajor, 7);
    EXPECT_EQ(m.devices[0].totalMemoryBytes, 16945512448);
    EXPECT_EQ(m.devices[0].coreClockKhz, 1530000);
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_EQ(m.text(m.kernels.name[0]), "volta_sgemm_128x64_nn");
    EXPECT_EQ(apiName(m, m.kernels.launchCall[0]), "cuLaunchKernel");
    EXPECT_EQ(m.apiCalls.domain[m.kernels.launchCall[0].index], ApiDomain::Driver);
    EXPECT_EQ(m.threads[m.apiCalls.thread[m.kernels.launchCall[0].index]].tid, 78);
    ASSERT_EQ(m.memcpys.size(), 1u);
    EXPECT_EQ(m.memcpys.kind[0], MemcpyKind::PeerToPeer);
    EXPECT_EQ(apiName(m, m.memcpys.launchCall[0]), "cudaMemcpy");
    // MEMSET, NVTX_EVENTS and META_DATA_EXPORT are absent: counted, not fatal.
    EXPECT_GE(m.stats.count("import.nsys_missing_table"), 2);
}

TEST(NsysSqliteImporter, CorrelationIdsOfSeveralProcessesDoNotCollide) {
    TempPath file(".sqlite");
    createDb(file.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'kernelA'), (2, 'kernelB'), (3, 'cudaLaunchKernel_v7000'),
  (4, 'cudaLaunchKernelExC_v11060');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, 0, (100 << 24) | 100, 1, 3),
  (12, 22, 0, (200 << 24) | 200, 1, 4);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (30, 40, 0, 7, 1, 200 << 24, 2), (31, 41, 1, 7, 1, 100 << 24, 1);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    ASSERT_EQ(m.kernels.size(), 2u);
    for (std::size_t i = 0; i < m.kernels.size(); ++i) {
        ASSERT_TRUE(m.kernels.launchCall[i].valid());
        const auto thread = m.apiCalls.thread[m.kernels.launchCall[i].index];
        const bool isA = m.text(m.kernels.name[i]) == "kernelA";
        EXPECT_EQ(m.threads[thread].pid, isA ? 100 : 200);
        EXPECT_EQ(apiName(m, m.kernels.launchCall[i]), isA ? "cudaLaunchKernel" : "cudaLaunchKernelExC");
    }
    EXPECT_EQ(m.stats.count("import.nsys_multi_process"), 2);
    EXPECT_EQ(m.processes.size(), 2u);
}

TEST(NsysSqliteImporter, GraphLevelTraceRowsAreGpuWork) {
    TempPath file(".sqlite");
    createDb(file.path(), R"sql(
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'cudaGraphLaunch_v10000');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (10, 20, 0, (9 << 24) | 9, 40, 1), (30, 35, 0, (9 << 24) | 9, 41, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, graphId INTEGER NOT NULL, graphExecId INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (25, 90, 0, 1, NULL, 13, 40, 9 << 24, 3, 1),
  (95, 150, 0, 1, NULL, 13, 41, 9 << 24, 3, 1);
)sql");
    auto result = core::importNsysSqlite(file.path());
    ASSERT_TRUE(result.ok()) << result.error().message;
    const TraceModel& m = result.value();
    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_EQ(m.text(m.kernels.name[0]), "CUDA graph 3");
    EXPECT_EQ(m.kernels.durationNs(0), 65);
    EXPECT_EQ(m.kernels.streamId[1], 13);
    EXPECT_EQ(apiName(m, m.kernels.launchCall[0]), "cudaGraphLaunch");
    EXPECT_EQ(m.stats.count("import.nsys_graph_level_trace"), 2);
}

TEST(NsysSqliteImporter, StringIdsWithAndWithoutPrimaryKey) {
    // nsys writes StringIds(id INTEGER PRIMARY KEY): names are looked up per id, and a large
    // string nothing refers to (like a captured stdout stream) is never read. Without the key the table
    // is read once; both give the same names.
    for (const char* idColumn : {"id INTEGER NOT NULL PRIMARY KEY", "id INTEGER"}) {
        TempPath file(".sqlite");
        createDb(file.path(),
                 "CREATE TABLE StringIds (" + std::string(idColumn) + ", value TEXT NOT NULL);" + R"sql(
INSERT INTO StringIds VALUES (1, 'kernel_a'), (2, printf('%.*c', 4000000, 'x')), (3, 'cudaLaunchKernel_v7000');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, (5 << 24) | 5, 9, 3);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, correlationId INTEGER,
  demangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (3, 4, 0, 9, 1), (5, 6, 0, 0, 44);
)sql");
        auto result = core::importNsysSqlite(file.path());
        ASSERT_TRUE(result.ok()) << idColumn << ": " << result.error().message;
        const TraceModel& m = result.value();
        ASSERT_EQ(m.kernels.size(), 2u);
        EXPECT_EQ(m.text(m.kernels.name[0]), "kernel_a") << idColumn;
        EXPECT_EQ(m.text(m.kernels.name[1]), "<unknown string 44>") << idColumn;
        EXPECT_EQ(apiName(m, m.kernels.launchCall[0]), "cudaLaunchKernel") << idColumn;
        EXPECT_EQ(m.stats.count("import.nsys_unknown_string_id"), 1) << idColumn;
        EXPECT_LT(m.memoryBytes(), 3'000'000u) << idColumn;  // the 4 MB string is not in the model
    }
}

TEST(NsysSqliteImporter, ProgressReachesOneAndCancelStops) {
    TempPath file(".sqlite");
    createDb(file.path(), testutils::newerSchemaSql());
    double last = -1;
    bool monotonic = true;
    core::LoadOptions options;
    options.progress = [&](double f) {
        monotonic = monotonic && f >= last;
        last = f;
        return true;
    };
    auto ok = core::importNsysSqlite(file.path(), options);
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_TRUE(monotonic);
    EXPECT_DOUBLE_EQ(last, 1.0);

    int calls = 0;
    core::LoadOptions cancel;
    cancel.progress = [&](double) { return ++calls < 3; };
    auto cancelled = core::importNsysSqlite(file.path(), cancel);
    ASSERT_FALSE(cancelled.ok());
    EXPECT_EQ(cancelled.error().message, core::kCancelledMessage);
}

}  // namespace
}  // namespace chokepoint

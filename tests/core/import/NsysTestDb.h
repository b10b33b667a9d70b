#pragma once
// Test helpers: create small SQLite databases with given SQL, count rows with independent SQL,
// and manage temporary files.

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

namespace chokepoint::testutils {

// A temporary file path removed on destruction.
class TempPath {
public:
    explicit TempPath(const std::string& suffix) {
        static std::atomic<int> counter{0};
        m_path = (std::filesystem::temp_directory_path() / ("chokepoint-nsys-" + std::to_string(::getpid()) +
                                                            "-" + std::to_string(counter++) + suffix))
                     .string();
    }
    ~TempPath() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    TempPath(const TempPath&) = delete;
    TempPath& operator=(const TempPath&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// Creates a database file at `path` by running `sql`; throws on SQL errors (a bug in the test).
inline void createDb(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
        throw std::runtime_error("cannot create " + path);
    }
    char* message = nullptr;
    // No journal and no fsync: these files are scratch, and the tests stay fast.
    sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", nullptr, nullptr, nullptr);
    int rc = sqlite3_exec(db, ("BEGIN;" + sql + "COMMIT;").c_str(), nullptr, nullptr, &message);
    std::string error = message ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    if (rc != SQLITE_OK) {
        throw std::runtime_error("test SQL failed: " + error);
    }
}

// Runs a single-value query (read-only) and returns it as int64.
inline std::int64_t queryInt(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        throw std::runtime_error("cannot open " + path);
    }
    sqlite3_stmt* st = nullptr;
    std::int64_t value = -1;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        value = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return value;
}

inline std::vector<unsigned char> readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

inline void writeBytes(const std::string& path, const std::vector<unsigned char>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A newer-schema (3.x) export: META_DATA_EXPORT, TARGET_INFO_GPU keyed by GPU id with
// TARGET_INFO_CUDA_DEVICE mapping CUDA ordinals, ENUM_* tables, RUNTIME rows with eventClass
// (including a backtrace duplicate), SYNCHRONIZATION, NVTX with registered strings and a domain.
inline const char* newerSchemaSql() {
    return R"sql(
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', '2024.5.1.113'),
  ('EXPORT_SCHEMA_VERSION', '3.11.2');
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'void gemm_kernel<float>(float*, int)'), (2, 'gemm_kernel'),
  (3, '_Z11gemm_kernelIfEvPfi'), (4, 'cudaLaunchKernel_v7000'), (5, 'cudaMemcpyAsync_v3020'),
  (6, 'cudaStreamSynchronize_v3020'), (7, 'cuLaunchKernel'), (8, 'ProfilerStep#1'), (9, 'python'),
  (10, 'cudaMemsetAsync_v3020'), (11, 'forward');
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'),
  (2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host'), (8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device'),
  (10, 'CUDA_MEMCPY_KIND_PTOP', 'Peer-to-Peer');
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),
  (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'), (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device');
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync');
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER,
  smCount INTEGER, pwGpuId INTEGER, uuid TEXT, chipName TEXT, maxThreadsPerBlock INTEGER, threadsPerWarp INTEGER,
  maxWarpsPerSm INTEGER, computeMajor INTEGER, computeMinor INTEGER, numaNodeId INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES
  (1, 5, 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 1, 52428800, 85520809984, 3352320000000, 1980000000, 132,
   0, 'GPU-a', 'GH100', 1024, 32, 64, 9, 0, 0),
  (1, 3, 'NVIDIA H100 80GB HBM3', '0000:2a:00.0', 1, 52428800, 85520809984, 3352320000000, 1980000000, 132,
   0, 'GPU-b', 'GH100', 1024, 32, 64, 9, 0, 0);
CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER NOT NULL, pid INTEGER NOT NULL, uuid TEXT,
  numMultiprocessors INTEGER);
INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (5, 0, 4242, 'GPU-a', 132), (3, 1, 4242, 'GPU-b', 132);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (9, 0, (4242 << 24) | 4242);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
  returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1000, 1500, 0, (4242 << 24) | 4242, 11, 4, 0, NULL),
  (1000, 1500, 67, (4242 << 24) | 4242, 11, 4, 0, 1),
  (1600, 1700, 0, (4242 << 24) | 4242, 12, 5, 0, NULL),
  (1800, 9000, 0, (4242 << 24) | 4242, 13, 6, 0, NULL),
  (1750, 1790, 0, (4242 << 24) | 4242, 15, 10, 0, NULL),
  (2000, 2100, 1, (4242 << 24) | 4243, 14, 7, 0, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL,
  mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER,
  graphId INTEGER, clusterX INTEGER, clusterY INTEGER, clusterZ INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (3000, 8000, 0, 1, NULL, 7, 11, 4242 << 24, 1, 2, 3, 1, 0, 128, 264, 2, 1, 256, 1, 1, 4096, 8192, 0, 0, 1,
   12288, NULL, 0, NULL, 1, 1, 1),
  (8500, 8700, 1, 1, NULL, 13, 14, 4242 << 24, 1, 2, 3, 1, 0, 32, 1, 1, 1, 64, 1, 1, 0, 0, 0, 0, 2, 0, NULL, 0,
   NULL, 1, 1, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER,
  dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (2500, 2900, 0, 1, NULL, 7, 12, 4242 << 24, 1048576, 1, NULL, 1, 2, NULL, NULL, 0, 1, NULL, NULL, NULL, 1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (2950, 2990, 0, 1, NULL, 7, 15, 4242 << 24, 0, 4096, NULL, 2);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, deprecatedSyncType INTEGER, syncType INTEGER NOT NULL,
  eventId INTEGER NOT NULL, eventSyncId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1800, 9000, 0, 1, NULL, 7, 13, 4242 << 24, NULL, 3, 0, NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
  domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
  int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, eventId INTEGER);
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) VALUES
  (10, NULL, 75, 'torch', (4242 << 24) | 4242, NULL, 7),
  (500, 9500, 59, NULL, (4242 << 24) | 4242, 8, 0),
  (900, 5000, 60, NULL, (4242 << 24) | 4242, 11, 7),
  (1200, NULL, 34, 'checkpoint', (4242 << 24) | 4242, NULL, 0),
  (9600, NULL, 59, 'unfinished', (4242 << 24) | 4242, NULL, 0);
)sql";
}

}  // namespace chokepoint::testutils

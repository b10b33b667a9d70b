// Nsight Systems SQLite import speed and memory (engineer B). Run by hand, never by ctest.
//
//   chokepoint-bench-nsys FILE.sqlite [...]        time the import of each export (3 runs)
//   chokepoint-bench-nsys --synthetic N OUT.sqlite   first write a SYNTHETIC export with N kernels,
//                                                    N runtime calls and N/10 NVTX ranges, then time it
//
// Prints wall time per run, rows per second, file MB/s, the model's memoryBytes() and the process's
// resident and peak memory (from /proc/self/status).

#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/import/NsysSqliteImporter.h"

namespace {

long statusKb(const char* key) {
    std::ifstream in("/proc/self/status");
    std::string line;
    std::string prefix = std::string(key) + ":";
    while (std::getline(in, line)) {
        if (line.rfind(prefix, 0) == 0) {
            return std::atol(line.c_str() + prefix.size());
        }
    }
    return 0;
}

bool exec(sqlite3* db, const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
        std::fprintf(stderr, "SQL failed: %s\n", message ? message : "?");
        sqlite3_free(message);
        return false;
    }
    return true;
}

// A synthetic export with the 3.x column names: N kernels (1,000 distinct names) each launched by
// one runtime call, N/10 NVTX push/pop ranges, one GPU. Labelled synthetic in its metadata.
bool writeSynthetic(const std::string& path, long n) {
    std::filesystem::remove(path);
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
        return false;
    }
    const std::string count = std::to_string(n);
    const std::string ranges = std::to_string(n / 10);
    bool ok =
        exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;") &&
        exec(
            db,
            "CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
            "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', 'synthetic "
            "(chokepoint-bench-nsys)'),"
            " ('EXPORT_SCHEMA_VERSION', '3.11.0');"
            "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'), (2, 'step');"
            "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 999)"
            " INSERT INTO StringIds SELECT 100 + i, 'void kernel_' || i || '<float, 128>(float*, int)' FROM "
            "c;"
            "CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER,"
            " computeMajor INTEGER, computeMinor INTEGER);"
            "INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 85520809984, 132, 9, 0);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
            " eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,"
            " returnValue INTEGER NOT NULL, callchainId INTEGER);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
            " deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
            " correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER "
            "NOT NULL,"
            " mangledName INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,"
            " gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT "
            "NULL,"
            " blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT "
            "NULL);"
            "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,"
            " text TEXT, globalTid INTEGER, textId INTEGER, domainId INTEGER);") &&
        exec(db, "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < " + count +
                     " - 1) INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT i * 1000, i * 1000 + 300, 0,"
                     " (4242 << 24) | 4242, i + 1, 1, 0, NULL FROM c;") &&
        exec(db,
             "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < " + count +
                 " - 1) INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT i * 1000 + 400, i * 1000 + 900, 0, 1,"
                 " 7, i + 1, 4242 << 24, 100 + i % 1000, 100 + i % 1000, NULL, 64, 132, 1, 1, 256, 1, 1,"
                 " 0, 0 FROM c;") &&
        exec(db, "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < " + ranges +
                     " - 1) INSERT INTO NVTX_EVENTS SELECT i * 10000, i * 10000 + 9000, 59, NULL,"
                     " (4242 << 24) | 4242, 2, 0 FROM c;") &&
        exec(db, "COMMIT;");
    sqlite3_close(db);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE.sqlite [...] | --synthetic N OUT.sqlite\n", argv[0]);
        return 2;
    }
    int first = 1;
    if (std::string(argv[1]) == "--synthetic") {
        if (argc < 4) {
            std::fprintf(stderr, "usage: %s --synthetic N OUT.sqlite\n", argv[0]);
            return 2;
        }
        long n = std::atol(argv[2]);
        auto t0 = std::chrono::steady_clock::now();
        if (n <= 0 || !writeSynthetic(argv[3], n)) {
            std::fprintf(stderr, "cannot write the synthetic export %s\n", argv[3]);
            return 1;
        }
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("wrote SYNTHETIC export %s (%ld kernels) in %.2f s\n", argv[3], n, seconds);
        first = 3;
    }
    for (int i = first; i < argc; ++i) {
        const std::string path = argv[i];
        std::error_code ec;
        double megabytes = static_cast<double>(std::filesystem::file_size(path, ec)) / 1e6;
        for (int run = 0; run < 3; ++run) {
            auto t0 = std::chrono::steady_clock::now();
            auto model = chokepoint::core::importNsysSqlite(path);
            double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (!model.ok()) {
                std::fprintf(stderr, "%s\n", model.error().message.c_str());
                return 1;
            }
            std::size_t rows = model->kernels.size() + model->memcpys.size() + model->memsets.size() +
                               model->apiCalls.size() + model->ranges.size() + model->syncs.size();
            std::printf(
                "%s run %d: %.3f s, %zu rows (%.2f M rows/s), %.1f MB file (%.1f MB/s), model %.1f MB, "
                "RSS %.1f MB, peak RSS %.1f MB\n",
                path.c_str(), run, seconds, rows, static_cast<double>(rows) / seconds / 1e6, megabytes,
                megabytes / seconds, static_cast<double>(model->memoryBytes()) / 1e6, statusKb("VmRSS") / 1e3,
                statusKb("VmHWM") / 1e3);
        }
    }
    return 0;
}

#pragma once
// The Nsight Systems SQLite importer's shared state and its readers (internal to
// chokepoint_import_nsys). One reader per table group, each in its own file:
//   NsysSqliteImporter.cpp     the entry points, the stages (run), queries, cells, strings, threads
//   NsysMetadataReader.cpp     metadata, StringIds, enums, thread and process names, devices
//   NsysGpuActivityReader.cpp  kernels, memcpys, memsets, CUDA graph traces
//   NsysApiReader.cpp          CUDA runtime and driver API calls, synchronizations
//   NsysNvtxReader.cpp         NVTX ranges and marks
//   NsysMetricsReader.cpp      GPU metrics (counters)
//   NsysSchedReader.cpp        thread scheduling (per-thread CPU tracks)
//   NsysMemoryReader.cpp       CUDA memory usage (the device's memory track)

#include <sqlite3.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/import/NsysSqliteDb.h"
#include "core/import/NsysSqliteImporter.h"

namespace chokepoint::core::nsys {

// Serialized GlobalId: PID in bits 24..47, TID in bits 0..23.
inline std::int64_t pidOf(std::int64_t globalId) {
    return (globalId >> 24) & 0xFFFFFF;
}
inline std::int64_t tidOf(std::int64_t globalId) {
    return globalId & 0xFFFFFF;
}

// One wanted column: the first of `names` that the table has.
struct ColumnSpec {
    std::vector<const char*> names;
    bool required = false;
};

struct Query {
    Statement statement;
    std::vector<bool> present;  // per spec
    std::string table;
};

class Importer {
public:
    Importer(SqliteDb& db, const LoadOptions& options) : m_db(db), m_options(options) {
        m_db.setProgress(&m_options.progress);
    }

    Result<TraceModel> run();

private:
    // Stages, for progress reporting.
    static constexpr double kStages = 14;
    bool stage(int index) {
        double fraction = index / kStages;
        m_fraction = fraction;
        m_db.setProgressFraction(fraction);
        return reportProgress(m_options.progress, fraction);
    }

    // Builds SELECT over the columns the table has (NULL for the others). Returns nullopt when the
    // table is absent or lacks a required column (counted in stats).
    Result<std::optional<Query>> select(const std::string& table, const std::vector<ColumnSpec>& specs,
                                        const std::string& where = {}, bool countMissing = true);
    // Steps through all rows, calling onRow(stmt, rowIndex). Errors name the table and row.
    template <class Fn>
    Status scan(Query& query, Fn onRow);

    Error rowError(const std::string& table, std::int64_t row, const std::string& what) const {
        return makeError(m_db.displayName() + ": table " + table + ": row " + std::to_string(row) + ": " +
                         what);
    }
    void badRow(const std::string& table, std::int64_t row, const char* column, CellState state);
    void badValue(const std::string& table, std::int64_t row, const char* column, const char* why);

    // Optional integer in [lo, hi]; 0 (or `fallback`) when NULL; counted when wrong or out of range.
    std::int64_t optionalInt(sqlite3_stmt* st, int col, const std::string& table, std::int64_t row,
                             const char* column, std::int64_t lo, std::int64_t hi, std::int64_t fallback = 0);
    // Reads start/end; false (row counted as bad) when unusable. Clamps end < start.
    bool readSpan(sqlite3_stmt* st, int startCol, int endCol, const std::string& table, std::int64_t row,
                  TimestampNs& startNs, TimestampNs& endNs);
    bool readDevice(sqlite3_stmt* st, int col, const std::string& table, std::int64_t row,
                    std::int16_t& device);
    // Columns 0-4 of every GPU activity query (start, end, deviceId, streamId, correlationId) into a
    // kernel, copy or memset row; false (row counted as bad) when its span or device is unusable.
    template <typename GpuRow>
    bool readGpuPlacement(sqlite3_stmt* st, const std::string& table, std::int64_t row, GpuRow& out) {
        if (!readSpan(st, 0, 1, table, row, out.startNs, out.endNs) ||
            !readDevice(st, 2, table, row, out.deviceIndex)) {
            return false;
        }
        out.streamId = static_cast<std::int32_t>(
            optionalInt(st, 3, table, row, "streamId", 0, std::numeric_limits<std::int32_t>::max()));
        out.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        return true;
    }

    StringId stringFor(std::int64_t id);
    ThreadIndex threadFor(std::int64_t globalTid);
    void notePid(std::int64_t pid) { m_pids.insert(pid); }

    Status readMetadata();
    Status readStrings();
    Status readEnum(const char* table, std::unordered_map<std::int64_t, std::string>& out);
    Status readThreadNames();
    Status readDevices();
    Status readKernels();
    Status readMemcpys();
    Status readMemsets();
    Status readGraphTraces();
    Status readGpuMetrics();
    std::int16_t deviceOfGpuId(std::int64_t gpuId) const;
    Status readApiCalls(const std::string& table, ApiDomain defaultDomain);
    Status readSyncs();
    Status readNvtx();
    Status readThreadScheduling();  // after the API calls, GPU activity and NVTX
    Status readCudaMemoryUsage();
    void makeCorrelationsUnique();
    void addProcesses(const std::unordered_map<std::int64_t, std::string>& processNames);
    Status readProcessNames(std::unordered_map<std::int64_t, std::string>& names);

    SqliteDb& m_db;
    const LoadOptions& m_options;
    TraceModel m_model;

    std::unordered_map<std::int64_t, std::uint32_t> m_stringIndex;  // StringIds.id -> m_rawStrings
    std::vector<std::string> m_rawStrings;
    std::optional<Statement> m_stringLookup;  // set when StringIds.id is the primary key
    std::unordered_map<std::int64_t, StringId> m_internedStrings;
    std::unordered_map<std::int64_t, ThreadIndex> m_threadByGlobalTid;
    std::unordered_map<std::int64_t, std::string> m_memcpyEnum, m_memKindEnum, m_syncEnum;
    std::set<std::int64_t> m_pids;
    // Process of each row, used to make correlation ids unique across processes.
    std::vector<std::int64_t> m_kernelPid, m_memcpyPid, m_memsetPid, m_syncPid, m_apiPid;
    double m_fraction = 0;
    std::int64_t m_backtraceRows = 0;
    std::int64_t m_unknownStringIds = 0;
    std::unordered_map<std::int64_t, std::int64_t> m_ordinalOfGpuId;  // TARGET_INFO_GPU id -> CUDA ordinal
};

template <class Fn>
Status Importer::scan(Query& query, Fn onRow) {
    std::int64_t row = 0;
    bool failed = false;
    while (query.statement.step(failed)) {
        onRow(query.statement.get(), row);
        ++row;
        if ((row & 0xFFFF) == 0 && !reportProgress(m_options.progress, m_fraction)) {
            return makeError(kCancelledMessage);
        }
    }
    if (failed) {
        if (m_db.cancelled()) {
            return makeError(kCancelledMessage);
        }
        return rowError(query.table, row, "cannot read: " + m_db.lastError());
    }
    return Ok{};
}

}  // namespace chokepoint::core::nsys

#include "core/import/NsysSqliteImporter.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/import/NsysImporter.h"

namespace chokepoint::core {

namespace nsys {

namespace {

std::string quoteIdentifier(std::string_view name) {
    std::string out = "\"";
    for (char c : name) {
        out.push_back(c);
        if (c == '"') {
            out.push_back('"');
        }
    }
    out.push_back('"');
    return out;
}

}  // namespace

Result<std::optional<Query>> Importer::select(const std::string& table, const std::vector<ColumnSpec>& specs,
                                              const std::string& where, bool countMissing) {
    if (!m_db.hasTable(table)) {
        if (countMissing) {
            m_model.stats.add("import.nsys_missing_table", Severity::Info, 1,
                              "table not in this export, its events are absent: " + table);
        }
        return std::optional<Query>{};
    }
    Result<std::vector<std::string>> columns = m_db.columns(table);
    if (!columns.ok()) {
        return columns.error();
    }
    Query query;
    query.table = table;
    std::string sql = "SELECT ";
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const char* found = nullptr;
        for (const char* name : specs[i].names) {
            if (std::find(columns->begin(), columns->end(), name) != columns->end()) {
                found = name;
                break;
            }
        }
        if (!found && specs[i].required) {
            m_model.stats.add("import.nsys_missing_column", Severity::DataLoss, 1,
                              m_db.displayName() + ": table " + table + " has no column " +
                                  *specs[i].names.begin() + "; the table was skipped");
            return std::optional<Query>{};
        }
        query.present.push_back(found != nullptr);
        sql += (i ? ", " : "") + (found ? quoteIdentifier(found) : std::string("NULL"));
    }
    sql += " FROM " + quoteIdentifier(table);
    if (!where.empty()) {
        sql += " WHERE " + where;
    }
    Result<Statement> st = Statement::prepare(m_db, sql);
    if (!st.ok()) {
        return makeError(m_db.displayName() + ": table " + table + ": " + m_db.lastError());
    }
    query.statement = std::move(st.value());
    return std::optional<Query>{std::move(query)};
}

void Importer::badRow(const std::string& table, std::int64_t row, const char* column, CellState state) {
    m_model.stats.add("import.nsys_bad_row", Severity::DataLoss, 1,
                      m_db.displayName() + ": table " + table + ": row " + std::to_string(row) + ": column " +
                          column + (state == CellState::Null ? " is NULL" : " is not an integer") +
                          "; the row was dropped");
}

void Importer::badValue(const std::string& table, std::int64_t row, const char* column, const char* why) {
    m_model.stats.add("import.nsys_bad_value", Severity::Warning, 1,
                      m_db.displayName() + ": table " + table + ": row " + std::to_string(row) + ": column " +
                          column + " " + why + "; 0 used");
}

std::int64_t Importer::optionalInt(sqlite3_stmt* st, int col, const std::string& table, std::int64_t row,
                                   const char* column, std::int64_t lo, std::int64_t hi,
                                   std::int64_t fallback) {
    IntCell cell = readInt(st, col);
    if (cell.state == CellState::Null) {
        return fallback;
    }
    if (cell.state == CellState::WrongType) {
        badValue(table, row, column, "is not an integer");
        return fallback;
    }
    if (cell.value < lo || cell.value > hi) {
        badValue(table, row, column, "is out of range");
        return fallback;
    }
    return cell.value;
}

bool Importer::readSpan(sqlite3_stmt* st, int startCol, int endCol, const std::string& table,
                        std::int64_t row, TimestampNs& startNs, TimestampNs& endNs) {
    IntCell start = readInt(st, startCol);
    if (!start.ok()) {
        badRow(table, row, "start", start.state);
        return false;
    }
    IntCell end = readInt(st, endCol);
    if (!end.ok()) {
        badRow(table, row, "end", end.state);
        return false;
    }
    startNs = start.value;
    endNs = end.value;
    if (endNs < startNs) {
        m_model.stats.add("import.negative_duration_clamped", Severity::Warning, 1,
                          m_db.displayName() + ": table " + table + ": row " + std::to_string(row) +
                              ": end before start; duration set to 0");
        endNs = startNs;
    }
    return true;
}

bool Importer::readDevice(sqlite3_stmt* st, int col, const std::string& table, std::int64_t row,
                          std::int16_t& device) {
    IntCell cell = readInt(st, col);
    if (cell.state == CellState::Null) {
        device = 0;
        return true;
    }
    if (!cell.ok() || cell.value < 0 || cell.value > std::numeric_limits<std::int16_t>::max()) {
        m_model.stats.add("import.nsys_bad_row", Severity::DataLoss, 1,
                          m_db.displayName() + ": table " + table + ": row " + std::to_string(row) +
                              ": deviceId is not a device ordinal; the row was dropped");
        return false;
    }
    device = static_cast<std::int16_t>(cell.value);
    return true;
}

StringId Importer::stringFor(std::int64_t id) {
    if (auto it = m_internedStrings.find(id); it != m_internedStrings.end()) {
        return it->second;
    }
    StringId result;
    bool found = false;
    if (m_stringLookup) {
        sqlite3_stmt* st = m_stringLookup->get();
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        bool failed = false;
        if (m_stringLookup->step(failed)) {
            CellState state = CellState::Null;
            std::string_view value = readText(st, 0, state);
            if (state == CellState::WrongType) {
                badValue("StringIds", id, "value", "is not text");
            }
            result = m_model.intern(value);
            found = true;
        } else if (failed) {
            // A value SQLite refuses to read (damaged, or beyond the length limit): named, counted.
            m_model.stats.add(
                "import.nsys_unreadable_string", Severity::Warning, 1,
                m_db.displayName() + ": table StringIds: id " + std::to_string(id) + ": " + m_db.lastError());
            result = m_model.intern("<unreadable string " + std::to_string(id) + ">");
            found = true;
        }
        sqlite3_reset(st);
    } else if (auto it = m_stringIndex.find(id); it != m_stringIndex.end()) {
        result = m_model.intern(m_rawStrings[it->second]);
        found = true;
    }
    if (!found) {
        ++m_unknownStringIds;
        result = m_model.intern("<unknown string " + std::to_string(id) + ">");
    }
    m_internedStrings.emplace(id, result);
    return result;
}

ThreadIndex Importer::threadFor(std::int64_t globalTid) {
    if (auto it = m_threadByGlobalTid.find(globalTid); it != m_threadByGlobalTid.end()) {
        return it->second;
    }
    std::int64_t pid = pidOf(globalTid);
    notePid(pid);
    ThreadIndex index = m_model.threadIndex(pid, tidOf(globalTid));
    m_threadByGlobalTid.emplace(globalTid, index);
    return index;
}

void Importer::makeCorrelationsUnique() {
    std::set<std::int64_t> pids;
    for (const auto* column : {&m_kernelPid, &m_memcpyPid, &m_memsetPid, &m_syncPid, &m_apiPid}) {
        for (std::int64_t pid : *column) {
            if (pid != 0) {
                pids.insert(pid);
            }
        }
    }
    if (pids.size() < 2) {
        return;
    }
    auto remap = [](std::vector<std::int64_t>& correlation, const std::vector<std::int64_t>& pid) {
        for (std::size_t i = 0; i < correlation.size() && i < pid.size(); ++i) {
            if (correlation[i] != 0) {
                correlation[i] = (pid[i] << 32) | (correlation[i] & 0xFFFFFFFF);
            }
        }
    };
    remap(m_model.kernels.correlationId, m_kernelPid);
    remap(m_model.memcpys.correlationId, m_memcpyPid);
    remap(m_model.memsets.correlationId, m_memsetPid);
    remap(m_model.syncs.correlationId, m_syncPid);
    remap(m_model.apiCalls.correlationId, m_apiPid);
    m_model.stats.add("import.nsys_multi_process", Severity::Info, static_cast<std::int64_t>(pids.size()),
                      "report holds several processes; correlation ids are (pid << 32) | id");
}

Result<TraceModel> Importer::run() {
    static const char* const kKnownTables[] = {"StringIds",
                                               "CUPTI_ACTIVITY_KIND_KERNEL",
                                               "CUPTI_ACTIVITY_KIND_MEMCPY",
                                               "CUPTI_ACTIVITY_KIND_MEMSET",
                                               "CUPTI_ACTIVITY_KIND_RUNTIME",
                                               "NVTX_EVENTS",
                                               "TARGET_INFO_GPU",
                                               "TARGET_INFO_CUDA_GPU",
                                               "META_DATA_EXPORT",
                                               "EXPORT_META_DATA"};
    bool any = false;
    for (const char* table : kKnownTables) {
        any = any || m_db.hasTable(table);
    }
    if (!any) {
        return makeError(
            m_db.displayName() +
            ": not an Nsight Systems export: none of its tables (StringIds, CUPTI_ACTIVITY_KIND_*, "
            "NVTX_EVENTS, TARGET_INFO_GPU, META_DATA_EXPORT) is present");
    }
    using Step = Status (Importer::*)();
    const Step steps[] = {&Importer::readMetadata,    &Importer::readStrings,
                          &Importer::readThreadNames, &Importer::readDevices,
                          &Importer::readKernels,     &Importer::readMemcpys,
                          &Importer::readMemsets,     &Importer::readGraphTraces,
                          &Importer::readGpuMetrics,  &Importer::readCudaMemoryUsage};
    int stageIndex = 0;
    if (!stage(stageIndex++)) {
        return makeError(kCancelledMessage);
    }
    if (Status s = readEnum("ENUM_CUDA_MEMCPY_OPER", m_memcpyEnum); !s.ok()) {
        return s.error();
    }
    if (Status s = readEnum("ENUM_CUDA_MEM_KIND", m_memKindEnum); !s.ok()) {
        return s.error();
    }
    if (Status s = readEnum("ENUM_CUPTI_SYNC_TYPE", m_syncEnum); !s.ok()) {
        return s.error();
    }
    for (Step step : steps) {
        if (!stage(stageIndex++)) {
            return makeError(kCancelledMessage);
        }
        if (Status s = (this->*step)(); !s.ok()) {
            return s.error();
        }
    }
    if (!stage(stageIndex++)) {
        return makeError(kCancelledMessage);
    }
    if (Status s = readApiCalls("CUPTI_ACTIVITY_KIND_RUNTIME", ApiDomain::Runtime); !s.ok()) {
        return s.error();
    }
    if (Status s = readApiCalls("CUPTI_ACTIVITY_KIND_DRIVER", ApiDomain::Driver); !s.ok()) {
        return s.error();
    }
    if (!stage(stageIndex++)) {
        return makeError(kCancelledMessage);
    }
    if (Status s = readSyncs(); !s.ok()) {
        return s.error();
    }
    if (!stage(stageIndex++)) {
        return makeError(kCancelledMessage);
    }
    if (Status s = readNvtx(); !s.ok()) {
        return s.error();
    }
    if (Status s = readThreadScheduling(); !s.ok()) {
        return s.error();
    }
    std::unordered_map<std::int64_t, std::string> processNames;
    if (Status s = readProcessNames(processNames); !s.ok()) {
        return s.error();
    }
    addProcesses(processNames);
    makeCorrelationsUnique();

    if (m_backtraceRows > 0) {
        m_model.stats.add("import.nsys_backtrace_rows_skipped", Severity::Info, m_backtraceRows,
                          "CUDA API rows of eventClass 67 (backtrace copies of calls already imported)");
    }
    if (m_unknownStringIds > 0) {
        m_model.stats.add("import.nsys_unknown_string_id", Severity::Warning, m_unknownStringIds,
                          "names referring to ids missing from StringIds; shown as <unknown string N>");
    }
    // Every device that has GPU work gets a device entry, even without a TARGET_INFO row.
    std::int64_t undescribed = 0;
    auto ensureDevices = [&](const std::vector<std::int16_t>& column) {
        for (std::int16_t d : column) {
            if (!m_model.device(d)) {
                m_model.deviceOrAdd(d);
                ++undescribed;
            }
        }
    };
    ensureDevices(m_model.kernels.deviceIndex);
    ensureDevices(m_model.memcpys.deviceIndex);
    ensureDevices(m_model.memsets.deviceIndex);
    if (undescribed > 0) {
        m_model.stats.add("import.nsys_device_without_info", Severity::Warning, undescribed,
                          "devices with GPU work but no row in the GPU description tables");
    }

    m_model.finalize();
    // Synchronization records carry only a process id; their thread is that of the API call.
    for (std::size_t i = 0; i < m_model.syncs.size(); ++i) {
        ApiCallId call = m_model.syncs.apiCall[i];
        if (m_model.syncs.thread[i] == kNoThread && call.valid() && call.index < m_model.apiCalls.size()) {
            m_model.syncs.thread[i] = m_model.apiCalls.thread[call.index];
        }
    }
    if (m_model.gpuEventCount() == 0) {
        m_model.stats.add("import.no_gpu_events", Severity::Info, 1,
                          "the report holds no kernels, memcpys or memsets");
    }
    if (!reportProgress(m_options.progress, 1.0)) {
        return makeError(kCancelledMessage);
    }
    return std::move(m_model);
}

}  // namespace nsys

Result<TraceModel> importNsysSqlite(const std::string& path, const LoadOptions& options) {
    Result<nsys::SqliteDb> db = nsys::SqliteDb::openFile(path);
    if (!db.ok()) {
        return db.error();
    }
    nsys::Importer importer(db.value(), options);
    return importer.run();
}

Result<TraceModel> importNsysSqliteBytes(const void* bytes, std::size_t size, const std::string& displayName,
                                         const LoadOptions& options) {
    Result<nsys::SqliteDb> db = nsys::SqliteDb::openBytes(bytes, size, displayName);
    if (!db.ok()) {
        return db.error();
    }
    nsys::Importer importer(db.value(), options);
    return importer.run();
}

}  // namespace chokepoint::core

#include "core/import/NsysSqliteImporter.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/import/NsysSqliteDb.h"

namespace chokepoint::core {

namespace {

using nsys::CellState;
using nsys::IntCell;
using nsys::readInt;
using nsys::readText;
using nsys::SqliteDb;
using nsys::Statement;

// --- Documented enum values (Nsight Systems "SQLite Schema Event Values") ------------------------
constexpr std::int64_t kEventClassRuntime = 0;
constexpr std::int64_t kEventClassDriver = 1;
constexpr std::int64_t kEventClassEglDriver = 13;
constexpr std::int64_t kEventClassBacktrace = 67;  // duplicate of a runtime row carrying a callchain

constexpr std::int64_t kNvtxMark = 34;
constexpr std::int64_t kNvtxThread = 39;
constexpr std::int64_t kNvtxPushPop = 59;
constexpr std::int64_t kNvtxStartEnd = 60;
constexpr std::int64_t kNvtxtPushPop = 70;  // NVTX ranges recorded through the nvtx "T" extension
constexpr std::int64_t kNvtxtStartEnd = 71;
constexpr std::int64_t kNvtxDomainCreate = 75;

// Serialized GlobalId: PID in bits 24..47, TID in bits 0..23.
std::int64_t pidOf(std::int64_t globalId) {
    return (globalId >> 24) & 0xFFFFFF;
}
std::int64_t tidOf(std::int64_t globalId) {
    return globalId & 0xFFFFFF;
}

// CUDA_MEMCPY_KIND_* by value (ENUM_CUDA_MEMCPY_OPER).
MemcpyKind memcpyKindFromValue(std::int64_t v) {
    switch (v) {
        case 1:
        case 3:
        case 11:
            return MemcpyKind::HostToDevice;  // HtoD, HtoA, UVM HtoD
        case 2:
        case 4:
        case 12:
            return MemcpyKind::DeviceToHost;  // DtoH, AtoH, UVM DtoH
        case 5:
        case 6:
        case 7:
        case 8:
        case 13:
            return MemcpyKind::DeviceToDevice;
        case 9:
            return MemcpyKind::HostToHost;
        case 10:
            return MemcpyKind::PeerToPeer;
        default:
            return MemcpyKind::Unknown;
    }
}

MemcpyKind memcpyKindFromSymbol(std::string_view s) {
    auto has = [&](std::string_view suffix) {
        return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    };
    if (has("_HTOD") || has("_HTOA"))
        return MemcpyKind::HostToDevice;
    if (has("_DTOH") || has("_ATOH"))
        return MemcpyKind::DeviceToHost;
    if (has("_DTOD") || has("_ATOA") || has("_ATOD") || has("_DTOA"))
        return MemcpyKind::DeviceToDevice;
    if (has("_HTOH"))
        return MemcpyKind::HostToHost;
    if (has("_PTOP"))
        return MemcpyKind::PeerToPeer;
    return MemcpyKind::Unknown;
}

// CUDA_MEMOPR_MEMORY_KIND_* by value (ENUM_CUDA_MEM_KIND). Note: nsys's numbering, not CUPTI's.
MemoryKind memoryKindFromValue(std::int64_t v) {
    switch (v) {
        case 0:
            return MemoryKind::Pageable;
        case 1:
            return MemoryKind::Pinned;
        case 2:
        case 3:
        case 5:
            return MemoryKind::Device;  // device, array, device static
        case 4:
        case 6:
            return MemoryKind::Managed;  // managed, managed static
        default:
            return MemoryKind::Unknown;
    }
}

MemoryKind memoryKindFromSymbol(std::string_view s) {
    auto has = [&](std::string_view suffix) {
        return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    };
    if (has("_PAGEABLE"))
        return MemoryKind::Pageable;
    if (has("_PINNED"))
        return MemoryKind::Pinned;
    if (has("_DEVICE") || has("_ARRAY") || has("_DEVICE_STATIC"))
        return MemoryKind::Device;
    if (has("_MANAGED") || has("_MANAGED_STATIC"))
        return MemoryKind::Managed;
    return MemoryKind::Unknown;
}

// CUpti_ActivitySynchronizationType by value (ENUM_CUPTI_SYNC_TYPE).
SyncKind syncKindFromValue(std::int64_t v) {
    switch (v) {
        case 1:
            return SyncKind::EventSynchronize;
        case 2:
            return SyncKind::StreamWaitEvent;
        case 3:
            return SyncKind::StreamSynchronize;
        case 4:
            return SyncKind::DeviceSynchronize;  // context synchronize
        default:
            return SyncKind::Unknown;
    }
}

SyncKind syncKindFromSymbol(std::string_view s) {
    auto has = [&](std::string_view suffix) {
        return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    };
    if (has("_EVENT_SYNCHRONIZE"))
        return SyncKind::EventSynchronize;
    if (has("_STREAM_WAIT_EVENT"))
        return SyncKind::StreamWaitEvent;
    if (has("_STREAM_SYNCHRONIZE"))
        return SyncKind::StreamSynchronize;
    if (has("_CONTEXT_SYNCHRONIZE") || has("_DEVICE_SYNCHRONIZE"))
        return SyncKind::DeviceSynchronize;
    return SyncKind::Unknown;
}

// "cudaMemcpy_v3020" -> "cudaMemcpy": nsys appends the API version to runtime function names.
std::string_view stripVersionSuffix(std::string_view name) {
    std::size_t pos = name.rfind("_v");
    if (pos == std::string_view::npos || pos + 2 >= name.size()) {
        return name;
    }
    for (std::size_t i = pos + 2; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') {
            return name;
        }
    }
    return name.substr(0, pos);
}

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
    static constexpr double kStages = 13;
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

Status Importer::readMetadata() {
    CaptureMetadata& meta = m_model.metadata;
    meta.sourceFormat = "nsys-sqlite";
    meta.sourcePath = m_db.displayName();
    meta.producer = "Nsight Systems";
    // The export metadata table was renamed: EXPORT_META_DATA (2.x) -> META_DATA_EXPORT (3.x).
    for (const char* table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        Result<std::optional<Query>> q = select(table, {{{"name"}, true}, {{"value"}, true}}, {}, false);
        if (!q.ok()) {
            return q.error();
        }
        if (!q->has_value()) {
            continue;
        }
        std::string version;
        std::string schema;
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
            CellState a = CellState::Null;
            CellState b = CellState::Null;
            std::string_view name = readText(st, 0, a);
            std::string_view value = readText(st, 1, b);
            if (a != CellState::Ok || b != CellState::Ok) {
                return;
            }
            if (name == "EXPORT_PRODUCT_VERSION") {
                version = value;
            } else if (name == "EXPORT_SCHEMA_VERSION") {
                schema = value;
            }
        });
        if (!s.ok()) {
            return s;
        }
        if (!version.empty()) {
            meta.producer = "Nsight Systems " + version;
        }
        if (!schema.empty()) {
            meta.notes.emplace_back("nsys.schemaVersion", schema);
        }
        break;
    }
    if (Result<std::optional<Query>> q =
            select("TARGET_INFO_SESSION_START_TIME", {{{"utcEpochNs"}, true}}, {}, false);
        !q.ok()) {
        return q.error();
    } else if (q->has_value()) {
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
            IntCell cell = readInt(st, 0);
            if (cell.ok() && cell.value > 0) {
                meta.captureStartUnixNs = cell.value;
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    if (Result<std::optional<Query>> q = select(
            "TARGET_INFO_SYSTEM_ENV", {{{"name"}, true}, {{"value"}, true}}, "name = 'Hostname'", false);
        !q.ok()) {
        return q.error();
    } else if (q->has_value()) {
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
            CellState state = CellState::Null;
            std::string_view value = readText(st, 1, state);
            if (state == CellState::Ok && meta.hostName.empty()) {
                meta.hostName = value;
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    return Ok{};
}

// StringIds also holds callchain symbols and whole captured stdout/stderr streams, which the
// model never needs. When `id` is the table's integer primary key (as nsys writes it), names are
// looked up one id at a time, so only the strings the events use are read. Otherwise (an unusual
// or hand-made file, where a lookup would be a full scan) the table is read once.
Status Importer::readStrings() {
    if (!m_db.hasTable("StringIds")) {
        m_model.stats.add("import.nsys_missing_table", Severity::Info, 1,
                          "table not in this export, its events are absent: StringIds");
        return Ok{};
    }
    Result<Statement> pk = Statement::prepare(
        m_db,
        "SELECT COUNT(*), SUM(name = 'id' AND upper(type) = 'INTEGER') FROM pragma_table_info('StringIds') "
        "WHERE pk > 0");
    if (!pk.ok()) {
        return pk.error();
    }
    bool failed = false;
    bool indexed = false;
    if (pk->step(failed)) {
        indexed = readInt(pk->get(), 0).value == 1 && readInt(pk->get(), 1).value == 1;
    }
    if (failed) {
        return makeError(m_db.displayName() +
                         ": table StringIds: cannot read its columns: " + m_db.lastError());
    }
    if (indexed) {
        Result<Statement> lookup = Statement::prepare(m_db, "SELECT value FROM StringIds WHERE id = ?1");
        if (!lookup.ok()) {
            return lookup.error();
        }
        m_stringLookup = std::move(lookup.value());
        return Ok{};
    }
    Result<std::optional<Query>> q = select("StringIds", {{{"id"}, true}, {{"value"}, true}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell id = readInt(st, 0);
        CellState state = CellState::Null;
        std::string_view value = readText(st, 1, state);
        if (!id.ok()) {
            badRow("StringIds", row, "id", id.state);
            return;
        }
        if (state == CellState::WrongType) {
            badValue("StringIds", row, "value", "is not text");
        }
        if (m_stringIndex.emplace(id.value, static_cast<std::uint32_t>(m_rawStrings.size())).second) {
            m_rawStrings.emplace_back(value);
        }
    });
}

Status Importer::readEnum(const char* table, std::unordered_map<std::int64_t, std::string>& out) {
    Result<std::optional<Query>> q = select(table, {{{"id"}, true}, {{"name"}, true}}, {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
        IntCell id = readInt(st, 0);
        CellState state = CellState::Null;
        std::string_view name = readText(st, 1, state);
        if (id.ok() && state == CellState::Ok) {
            out.emplace(id.value, std::string(name));
        }
    });
}

Status Importer::readThreadNames() {
    Result<std::optional<Query>> q =
        select("ThreadNames", {{{"nameId"}, true}, {{"globalTid"}, true}}, {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
        IntCell nameId = readInt(st, 0);
        IntCell tid = readInt(st, 1);
        if (!nameId.ok() || !tid.ok()) {
            return;
        }
        ThreadIndex index = threadFor(tid.value);
        if (m_model.threads[index].name.empty()) {
            m_model.threads[index].name = std::string(m_model.text(stringFor(nameId.value)));
        }
    });
}

Status Importer::readDevices() {
    // GPU rows keyed by the GPU id used in the report; mapped to CUDA ordinals below.
    struct GpuRow {
        std::int64_t id = 0;
        std::int64_t cudaOrdinal = -1;
        DeviceInfo info;
        std::int64_t memoryBandwidth = 0;
    };
    std::vector<GpuRow> gpus;
    // TARGET_INFO_GPU (2021.2 and later, 2.x and 3.x schemas) or TARGET_INFO_CUDA_GPU (older).
    // Column names differ between versions; each spec lists the known spellings.
    const std::vector<ColumnSpec> specs = {
        {{"id", "deviceId"}, true},
        {{"name"}},
        {{"totalMemory", "totalGlobalMemory", "globalMemorySize"}},
        {{"smCount", "numMultiprocessors"}},
        {{"computeMajor", "computeCapabilityMajor"}},
        {{"computeMinor", "computeCapabilityMinor"}},
        {{"maxThreadsPerBlock"}},
        {{"maxWarpsPerSm", "maxWarpsPerMultiprocessor"}},
        {{"threadsPerWarp", "numThreadsPerWarp"}},
        {{"maxRegistersPerBlock"}},
        {{"maxShmemPerBlock", "maxSharedMemoryPerBlock"}},
        {{"l2CacheSize"}},
        {{"clockRate", "coreClockRate"}},  // Hz
        {{"memoryBandwidth"}},             // B/s
        {{"cuDevice"}},
    };
    for (const char* table : {"TARGET_INFO_GPU", "TARGET_INFO_CUDA_GPU"}) {
        Result<std::optional<Query>> q = select(table, specs, {}, false);
        if (!q.ok()) {
            return q.error();
        }
        if (!q->has_value()) {
            continue;
        }
        const std::string tableName = table;
        constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
        constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();
        Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
            IntCell id = readInt(st, 0);
            if (!id.ok()) {
                badRow(tableName, row, "id", id.state);
                return;
            }
            GpuRow gpu;
            gpu.id = id.value;
            CellState state = CellState::Null;
            std::string_view name = readText(st, 1, state);
            gpu.info.name = std::string(name);
            gpu.info.vendor = "NVIDIA";
            gpu.info.totalMemoryBytes = optionalInt(st, 2, tableName, row, "totalMemory", 0, kMax64);
            gpu.info.smCount =
                static_cast<std::int32_t>(optionalInt(st, 3, tableName, row, "smCount", 0, kMax32));
            gpu.info.computeMajor =
                static_cast<std::int32_t>(optionalInt(st, 4, tableName, row, "computeMajor", 0, 1000));
            gpu.info.computeMinor =
                static_cast<std::int32_t>(optionalInt(st, 5, tableName, row, "computeMinor", 0, 1000));
            gpu.info.maxThreadsPerBlock = static_cast<std::int32_t>(
                optionalInt(st, 6, tableName, row, "maxThreadsPerBlock", 0, kMax32));
            std::int64_t warpsPerSm = optionalInt(st, 7, tableName, row, "maxWarpsPerSm", 0, 1 << 16);
            gpu.info.warpSize =
                static_cast<std::int32_t>(optionalInt(st, 8, tableName, row, "threadsPerWarp", 0, 1024));
            gpu.info.maxThreadsPerSm = static_cast<std::int32_t>(warpsPerSm * gpu.info.warpSize);
            gpu.info.registersPerBlock = static_cast<std::int32_t>(
                optionalInt(st, 9, tableName, row, "maxRegistersPerBlock", 0, kMax32));
            gpu.info.sharedMemoryPerBlockBytes =
                optionalInt(st, 10, tableName, row, "maxShmemPerBlock", 0, kMax64);
            gpu.info.l2CacheBytes = optionalInt(st, 11, tableName, row, "l2CacheSize", 0, kMax64);
            gpu.info.coreClockKhz = optionalInt(st, 12, tableName, row, "clockRate", 0, kMax64) / 1000;
            gpu.memoryBandwidth = optionalInt(st, 13, tableName, row, "memoryBandwidth", 0, kMax64);
            gpu.cudaOrdinal = optionalInt(st, 14, tableName, row, "cuDevice", 0, 0x7FFF, -1);
            gpus.push_back(std::move(gpu));
        });
        if (!s.ok()) {
            return s;
        }
        break;
    }
    if (gpus.empty()) {
        m_model.stats.add(
            "import.nsys_missing_table", Severity::Info, 1,
            "no GPU description table (TARGET_INFO_GPU / TARGET_INFO_CUDA_GPU): device names unknown");
        return Ok{};
    }
    // TARGET_INFO_CUDA_DEVICE (newer exports) maps a process's CUDA ordinal to a GPU id; without it
    // the ordinal is cuDevice, else the GPU id itself.
    std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> ordinalToGpu;  // -> gpu id, SMs
    Result<std::optional<Query>> map =
        select("TARGET_INFO_CUDA_DEVICE", {{{"cudaId"}, true}, {{"gpuId"}, true}, {{"numMultiprocessors"}}},
               {}, false);
    if (!map.ok()) {
        return map.error();
    }
    bool ambiguous = false;
    if (map->has_value()) {
        Status s = scan(**map, [&](sqlite3_stmt* st, std::int64_t) {
            IntCell cuda = readInt(st, 0);
            IntCell gpu = readInt(st, 1);
            IntCell sms = readInt(st, 2);
            if (!cuda.ok() || !gpu.ok() || cuda.value < 0 || cuda.value > 0x7FFF) {
                return;
            }
            auto [it, added] =
                ordinalToGpu.emplace(cuda.value, std::make_pair(gpu.value, sms.ok() ? sms.value : 0));
            if (!added && it->second.first != gpu.value) {
                ambiguous = true;
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    if (ambiguous) {
        m_model.stats.add(
            "import.nsys_ambiguous_device_map", Severity::Warning, 1,
            "processes in this report see different GPUs under one CUDA ordinal; the first mapping "
            "was used");
    }
    auto addDevice = [&](std::int64_t ordinal, const GpuRow& gpu, std::int64_t smsOverride) {
        m_ordinalOfGpuId[gpu.id] = ordinal;
        DeviceInfo& device = m_model.deviceOrAdd(static_cast<std::int32_t>(ordinal));
        std::int32_t index = device.deviceIndex;
        device = gpu.info;
        device.deviceIndex = index;
        if (device.smCount == 0 && smsOverride > 0 && smsOverride < 1 << 20) {
            device.smCount = static_cast<std::int32_t>(smsOverride);
        }
        if (gpu.memoryBandwidth > 0) {
            m_model.metadata.notes.emplace_back(
                "nsys.gpu" + std::to_string(ordinal) + ".memoryBandwidthBytesPerSecond",
                std::to_string(gpu.memoryBandwidth));
        }
    };
    if (!ordinalToGpu.empty()) {
        for (const auto& [ordinal, target] : ordinalToGpu) {
            for (const GpuRow& gpu : gpus) {
                if (gpu.id == target.first) {
                    addDevice(ordinal, gpu, target.second);
                    break;
                }
            }
        }
    } else {
        for (const GpuRow& gpu : gpus) {
            std::int64_t ordinal = gpu.cudaOrdinal >= 0 ? gpu.cudaOrdinal : gpu.id;
            if (ordinal < 0 || ordinal > 0x7FFF) {
                continue;
            }
            addDevice(ordinal, gpu, 0);
        }
    }
    return Ok{};
}

namespace {

// "DRAM Read Bandwidth [Throughput %]" -> {"DRAM Read Bandwidth", "%"}; "SM Frequency [MHz]" ->
// {"SM Frequency", "MHz"}; a name without a bracket keeps an empty unit.
std::pair<std::string, std::string> splitMetricName(std::string_view full) {
    const std::size_t open = full.rfind(" [");
    if (open == std::string_view::npos || full.back() != ']') {
        return {std::string(full), std::string()};
    }
    std::string_view unit = full.substr(open + 2, full.size() - open - 3);
    return {std::string(full.substr(0, open)),
            unit.find('%') != std::string_view::npos ? std::string("%") : std::string(unit)};
}

}  // namespace

std::int16_t Importer::deviceOfGpuId(std::int64_t gpuId) const {
    if (auto it = m_ordinalOfGpuId.find(gpuId); it != m_ordinalOfGpuId.end()) {
        return static_cast<std::int16_t>(it->second);
    }
    if (m_model.devices.size() == 1) {
        return static_cast<std::int16_t>(m_model.devices.front().deviceIndex);
    }
    return static_cast<std::int16_t>(std::clamp<std::int64_t>(gpuId, 0, 0x7FFF));
}

// GPU_METRICS (nsys profile --gpu-metrics-devices): periodic samples (timestamp, typeId, metricId,
// value), named by TARGET_INFO_GPU_METRICS (typeId, metricId, metricName). One counter track per
// (GPU, metric). The low byte of typeId is the GPU's id in TARGET_INFO_GPU, mapped to its CUDA
// ordinal like the kernels' devices; with one GPU in the report the samples belong to it.
Status Importer::readGpuMetrics() {
    if (!m_db.hasTable("GPU_METRICS")) {
        return Ok{};
    }
    std::map<std::int64_t, std::string> metricNames;  // metricId -> name
    Result<std::optional<Query>> names =
        select("TARGET_INFO_GPU_METRICS", {{{"metricId"}, true}, {{"metricName"}, true}});
    if (!names.ok()) {
        return names.error();
    }
    if (names->has_value()) {
        Status s = scan(**names, [&](sqlite3_stmt* st, std::int64_t) {
            IntCell id = readInt(st, 0);
            CellState state = CellState::Null;
            std::string_view name = readText(st, 1, state);
            if (id.ok() && state == CellState::Ok && !name.empty()) {
                metricNames.emplace(id.value, std::string(name));
            }
        });
        if (!s.ok()) {
            return s;
        }
    }
    const std::string table = "GPU_METRICS";
    Result<std::optional<Query>> q =
        select(table, {{{"timestamp"}, true}, {{"typeId"}, true}, {{"metricId"}, true}, {{"value"}, true}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    std::map<std::pair<std::int16_t, std::int64_t>, std::size_t> trackOf;  // (device, metricId) -> track
    const std::size_t firstTrack = m_model.counters.size();
    std::int64_t samples = 0;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell ts = readInt(st, 0);
        IntCell type = readInt(st, 1);
        IntCell metric = readInt(st, 2);
        if (!ts.ok() || !type.ok() || !metric.ok()) {
            badRow(table, row,
                   !ts.ok()     ? "timestamp"
                   : !type.ok() ? "typeId"
                                : "metricId",
                   !ts.ok()     ? ts.state
                   : !type.ok() ? type.state
                                : metric.state);
            return;
        }
        const int valueType = sqlite3_column_type(st, 3);
        const double value = sqlite3_column_double(st, 3);
        if ((valueType != SQLITE_INTEGER && valueType != SQLITE_FLOAT) || !std::isfinite(value)) {
            m_model.stats.add("import.nsys_bad_row", Severity::DataLoss, 1,
                              m_db.displayName() + ": table " + table + ": row " + std::to_string(row) +
                                  ": column value is not a number; the row was dropped");
            return;
        }
        const std::int16_t device = deviceOfGpuId(type.value & 0xFF);
        auto [it, added] = trackOf.try_emplace({device, metric.value}, m_model.counters.size());
        if (added) {
            CounterTrack track;
            const auto named = metricNames.find(metric.value);
            const std::string full =
                named != metricNames.end() ? named->second : "GPU metric " + std::to_string(metric.value);
            std::tie(track.name, track.unit) = splitMetricName(full);
            track.deviceIndex = device;
            m_model.counters.push_back(std::move(track));
        }
        CounterTrack& track = m_model.counters[it->second];
        track.timesNs.push_back(ts.value);
        track.values.push_back(value);
        ++samples;
    });
    if (!s.ok()) {
        return s;
    }
    // Exports write samples in time order; sort a track that is not.
    for (std::size_t t = firstTrack; t < m_model.counters.size(); ++t) {
        CounterTrack& track = m_model.counters[t];
        if (std::is_sorted(track.timesNs.begin(), track.timesNs.end())) {
            continue;
        }
        std::vector<std::size_t> order(track.timesNs.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return track.timesNs[a] < track.timesNs[b]; });
        CounterTrack sorted = track;
        for (std::size_t i = 0; i < order.size(); ++i) {
            sorted.timesNs[i] = track.timesNs[order[i]];
            sorted.values[i] = track.values[order[i]];
        }
        track = std::move(sorted);
    }
    if (samples > 0) {
        m_model.stats.add("import.nsys_gpu_metrics", Severity::Info, samples,
                          "GPU metric samples imported from GPU_METRICS into " +
                              std::to_string(m_model.counters.size() - firstTrack) + " counter tracks");
    }
    return Ok{};
}

Status Importer::readKernels() {
    const std::string table = "CUPTI_ACTIVITY_KIND_KERNEL";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}, true},
                                                    {{"deviceId"}},
                                                    {{"streamId"}},
                                                    {{"correlationId"}},
                                                    {{"demangledName"}},
                                                    {{"shortName"}},
                                                    {{"mangledName"}},
                                                    {{"gridX"}},
                                                    {{"gridY"}},
                                                    {{"gridZ"}},
                                                    {{"blockX"}},
                                                    {{"blockY"}},
                                                    {{"blockZ"}},
                                                    {{"registersPerThread"}},
                                                    {{"staticSharedMemory"}},
                                                    {{"dynamicSharedMemory"}},
                                                    {{"globalPid"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        KernelRow k;
        if (!readSpan(st, 0, 1, table, row, k.startNs, k.endNs) ||
            !readDevice(st, 2, table, row, k.deviceIndex)) {
            return;
        }
        k.streamId = static_cast<std::int32_t>(optionalInt(st, 3, table, row, "streamId", 0, kMax32));
        k.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        bool named = false;
        for (int col : {5, 6, 7}) {
            IntCell id = readInt(st, col);
            if (id.ok()) {
                k.name = stringFor(id.value);
                named = true;
                break;
            }
        }
        if (!named) {
            k.name = m_model.intern("<unnamed kernel>");
            badValue(table, row, "demangledName", "is missing");
        }
        k.gridX = static_cast<std::int32_t>(optionalInt(st, 8, table, row, "gridX", 0, kMax32));
        k.gridY = static_cast<std::int32_t>(optionalInt(st, 9, table, row, "gridY", 0, kMax32));
        k.gridZ = static_cast<std::int32_t>(optionalInt(st, 10, table, row, "gridZ", 0, kMax32));
        k.blockX = static_cast<std::int32_t>(optionalInt(st, 11, table, row, "blockX", 0, kMax32));
        k.blockY = static_cast<std::int32_t>(optionalInt(st, 12, table, row, "blockY", 0, kMax32));
        k.blockZ = static_cast<std::int32_t>(optionalInt(st, 13, table, row, "blockZ", 0, kMax32));
        k.registersPerThread =
            static_cast<std::int32_t>(optionalInt(st, 14, table, row, "registersPerThread", 0, kMax32));
        k.staticSharedBytes =
            static_cast<std::int32_t>(optionalInt(st, 15, table, row, "staticSharedMemory", 0, kMax32));
        k.dynamicSharedBytes =
            static_cast<std::int32_t>(optionalInt(st, 16, table, row, "dynamicSharedMemory", 0, kMax32));
        IntCell pid = readInt(st, 17);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.kernels.add(k);
        m_kernelPid.push_back(p);
    });
}

Status Importer::readMemcpys() {
    const std::string table = "CUPTI_ACTIVITY_KIND_MEMCPY";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}, true},
                                                    {{"deviceId"}},
                                                    {{"streamId"}},
                                                    {{"correlationId"}},
                                                    {{"bytes"}},
                                                    {{"copyKind"}},
                                                    {{"srcKind"}},
                                                    {{"dstKind"}},
                                                    {{"globalPid"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
    constexpr std::int64_t kMax64 = std::numeric_limits<std::int64_t>::max();
    auto memKind = [&](sqlite3_stmt* st, int col, std::int64_t row, const char* name) {
        IntCell cell = readInt(st, col);
        if (cell.state == CellState::WrongType) {
            badValue(table, row, name, "is not an integer");
        }
        if (!cell.ok()) {
            return MemoryKind::Unknown;
        }
        if (auto it = m_memKindEnum.find(cell.value); it != m_memKindEnum.end()) {
            return memoryKindFromSymbol(it->second);
        }
        return memoryKindFromValue(cell.value);
    };
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        MemcpyRow m;
        if (!readSpan(st, 0, 1, table, row, m.startNs, m.endNs) ||
            !readDevice(st, 2, table, row, m.deviceIndex)) {
            return;
        }
        m.streamId = static_cast<std::int32_t>(optionalInt(st, 3, table, row, "streamId", 0, kMax32));
        m.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        m.sizeBytes = optionalInt(st, 5, table, row, "bytes", 0, kMax64);
        IntCell kind = readInt(st, 6);
        if (kind.ok()) {
            auto it = m_memcpyEnum.find(kind.value);
            m.kind =
                it != m_memcpyEnum.end() ? memcpyKindFromSymbol(it->second) : memcpyKindFromValue(kind.value);
        } else if (kind.state == CellState::WrongType) {
            badValue(table, row, "copyKind", "is not an integer");
        }
        m.srcKind = memKind(st, 7, row, "srcKind");
        m.dstKind = memKind(st, 8, row, "dstKind");
        IntCell pid = readInt(st, 9);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.memcpys.add(m);
        m_memcpyPid.push_back(p);
    });
}

// With `--cuda-graph-trace=graph` (the default in recent nsys versions) a launched CUDA graph is
// one row of CUPTI_ACTIVITY_KIND_GRAPH_TRACE instead of one row per kernel. The GPU is busy for
// that whole span, so each row becomes a kernel named after its graph; the stat says the kernels
// inside are unknown.
Status Importer::readGraphTraces() {
    const std::string table = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
    Result<std::optional<Query>> q = select(table,
                                            {{{"start"}, true},
                                             {{"end"}, true},
                                             {{"deviceId"}},
                                             {{"streamId"}},
                                             {{"correlationId"}},
                                             {{"graphId"}},
                                             {{"globalPid"}}},
                                            {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    std::int64_t graphs = 0;
    std::unordered_map<std::int64_t, StringId> names;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        KernelRow k;
        if (!readSpan(st, 0, 1, table, row, k.startNs, k.endNs) ||
            !readDevice(st, 2, table, row, k.deviceIndex)) {
            return;
        }
        k.streamId = static_cast<std::int32_t>(
            optionalInt(st, 3, table, row, "streamId", 0, std::numeric_limits<std::int32_t>::max()));
        k.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        std::int64_t graphId =
            optionalInt(st, 5, table, row, "graphId", 0, std::numeric_limits<std::int64_t>::max());
        auto it = names.find(graphId);
        if (it == names.end()) {
            it = names.emplace(graphId, m_model.intern("CUDA graph " + std::to_string(graphId))).first;
        }
        k.name = it->second;
        IntCell pid = readInt(st, 6);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.kernels.add(k);
        m_kernelPid.push_back(p);
        ++graphs;
    });
    if (s.ok() && graphs > 0) {
        m_model.stats.add(
            "import.nsys_graph_level_trace", Severity::Info, graphs,
            "CUDA graphs traced as whole launches (nsys --cuda-graph-trace=graph): each is one GPU row "
            "named \"CUDA graph N\"; the kernels inside are not in the report");
    }
    return s;
}

Status Importer::readMemsets() {
    const std::string table = "CUPTI_ACTIVITY_KIND_MEMSET";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}, true},
                                                    {{"deviceId"}},
                                                    {{"streamId"}},
                                                    {{"correlationId"}},
                                                    {{"bytes"}},
                                                    {{"memKind"}},
                                                    {{"globalPid"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    constexpr std::int64_t kMax32 = std::numeric_limits<std::int32_t>::max();
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        MemsetRow m;
        if (!readSpan(st, 0, 1, table, row, m.startNs, m.endNs) ||
            !readDevice(st, 2, table, row, m.deviceIndex)) {
            return;
        }
        m.streamId = static_cast<std::int32_t>(optionalInt(st, 3, table, row, "streamId", 0, kMax32));
        m.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        m.sizeBytes = optionalInt(st, 5, table, row, "bytes", 0, std::numeric_limits<std::int64_t>::max());
        IntCell kind = readInt(st, 6);
        if (kind.ok()) {
            auto it = m_memKindEnum.find(kind.value);
            m.memoryKind = it != m_memKindEnum.end() ? memoryKindFromSymbol(it->second)
                                                     : memoryKindFromValue(kind.value);
        }
        IntCell pid = readInt(st, 7);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        if (pid.ok()) {
            notePid(p);
        }
        m_model.memsets.add(m);
        m_memsetPid.push_back(p);
    });
}

Status Importer::readApiCalls(const std::string& table, ApiDomain defaultDomain) {
    Result<std::optional<Query>> q = select(table,
                                            {{{"start"}, true},
                                             {{"end"}, true},
                                             {{"eventClass"}},
                                             {{"globalTid"}},
                                             {{"correlationId"}},
                                             {{"nameId"}}},
                                            {}, defaultDomain == ApiDomain::Runtime);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    std::unordered_map<std::int64_t, StringId> strippedNames;  // StringIds.id -> name without "_vNNNN"
    std::int64_t otherClasses = 0;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        ApiCallRow call;
        call.domain = defaultDomain;
        IntCell eventClass = readInt(st, 2);
        if (eventClass.ok()) {
            if (eventClass.value == kEventClassBacktrace) {
                ++m_backtraceRows;
                return;
            }
            if (eventClass.value == kEventClassRuntime) {
                call.domain = ApiDomain::Runtime;
            } else if (eventClass.value == kEventClassDriver || eventClass.value == kEventClassEglDriver) {
                call.domain = ApiDomain::Driver;
            } else {
                call.domain = ApiDomain::Other;
                ++otherClasses;
            }
        }
        if (!readSpan(st, 0, 1, table, row, call.startNs, call.endNs)) {
            return;
        }
        IntCell tid = readInt(st, 3);
        std::int64_t pid = 0;
        if (tid.ok()) {
            call.thread = threadFor(tid.value);
            pid = pidOf(tid.value);
        }
        call.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        IntCell nameId = readInt(st, 5);
        if (nameId.ok()) {
            auto it = strippedNames.find(nameId.value);
            if (it == strippedNames.end()) {
                std::string name(m_model.text(stringFor(nameId.value)));
                it = strippedNames.emplace(nameId.value, m_model.intern(stripVersionSuffix(name))).first;
            }
            call.name = it->second;
        } else {
            call.name = m_model.intern("<unnamed API call>");
            badValue(table, row, "nameId", "is missing");
        }
        m_model.apiCalls.add(call);
        m_apiPid.push_back(pid);
    });
    if (otherClasses > 0) {
        m_model.stats.add(
            "import.nsys_unknown_event_class", Severity::Info, otherClasses,
            table + " rows with an eventClass other than CUDA runtime/driver, kept as domain Other");
    }
    return s;
}

Status Importer::readSyncs() {
    const std::string table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    Result<std::optional<Query>> q = select(table,
                                            {{{"start"}, true},
                                             {{"end"}, true},
                                             {{"deviceId"}},
                                             {{"streamId"}},
                                             {{"correlationId"}},
                                             {{"syncType"}},
                                             {{"globalPid"}}},
                                            {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        SyncRow s;
        if (!readSpan(st, 0, 1, table, row, s.startNs, s.endNs) ||
            !readDevice(st, 2, table, row, s.deviceIndex)) {
            return;
        }
        // CUPTI writes 0xFFFFFFFF (and some exports -1) for "no stream" on context syncs.
        IntCell stream = readInt(st, 3);
        s.streamId =
            (stream.ok() && stream.value >= 0 && stream.value <= std::numeric_limits<std::int32_t>::max())
                ? static_cast<std::int32_t>(stream.value)
                : -1;
        s.correlationId =
            optionalInt(st, 4, table, row, "correlationId", 0, std::numeric_limits<std::uint32_t>::max());
        IntCell type = readInt(st, 5);
        if (type.ok()) {
            auto it = m_syncEnum.find(type.value);
            s.kind = it != m_syncEnum.end() ? syncKindFromSymbol(it->second) : syncKindFromValue(type.value);
        }
        IntCell pid = readInt(st, 6);
        std::int64_t p = pid.ok() ? pidOf(pid.value) : 0;
        m_model.syncs.add(s);
        m_syncPid.push_back(p);
    });
}

Status Importer::readNvtx() {
    const std::string table = "NVTX_EVENTS";
    Result<std::optional<Query>> q = select(table, {{{"start"}, true},
                                                    {{"end"}},
                                                    {{"eventType"}, true},
                                                    {{"text"}},
                                                    {{"textId"}},
                                                    {{"globalTid"}},
                                                    {{"domainId"}}});
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    struct Pending {
        RangeRow row;
        std::int64_t pid = 0;
        std::int64_t domainId = 0;
    };
    std::vector<Pending> pending;
    std::unordered_map<std::uint64_t, StringId> domains;  // (pid, domainId) -> name
    auto domainKey = [](std::int64_t pid, std::int64_t domainId) {
        return (static_cast<std::uint64_t>(pid) << 40) ^ static_cast<std::uint64_t>(domainId);
    };
    std::int64_t openRanges = 0;
    std::int64_t otherEvents = 0;
    Status s = scan(**q, [&](sqlite3_stmt* st, std::int64_t row) {
        IntCell type = readInt(st, 2);
        if (!type.ok()) {
            badRow(table, row, "eventType", type.state);
            return;
        }
        CellState textState = CellState::Null;
        std::string_view text = readText(st, 3, textState);
        StringId name;
        if (textState == CellState::Ok) {
            name = m_model.intern(text);
        } else if (IntCell textId = readInt(st, 4); textId.ok()) {
            name = stringFor(textId.value);
        } else {
            name = m_model.strings.emptyId();
        }
        IntCell tid = readInt(st, 5);
        std::int64_t pid = tid.ok() ? pidOf(tid.value) : 0;
        IntCell domain = readInt(st, 6);
        std::int64_t domainId = domain.ok() ? domain.value : 0;
        switch (type.value) {
            case kNvtxDomainCreate:
                domains.emplace(domainKey(pid, domainId), name);
                return;
            case kNvtxThread:
                if (tid.ok()) {
                    ThreadIndex index = threadFor(tid.value);
                    m_model.threads[index].name = std::string(m_model.text(name));
                }
                return;
            case kNvtxPushPop:
            case kNvtxStartEnd:
            case kNvtxtPushPop:
            case kNvtxtStartEnd:
            case kNvtxMark:
                break;
            default:
                ++otherEvents;
                return;
        }
        Pending p;
        IntCell start = readInt(st, 0);
        if (!start.ok()) {
            badRow(table, row, "start", start.state);
            return;
        }
        p.row.startNs = start.value;
        IntCell end = readInt(st, 1);
        if (type.value == kNvtxMark) {
            p.row.endNs = p.row.startNs;
        } else if (end.ok()) {
            p.row.endNs = end.value;
            if (p.row.endNs < p.row.startNs) {
                m_model.stats.add("import.negative_duration_clamped", Severity::Warning, 1,
                                  m_db.displayName() + ": table " + table + ": row " + std::to_string(row) +
                                      ": end before start; duration set to 0");
                p.row.endNs = p.row.startNs;
            }
        } else {
            // A range still open when the capture stopped (end NULL): kept with zero length.
            ++openRanges;
            p.row.endNs = p.row.startNs;
        }
        p.row.source = RangeSource::Nvtx;
        p.row.thread = tid.ok() ? threadFor(tid.value) : kNoThread;
        p.row.name = name;
        p.pid = pid;
        p.domainId = domainId;
        pending.push_back(p);
    });
    if (!s.ok()) {
        return s;
    }
    // Domains are created before use, but rows are not guaranteed to come in time order, so names
    // are resolved once all rows are read.
    for (Pending& p : pending) {
        if (p.domainId != 0) {
            auto it = domains.find(domainKey(p.pid, p.domainId));
            p.row.domain =
                it != domains.end() ? it->second : m_model.intern("domain " + std::to_string(p.domainId));
        }
        m_model.ranges.add(p.row);
    }
    if (openRanges > 0) {
        m_model.stats.add(
            "import.nsys_nvtx_open_range", Severity::Warning, openRanges,
            "NVTX ranges without an end (still open when the capture stopped); kept with zero length");
    }
    if (otherEvents > 0) {
        m_model.stats.add(
            "import.nsys_nvtx_other_events", Severity::Info, otherEvents,
            "NVTX rows that are not ranges or marks (categories, domain destroy, payload-only)");
    }
    return Ok{};
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

Status Importer::readProcessNames(std::unordered_map<std::int64_t, std::string>& names) {
    Result<std::optional<Query>> q = select("PROCESSES", {{{"pid"}, true}, {{"name"}}}, {}, false);
    if (!q.ok()) {
        return q.error();
    }
    if (!q->has_value()) {
        return Ok{};
    }
    return scan(**q, [&](sqlite3_stmt* st, std::int64_t) {
        IntCell pid = readInt(st, 0);
        CellState state = CellState::Null;
        std::string_view name = readText(st, 1, state);
        if (pid.ok() && state == CellState::Ok && m_pids.count(pid.value)) {
            names.emplace(pid.value, std::string(name));
        }
    });
}

void Importer::addProcesses(const std::unordered_map<std::int64_t, std::string>& processNames) {
    for (std::int64_t pid : m_pids) {
        if (pid == 0) {
            continue;
        }
        auto it = processNames.find(pid);
        m_model.processes.push_back(ProcessInfo{pid, it != processNames.end() ? it->second : std::string()});
    }
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
    const Step steps[] = {&Importer::readMetadata, &Importer::readStrings,     &Importer::readThreadNames,
                          &Importer::readDevices,  &Importer::readKernels,     &Importer::readMemcpys,
                          &Importer::readMemsets,  &Importer::readGraphTraces, &Importer::readGpuMetrics};
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

}  // namespace

Result<TraceModel> importNsysSqlite(const std::string& path, const LoadOptions& options) {
    Result<SqliteDb> db = SqliteDb::openFile(path);
    if (!db.ok()) {
        return db.error();
    }
    Importer importer(db.value(), options);
    return importer.run();
}

Result<TraceModel> importNsysSqliteBytes(const void* bytes, std::size_t size, const std::string& displayName,
                                         const LoadOptions& options) {
    Result<SqliteDb> db = SqliteDb::openBytes(bytes, size, displayName);
    if (!db.ok()) {
        return db.error();
    }
    Importer importer(db.value(), options);
    return importer.run();
}

}  // namespace chokepoint::core

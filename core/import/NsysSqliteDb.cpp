#include "core/import/NsysSqliteDb.h"

#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

namespace chokepoint::core::nsys {

namespace {

constexpr unsigned char kSqliteMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                            'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
constexpr std::size_t kHeaderBytes = 100;

std::uint32_t bigEndian32(const unsigned char* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
}

// Percent-encodes a path for an SQLite "file:" URI (https://www.sqlite.org/uri.html).
std::string uriEncode(const std::string& path) {
    static const char* kHex = "0123456789ABCDEF";
    std::string out;
    out.reserve(path.size() + 16);
    for (unsigned char c : path) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                     c == '.' || c == '_' || c == '-' || c == '~';
        if (plain) {
            out.push_back(static_cast<char>(c));
        } else {
            out.push_back('%');
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
        }
    }
    return out;
}

bool startsWithNoCase(std::string_view text, std::string_view prefix) {
    if (text.size() < prefix.size()) {
        return false;
    }
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        char a = text[i];
        char b = prefix[i];
        if (a >= 'a' && a <= 'z') {
            a = static_cast<char>(a - 'a' + 'A');
        }
        if (a != b) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::string checkSqliteHeader(const unsigned char* header, std::size_t headerBytes,
                              std::uint64_t totalBytes) {
    if (totalBytes == 0) {
        return "empty file (0 bytes), not an SQLite database";
    }
    if (headerBytes < kHeaderBytes || std::memcmp(header, kSqliteMagic, sizeof(kSqliteMagic)) != 0) {
        return "byte 0: not an SQLite database (missing 'SQLite format 3' header)";
    }
    // Page size at offset 16 (big-endian; 1 means 65536). The in-header page count at offset 28 is
    // valid when the "version-valid-for" number at 92 equals the change counter at 24.
    std::uint32_t pageSize = (std::uint32_t{header[16]} << 8) | header[17];
    if (pageSize == 1) {
        pageSize = 65536;
    }
    if (pageSize < 512 || (pageSize & (pageSize - 1)) != 0) {
        return "byte 16: invalid SQLite page size " + std::to_string(pageSize);
    }
    std::uint32_t changeCounter = bigEndian32(header + 24);
    std::uint32_t pageCount = bigEndian32(header + 28);
    std::uint32_t validFor = bigEndian32(header + 92);
    if (validFor == changeCounter && pageCount > 0) {
        std::uint64_t expected = std::uint64_t{pageCount} * pageSize;
        if (totalBytes < expected) {
            return "truncated database: header records " + std::to_string(pageCount) + " pages of " +
                   std::to_string(pageSize) + " bytes (" + std::to_string(expected) + " bytes) but only " +
                   std::to_string(totalBytes) + " bytes are present";
        }
    }
    return {};
}

SqliteDb::~SqliteDb() {
    if (m_db) {
        sqlite3_close_v2(m_db);
    }
}

SqliteDb::SqliteDb(SqliteDb&& other) noexcept
    : m_db(other.m_db),
      m_name(std::move(other.m_name)),
      m_tables(std::move(other.m_tables)),
      m_progress(other.m_progress),
      m_fraction(other.m_fraction),
      m_cancelled(other.m_cancelled),
      m_image(std::move(other.m_image)) {
    other.m_db = nullptr;
    if (m_db) {
        sqlite3_progress_handler(m_db, 100000, &SqliteDb::progressHandler, this);
    }
}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
    if (this != &other) {
        if (m_db) {
            sqlite3_close_v2(m_db);
        }
        m_db = other.m_db;
        other.m_db = nullptr;
        m_name = std::move(other.m_name);
        m_tables = std::move(other.m_tables);
        m_progress = other.m_progress;
        m_fraction = other.m_fraction;
        m_cancelled = other.m_cancelled;
        m_image = std::move(other.m_image);
        if (m_db) {
            sqlite3_progress_handler(m_db, 100000, &SqliteDb::progressHandler, this);
        }
    }
    return *this;
}

Result<SqliteDb> SqliteDb::openFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return makeError(path + ": cannot open file");
    }
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    if (size < 0) {
        return makeError(path + ": cannot read file size (is it a directory?)");
    }
    in.seekg(0, std::ios::beg);
    unsigned char header[kHeaderBytes] = {};
    in.read(reinterpret_cast<char*>(header), kHeaderBytes);
    std::string problem =
        checkSqliteHeader(header, static_cast<std::size_t>(in.gcount()), static_cast<std::uint64_t>(size));
    if (!problem.empty()) {
        return makeError(path + ": " + problem);
    }
    in.close();

    SqliteDb db;
    db.m_name = path;
    // immutable=1: the export is never written to, so SQLite takes no locks and ignores journals
    // (nsys's docs note that exports on file systems without locking fail otherwise).
    std::string uri = "file:" + uriEncode(path) + "?immutable=1";
    int rc = sqlite3_open_v2(uri.c_str(), &db.m_db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = db.m_db ? sqlite3_errmsg(db.m_db) : sqlite3_errstr(rc);
        return makeError(path + ": cannot open as SQLite: " + message);
    }
    if (Status s = db.initialise(); !s.ok()) {
        return s.error();
    }
    return db;
}

Result<SqliteDb> SqliteDb::openBytes(const void* bytes, std::size_t size, const std::string& displayName) {
    std::string problem = checkSqliteHeader(static_cast<const unsigned char*>(bytes), size, size);
    if (!problem.empty()) {
        return makeError(displayName + ": " + problem);
    }
    SqliteDb db;
    db.m_name = displayName;
    int rc = sqlite3_open_v2(":memory:", &db.m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        return makeError(displayName + ": cannot create an in-memory SQLite database");
    }
    db.m_image.reset(new unsigned char[size]);
    std::memcpy(db.m_image.get(), bytes, size);
    rc = sqlite3_deserialize(db.m_db, "main", db.m_image.get(), static_cast<sqlite3_int64>(size),
                             static_cast<sqlite3_int64>(size), SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) {
        return makeError(displayName + ": cannot load as SQLite: " + sqlite3_errmsg(db.m_db));
    }
    if (Status s = db.initialise(); !s.ok()) {
        return s.error();
    }
    return db;
}

Status SqliteDb::initialise() {
    // Limits well above anything a real export needs, far below what an attack needs.
    // Strings and blobs: nsys stores whole captured stdout streams in StringIds, so allow large
    // values; a file cannot make SQLite hold more than it contains anyway.
    sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, 256 * 1024 * 1024);
    sqlite3_limit(m_db, SQLITE_LIMIT_SQL_LENGTH, 64 * 1024);
    sqlite3_limit(m_db, SQLITE_LIMIT_COLUMN, 2000);
    sqlite3_limit(m_db, SQLITE_LIMIT_EXPR_DEPTH, 100);
    sqlite3_limit(m_db, SQLITE_LIMIT_COMPOUND_SELECT, 4);
    sqlite3_limit(m_db, SQLITE_LIMIT_VDBE_OP, 25000);
    sqlite3_limit(m_db, SQLITE_LIMIT_FUNCTION_ARG, 8);
    sqlite3_limit(m_db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_limit(m_db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 50);
    sqlite3_limit(m_db, SQLITE_LIMIT_VARIABLE_NUMBER, 16);
    sqlite3_limit(m_db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_busy_timeout(m_db, 0);
    sqlite3_progress_handler(m_db, 100000, &SqliteDb::progressHandler, this);
    sqlite3_exec(m_db, "PRAGMA cell_size_check=ON; PRAGMA mmap_size=0; PRAGMA query_only=ON;", nullptr,
                 nullptr, nullptr);

    // Reading the schema is the first real access: a file that is not a database, or a damaged
    // schema, fails here with SQLite's message.
    Result<Statement> st =
        Statement::prepare(*this, "SELECT name, sql FROM sqlite_master WHERE type='table'");
    if (!st.ok()) {
        return st.error();
    }
    bool failed = false;
    while (st->step(failed)) {
        CellState nameState = CellState::Null;
        CellState sqlState = CellState::Null;
        std::string_view name = readText(st->get(), 0, nameState);
        std::string_view sql = readText(st->get(), 1, sqlState);
        if (nameState != CellState::Ok || startsWithNoCase(sql, "CREATE VIRTUAL")) {
            continue;  // virtual tables run module code: never read them
        }
        m_tables.emplace_back(name);
    }
    if (failed) {
        return makeError(m_name + ": cannot read the database schema: " + lastError());
    }
    return Ok{};
}

int SqliteDb::progressHandler(void* self) {
    auto* db = static_cast<SqliteDb*>(self);
    if (db->m_progress && !reportProgress(*db->m_progress, db->m_fraction)) {
        db->m_cancelled = true;
        return 1;  // interrupts the running statement
    }
    return 0;
}

bool SqliteDb::hasTable(std::string_view name) const {
    for (const std::string& table : m_tables) {
        if (table == name) {
            return true;
        }
    }
    return false;
}

Result<std::vector<std::string>> SqliteDb::columns(const std::string& table) const {
    std::vector<std::string> names;
    if (!hasTable(table)) {
        return names;
    }
    Result<Statement> st = Statement::prepare(*this, "SELECT name FROM pragma_table_info(?1)");
    if (!st.ok()) {
        return st.error();
    }
    sqlite3_bind_text(st->get(), 1, table.c_str(), static_cast<int>(table.size()), SQLITE_TRANSIENT);
    bool failed = false;
    while (st->step(failed)) {
        CellState state = CellState::Null;
        std::string_view name = readText(st->get(), 0, state);
        if (state == CellState::Ok) {
            names.emplace_back(name);
        }
    }
    if (failed) {
        return makeError(m_name + ": table " + table + ": cannot read its columns: " + lastError());
    }
    return names;
}

std::string SqliteDb::lastError() const {
    return m_db ? sqlite3_errmsg(m_db) : "no database";
}

Statement::~Statement() {
    if (m_stmt) {
        sqlite3_finalize(m_stmt);
    }
}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        if (m_stmt) {
            sqlite3_finalize(m_stmt);
        }
        m_stmt = other.m_stmt;
        other.m_stmt = nullptr;
    }
    return *this;
}

Result<Statement> Statement::prepare(const SqliteDb& db, const std::string& sql) {
    Statement st;
    int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &st.m_stmt, nullptr);
    if (rc != SQLITE_OK) {
        return makeError(db.displayName() + ": " + db.lastError());
    }
    return st;
}

bool Statement::step(bool& failed) {
    int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) {
        return true;
    }
    failed = rc != SQLITE_DONE;
    return false;
}

IntCell readInt(sqlite3_stmt* stmt, int column) {
    IntCell cell;
    switch (sqlite3_column_type(stmt, column)) {
        case SQLITE_INTEGER:
            cell.value = sqlite3_column_int64(stmt, column);
            cell.state = CellState::Ok;
            break;
        case SQLITE_NULL:
            cell.state = CellState::Null;
            break;
        case SQLITE_FLOAT: {
            double d = sqlite3_column_double(stmt, column);
            // 9.2e18 keeps the conversion inside int64.
            if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18) {
                cell.value = static_cast<std::int64_t>(d);
                cell.state = CellState::Ok;
            } else {
                cell.state = CellState::WrongType;
            }
            break;
        }
        default:
            cell.state = CellState::WrongType;
            break;
    }
    return cell;
}

std::string_view readText(sqlite3_stmt* stmt, int column, CellState& state) {
    int type = sqlite3_column_type(stmt, column);
    if (type == SQLITE_NULL) {
        state = CellState::Null;
        return {};
    }
    if (type == SQLITE_BLOB) {
        state = CellState::WrongType;
        return {};
    }
    const unsigned char* text = sqlite3_column_text(stmt, column);
    int bytes = sqlite3_column_bytes(stmt, column);
    if (!text || bytes < 0) {
        state = CellState::WrongType;  // out of memory or too big
        return {};
    }
    state = CellState::Ok;
    return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(bytes)};
}

}  // namespace chokepoint::core::nsys

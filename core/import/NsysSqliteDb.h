#pragma once
// A hardened, read-only SQLite connection for untrusted Nsight Systems exports, plus typed cell
// readers that never trust a column's declared type.
//
// Hardening follows SQLite's own advice for untrusted database files
// (https://www.sqlite.org/security.html, "Untrusted SQLite Database Files"): read-only and
// immutable open, no extension loading, defensive mode, untrusted schema, no triggers or views,
// tight sqlite3_limit() values, cell size checks, a busy timeout of 0, and a progress handler so
// that a hostile file cannot make a query run forever (the caller's ProgressFn can cancel too).
// Before SQLite sees a file, its 100-byte header is checked: an empty file, a file that is not
// SQLite, or one shorter than the page count its header records gives a clear Error.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/Progress.h"
#include "core/base/Result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace chokepoint::core::nsys {

// Checks the SQLite header of an in-memory image or a file's first bytes. `totalBytes` is the size
// of the whole file. Returns an error message (without the file name) or an empty string.
std::string checkSqliteHeader(const unsigned char* header, std::size_t headerBytes, std::uint64_t totalBytes);

class SqliteDb {
public:
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;
    SqliteDb(SqliteDb&& other) noexcept;
    SqliteDb& operator=(SqliteDb&& other) noexcept;

    // Opens `path` read-only (immutable). Errors name the file.
    static Result<SqliteDb> openFile(const std::string& path);
    // Opens a copy of `bytes` as a read-only in-memory database (used by the fuzzer and tests).
    static Result<SqliteDb> openBytes(const void* bytes, std::size_t size, const std::string& displayName);

    sqlite3* handle() const { return m_db; }
    const std::string& displayName() const { return m_name; }

    // Installs the cancel check used while queries run; `fraction` is what is reported.
    void setProgress(const ProgressFn* progress) { m_progress = progress; }
    void setProgressFraction(double fraction) { m_fraction = fraction; }
    bool cancelled() const { return m_cancelled; }

    // Ordinary (not virtual, not view) tables present in the file, as named in sqlite_master.
    const std::vector<std::string>& tables() const { return m_tables; }
    bool hasTable(std::string_view name) const;
    // Column names of `table` (PRAGMA table_info); empty when the table is absent.
    Result<std::vector<std::string>> columns(const std::string& table) const;

    // The last SQLite error message on this connection.
    std::string lastError() const;

private:
    SqliteDb() = default;
    Status initialise();
    static int progressHandler(void* self);

    sqlite3* m_db = nullptr;
    std::string m_name;
    std::vector<std::string> m_tables;
    const ProgressFn* m_progress = nullptr;
    double m_fraction = 0;
    bool m_cancelled = false;
    std::unique_ptr<unsigned char[]> m_image;  // not owned by SQLite (SQLITE_DESERIALIZE_READONLY)
};

// A prepared statement; finalized on destruction.
class Statement {
public:
    Statement() = default;
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    Statement(Statement&& other) noexcept : m_stmt(other.m_stmt) { other.m_stmt = nullptr; }
    Statement& operator=(Statement&& other) noexcept;

    // Prepares `sql`; the error names the database and the statement's purpose.
    static Result<Statement> prepare(const SqliteDb& db, const std::string& sql);

    // Advances to the next row: true when a row is available, false when done. On error returns
    // false and sets `failed`.
    bool step(bool& failed);
    sqlite3_stmt* get() const { return m_stmt; }

private:
    sqlite3_stmt* m_stmt = nullptr;
};

enum class CellState : std::uint8_t { Ok, Null, WrongType };

struct IntCell {
    std::int64_t value = 0;
    CellState state = CellState::Null;
    bool ok() const { return state == CellState::Ok; }
};

// Integer cell: INTEGER as is; REAL only when it holds an exact integer in int64 range; NULL gives
// Null; TEXT, BLOB and other REALs give WrongType.
IntCell readInt(sqlite3_stmt* stmt, int column);
// Text cell: TEXT (or a number, converted); NULL gives an empty view with Null; BLOB is WrongType.
// The view is valid until the next step.
std::string_view readText(sqlite3_stmt* stmt, int column, CellState& state);

}  // namespace chokepoint::core::nsys

#pragma once
// Thin RAII over the SQLite C API, in the manner of Nix's sqlite.hh. Every raw sqlite3_*
// call of the store lives in sqlite.cc, so error handling is written once: any failure
// throws Error (a std::runtime_error) naming the database file and SQLite's own message.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace mace::store {

class Statement;

// What every failing call throws. A std::runtime_error, so callers that only report need
// nothing more; `code` is SQLite's primary result code for those that retry.
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int code) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }
  // SQLITE_BUSY: another connection holds a lock the busy handler did not wait out.
  bool busy() const;

 private:
  int code_;
};

// What a statement does, in words for an error message: "write to events", "read runs",
// "commit". Errors reach people (a full disk, say), who need the what, not the SQL.
std::string describe_statement(std::string_view sql);

class Database {
 public:
  // `flags` are sqlite3_open_v2 flags; 0 means read-write, create when absent.
  explicit Database(const std::filesystem::path& path, int flags = 0);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more statements that return no rows the caller needs.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);

  void set_busy_timeout(int ms);
  int64_t last_insert_rowid() const;
  // Rows changed by the most recent INSERT, UPDATE or DELETE on this connection.
  int64_t changes() const;
  bool in_transaction() const;

  const std::filesystem::path& path() const { return path_; }

  // Any statement still running at `deadline` is interrupted and fails (SQLITE_INTERRUPT),
  // so a check of a large file can be bounded in time; unset: none.
  void set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline);
  static bool is_interrupt(const Error& error);

  // Copies the whole database, as one consistent snapshot, into a new file at `destination`
  // (SQLite's online backup: in WAL mode writers of this file go on meanwhile).
  void backup_to(const std::filesystem::path& destination);

  // Throws the store's error for a failed call whose result code is `rc`.
  [[noreturn]] void fail(int rc, std::string_view what) const;

 private:
  friend class Statement;
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
};

class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are numbered from 1, as in SQL's ?1.
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, uint32_t value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, bool value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::nullopt_t);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, std::nullopt);
  }

  // Advances one row: true when a row is available, false when the statement is done.
  bool step();
  // Steps a statement that returns no rows to completion.
  void run();
  // Makes the statement ready to run again and clears its bindings.
  void reset();

  // Columns are numbered from 0. A NULL reads as "", 0 or 0.0.
  bool is_null(int column) const;
  std::string text(int column) const;
  int64_t int64(int column) const;
  double real(int column) const;
  std::optional<std::string> optional_text(int column) const;
  std::optional<int64_t> optional_int64(int column) const;
  std::optional<double> optional_real(int column) const;

 private:
  friend class Database;
  Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  void check_bind(int rc, int index);

  Database* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE takes the write lock up front, so a writer waits in the busy handler
// rather than failing with SQLITE_BUSY when it upgrades a read to a write in WAL mode.
// Rolls back on destruction unless committed, so an exception undoes partial work.
// Opened inside another transaction it becomes a savepoint, so a caller may wrap a whole
// recorded step around store calls that take their own transaction.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit();

 private:
  Database& db_;
  bool nested_;
  bool active_ = true;
};

}  // namespace mace::store

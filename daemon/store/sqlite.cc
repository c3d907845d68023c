#include "store/sqlite.h"

#include <cctype>

#include <sqlite3.h>

#include <utility>

namespace mace::store {

bool Error::busy() const { return code_ == SQLITE_BUSY; }

Database::Database(const std::filesystem::path& path, int flags) : path_(path) {
  if (flags == 0) flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  // Each Store is one connection used by one thread at a time, so SQLite's own
  // per-connection mutex buys nothing.
  flags |= SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // sqlite3_open_v2 hands back a handle even on failure, holding the message.
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(path_.string() + ": cannot open database: " + message, rc & 0xff);
  }
  sqlite3_extended_result_codes(db_, 1);
  // A WAL database's -wal and -shm files stay when the last connection closes. Otherwise
  // the next open must create them, and on a full disk it cannot: the database could not
  // even be read, and maced could not start to say what is wrong. With them kept, reads
  // work on a full disk and writes fail with "database or disk is full".
  int persist = 1;
  sqlite3_file_control(db_, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
}

void Database::set_deadline(std::optional<std::chrono::steady_clock::time_point> deadline) {
  deadline_ = deadline;
  if (!deadline_) {
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
    return;
  }
  // Every few thousand virtual-machine steps: cheap, and fine-grained enough for seconds.
  sqlite3_progress_handler(
      db_, 4096,
      [](void* self) -> int {
        const auto& deadline = static_cast<Database*>(self)->deadline_;
        return deadline && std::chrono::steady_clock::now() >= *deadline ? 1 : 0;
      },
      this);
}

bool Database::is_interrupt(const Error& error) { return error.code() == SQLITE_INTERRUPT; }

void Database::backup_to(const std::filesystem::path& destination) {
  Database copy(destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  sqlite3_backup* backup = sqlite3_backup_init(copy.db_, "main", db_, "main");
  if (!backup) copy.fail(sqlite3_errcode(copy.db_), "start the backup");
  // All pages in one step: one read transaction, so one snapshot.
  int rc = sqlite3_backup_step(backup, -1);
  const int finish = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) fail(rc, "copy the database");
  if (finish != SQLITE_OK) copy.fail(finish, "finish the backup");
}

Database::~Database() {
  // close_v2, not close: a Statement that outlives its Database (a caller's bug) then
  // defers the close instead of leaking the connection.
  sqlite3_close_v2(db_);
}

namespace {

// The next word of `sql` from `pos` on, upper-case; "" at punctuation or the end.
std::string next_word(std::string_view sql, size_t& pos) {
  while (pos < sql.size() && std::isspace(static_cast<unsigned char>(sql[pos]))) ++pos;
  std::string word;
  while (pos < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[pos])) || sql[pos] == '_'))
    word += static_cast<char>(std::toupper(static_cast<unsigned char>(sql[pos++])));
  return word;
}

std::string lower(std::string word) {
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return word;
}

// The table named after the first `marker` (INTO, FROM), lower-case; "" if none.
std::string table_after(std::string_view sql, std::string_view marker) {
  size_t pos = 0;
  while (pos < sql.size()) {
    std::string word = next_word(sql, pos);
    if (word.empty()) {
      ++pos;  // punctuation
    } else if (word == marker) {
      return lower(next_word(sql, pos));
    }
  }
  return "";
}

}  // namespace

std::string describe_statement(std::string_view sql) {
  size_t pos = 0;
  const std::string verb = next_word(sql, pos);
  auto on = [](const std::string& what, const std::string& table) {
    return table.empty() ? what : what + " " + table;
  };
  if (verb == "INSERT" || verb == "REPLACE") return on("write to", table_after(sql, "INTO"));
  if (verb == "UPDATE") return on("update", lower(next_word(sql, pos)));
  if (verb == "DELETE") return on("delete from", table_after(sql, "FROM"));
  if (verb == "SELECT" || verb == "WITH") return on("read", table_after(sql, "FROM"));
  if (verb == "BEGIN" || verb == "SAVEPOINT") return "start a transaction";
  if (verb == "COMMIT" || verb == "RELEASE" || verb == "END") return "commit";
  if (verb == "ROLLBACK") return "roll back";
  if (verb == "PRAGMA") return on("set", lower(next_word(sql, pos)));
  return "change the schema";
}

void Database::fail(int rc, std::string_view what) const {
  std::string message = path_.string();
  message += ": ";
  message += what;
  message += ": ";
  // The connection's message describes the last failed call on it; when that call was
  // not the one that returned `rc`, the generic text for the code is still right.
  if (db_ && (sqlite3_extended_errcode(db_) & 0xff) == (rc & 0xff))
    message += sqlite3_errmsg(db_);
  else
    message += sqlite3_errstr(rc);
  throw Error(message, rc & 0xff);
}

void Database::exec(std::string_view sql) {
  std::string owned(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string message = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    // In words, not SQL: this reaches people (a full disk, a read-only file).
    throw Error(path_.string() + ": cannot " + describe_statement(owned) + ": " + message, rc & 0xff);
  }
}

Statement Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) fail(rc, "cannot " + describe_statement(sql));
  return Statement(*this, stmt);
}

void Database::set_busy_timeout(int ms) {
  int rc = sqlite3_busy_timeout(db_, ms);
  if (rc != SQLITE_OK) fail(rc, "cannot set busy timeout");
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int64_t Database::changes() const { return sqlite3_changes(db_); }

bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::check_bind(int rc, int index) {
  if (rc != SQLITE_OK) db_->fail(rc, "cannot bind parameter " + std::to_string(index));
}

Statement& Statement::bind(int index, std::string_view text) {
  // SQLite binds a null pointer as NULL; an empty view is the empty text, whatever its
  // pointer (a default-constructed view has none).
  const char* data = text.data() != nullptr ? text.data() : "";
  check_bind(sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_TRANSIENT,
                                 SQLITE_UTF8),
             index);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& Statement::bind(int index, std::nullopt_t) {
  check_bind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // Leave the statement re-runnable; the error itself is reported from `rc`.
  sqlite3_reset(stmt_);
  db_->fail(rc, "cannot " + describe_statement(sqlite3_sql(stmt_)));
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string Statement::text(int column) const {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (!p) return {};
  return std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::optional<std::string> Statement::optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return text(column);
}

std::optional<int64_t> Statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

std::optional<double> Statement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

Transaction::Transaction(Database& db) : db_(db), nested_(db.in_transaction()) {
  db_.exec(nested_ ? "SAVEPOINT mace_nested" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!active_) return;
  // A failed statement may already have rolled the whole transaction back (SQLite does
  // so for some errors, such as SQLITE_FULL); a second ROLLBACK would then fail.
  if (!db_.in_transaction()) return;
  try {
    // ROLLBACK TO undoes the savepoint's work but leaves it open; RELEASE closes it.
    db_.exec(nested_ ? "ROLLBACK TO mace_nested; RELEASE mace_nested" : "ROLLBACK");
  } catch (...) {
    // A destructor must not throw; closing the connection ends the transaction at worst.
  }
}

void Transaction::commit() {
  db_.exec(nested_ ? "RELEASE mace_nested" : "COMMIT");
  active_ = false;
}

}  // namespace mace::store

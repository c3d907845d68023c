#include "store/store.h"

#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>

#include "store/migrations.h"
#include "store/sqlite.h"

namespace mace::store {
namespace {

constexpr int kBusyTimeoutMs = 5000;

std::string pragma_text(Database& db, const char* sql) {
  auto stmt = db.prepare(sql);
  return stmt.step() ? stmt.text(0) : std::string();
}

// Switching a file to WAL takes its exclusive lock without consulting the busy handler,
// so a connection opening a new file while another one switches it gets SQLITE_BUSY at
// once. Wait that out here as the handler would.
std::string enter_wal(Database& db) {
  using namespace std::chrono;
  auto deadline = steady_clock::now() + milliseconds(kBusyTimeoutMs);
  for (auto pause = milliseconds(1);; pause = std::min(pause * 2, milliseconds(100))) {
    try {
      return pragma_text(db, "PRAGMA journal_mode = WAL");
    } catch (const Error& e) {
      if (!e.busy() || steady_clock::now() + pause > deadline) throw;
    }
    std::this_thread::sleep_for(pause);
  }
}

}  // namespace

std::unique_ptr<Store> Store::open(const std::filesystem::path& path) {
  auto db = std::make_unique<Database>(path);
  // First, so every later statement, including the pragmas below, waits out a writer in
  // another connection instead of failing at once.
  db->set_busy_timeout(kBusyTimeoutMs);
  // Before anything that writes, so a newer maced's file is left exactly as it was.
  refuse_newer_schema(*db);

  // journal_mode answers with the mode now in force, which is not WAL when the file
  // system cannot share memory between processes (some network file systems); readers
  // would then block writers, so refuse rather than run degraded.
  std::string mode = enter_wal(*db);
  if (mode != "wal")
    throw std::runtime_error(path.string() + ": cannot use WAL journal mode (got \"" + mode +
                             "\")");
  db->exec("PRAGMA foreign_keys = ON");
  if (pragma_text(*db, "PRAGMA foreign_keys") != "1")
    throw std::runtime_error(path.string() + ": this SQLite does not enforce foreign keys");
  // In WAL mode NORMAL loses at most the last commits on power loss, never consistency;
  // FULL would fsync on every event.
  db->exec("PRAGMA synchronous = NORMAL");
  // The -wal file is kept between opens (sqlite.cc); after a checkpoint it is cut back to
  // this, so a burst of writes does not hold its size for ever.
  db->exec("PRAGMA journal_size_limit = 33554432");

  migrate(*db);
  return std::unique_ptr<Store>(new Store(std::move(db)));
}

Store::Store(std::unique_ptr<Database> db) : db_(std::move(db)) {}

Store::~Store() = default;

Database& Store::database() { return *db_; }

int Store::schema_version() const { return read_schema_version(*db_); }

}  // namespace mace::store

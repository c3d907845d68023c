#include "store/database_check.h"

#include <sqlite3.h>

#include <system_error>

#include "store/sqlite.h"

namespace mace::store {
namespace {

constexpr std::size_t kMaxProblems = 5;
constexpr std::size_t kMaxProblemBytes = 500;

std::string clipped(std::string text) {
  if (text.size() > kMaxProblemBytes) text = text.substr(0, kMaxProblemBytes) + "...";
  return text;
}

}  // namespace

DatabaseCheck check_database(const std::filesystem::path& path, std::chrono::milliseconds limit) {
  DatabaseCheck check;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0) return check;
  try {
    // Read-write, as maced opens it, so a -wal left by a maced that was killed is read too;
    // quick_check itself writes nothing.
    Database db(path, SQLITE_OPEN_READWRITE);
    db.set_busy_timeout(5000);
    db.set_deadline(std::chrono::steady_clock::now() + limit);
    auto stmt = db.prepare("PRAGMA quick_check(" + std::to_string(kMaxProblems) + ")");
    while (stmt.step()) {
      std::string line = stmt.text(0);
      if (line != "ok") check.problems.push_back(clipped(std::move(line)));
    }
  } catch (const Error& e) {
    if (Database::is_interrupt(e))
      check.complete = false;
    else
      check.problems.push_back(clipped(e.what()));
  } catch (const std::exception& e) {
    check.problems.push_back(clipped(e.what()));
  }
  return check;
}

}  // namespace mace::store

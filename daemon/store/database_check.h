#pragma once
// Whether a database file is whole, before maced trusts it: PRAGMA quick_check, bounded in
// time. A file damaged in its middle (a disk fault, a copy cut short, bytes written over
// it) otherwise opens without a word and then fails every later read and write with
// "database disk image is malformed", which says nothing of what to do.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace mace::store {

struct DatabaseCheck {
  // What SQLite found wrong (quick_check's lines, or why the file could not be read at
  // all), at most a few; empty: nothing.
  std::vector<std::string> problems;
  // False when the time ran out before the check was through: what was read is sound, the
  // rest is unknown.
  bool complete = true;
};

// Checks the database at `path` for at most `limit`. A file that does not exist, or is
// empty, is a new store: nothing to check. Reads only; never throws.
DatabaseCheck check_database(const std::filesystem::path& path, std::chrono::milliseconds limit);

}  // namespace mace::store

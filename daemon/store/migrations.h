#pragma once
// The schema's history. PRAGMA user_version holds the number of migrations a database
// has had; each migration runs once, in order, in its own transaction.

#include <functional>

#include "store/sqlite.h"

namespace mace::store {

// The version this binary's last migration leaves a database at.
int latest_schema_version();

// PRAGMA user_version of `db`.
int read_schema_version(Database& db);

// Throws when `db` was written by a newer maced, whose schema this one cannot know.
void refuse_newer_schema(Database& db);

// Applies every migration `db` lacks and returns how many it applied. Safe when several
// connections open the same new file at once: each migration re-reads the version under
// the write lock and skips itself when another connection got there first. `up_to` stops
// at an older version, for tests of the migrations themselves.
int migrate(Database& db, int up_to = latest_schema_version());

// As migrate, calling `before_commit(version)` once each migration's statements have run and
// before its transaction commits: crash tests end the process there, to see the next start
// finish what was cut short.
int migrate(Database& db, int up_to, const std::function<void(int version)>& before_commit);

}  // namespace mace::store

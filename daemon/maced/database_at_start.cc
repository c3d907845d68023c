#include "maced/database_at_start.h"

#include "os/text.h"
#include "store/database_check.h"

namespace mace {

bool database_is_usable(const std::filesystem::path& database, std::ostream& log, std::chrono::milliseconds limit) {
  const store::DatabaseCheck check = store::check_database(database, limit);
  if (!check.complete)
    log << "maced: the check of " << database.string() << " was not through after "
        << std::chrono::duration_cast<std::chrono::seconds>(limit).count()
        << " s; starting on what it read, which was sound\n";
  if (check.problems.empty()) return true;
  log << "maced: " << database.string() << " is damaged, and maced will not start on it:\n";
  for (const auto& problem : check.problems)
    for (std::string_view line : os::split_lines_dropping_newlines(problem)) log << "  " << line << "\n";
  log << "To recover, stop anything that uses it and either\n"
         "  - restore the latest backup: maced --restore BACKUP (docs/operating-maced.md, \"Backups\"), or\n"
         "  - move mace.db, mace.db-wal and mace.db-shm aside to start with an empty store "
         "(the runs' kept logs stay where they are, no longer listed).\n";
  return false;
}

}  // namespace mace

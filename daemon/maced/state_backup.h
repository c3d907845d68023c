#pragma once
// A backup of maced's state, and its restore (docs/operating-maced.md, "Backups"):
//
//   maced --backup DIR   [--state-dir ...] [--config ...]   while maced runs, or not
//   maced --restore DIR  [--state-dir ...] [--config ...]   with maced stopped
//
// The backup is a new directory holding
//   mace.db        SQLite's online backup of the store: one consistent snapshot, taken while
//                  runs go on writing (WAL lets them);
//   evidence/...   every kept file the snapshot names, by its path below the evidence root
//                  (one it names elsewhere, left by an evidence root configured differently
//                  once, is listed as outside and not copied);
//   backup.json    what it holds: MACE's version, the schema version, when, the evidence
//                  root, counts, and the kept files the snapshot named that were gone when
//                  they were copied (the retention rule removed them meanwhile).
// Only files the snapshot names are copied, so the backup is the store as it was at one
// moment, with its files: nothing half written, nothing it does not know of.
//
// A restore takes the state directory's lock (maced/state_lock.h: no maced may run on it),
// moves a mace.db already there aside (into before-restore-<time>/, nothing is lost),
// checks the backup's database, copies the files back (under the evidence root maced is
// configured with now, stored paths moved with them when that root differs), and puts the
// database in place last. The next start migrates a backup made by an earlier MACE.

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace mace {

struct BackupSummary {
  int schema_version = 0;
  std::size_t runs = 0;
  std::size_t files = 0;           // kept files copied
  std::uint64_t bytes = 0;         // of them
  std::vector<std::string> gone;   // named by the snapshot, removed before they were copied
  std::vector<std::string> outside;  // named by the snapshot, not under the evidence root
};

// Writes a backup of the state in `state_dir` (its kept files under `evidence_root`) into
// `destination`, which must not exist yet. Progress goes to `log`. Throws
// std::runtime_error saying what failed; a failed backup's directory is removed.
BackupSummary back_up_state(const std::filesystem::path& state_dir, const std::filesystem::path& evidence_root,
                            const std::filesystem::path& destination, std::ostream& log);

// Restores the backup in `source` into `state_dir`, its kept files under `evidence_root`.
// The caller holds the state directory's lock. Throws std::runtime_error saying what failed
// and what was left where.
BackupSummary restore_state(const std::filesystem::path& source, const std::filesystem::path& state_dir,
                            const std::filesystem::path& evidence_root, std::ostream& log);

}  // namespace mace

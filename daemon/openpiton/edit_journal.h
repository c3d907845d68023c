#pragma once
// The crash journal of applied RTL edits (REQ-EXEC-17). maced can be killed mid-task, and
// the next task on that checkout must not build the dead task's edits. So before the tree
// changes, every original is saved under <root>/build/.mace_edit_journal/ and the journal
// only counts once its manifest has been renamed into place: a journal without a manifest
// means "nothing was changed yet" and is discarded.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openpiton/edit_set.h"
#include "os/file_io.h"

namespace mace::openpiton {

// Relative to the checkout root.
inline constexpr std::string_view kJournalDir = "build/.mace_edit_journal";

// What a restore did. Errors do not stop it: it restores every file it can, and keeps the
// journal when anything failed so that restore_leftover_edits() can try again.
struct RestoreReport {
  std::vector<std::string> restored;  // originals written back (relative paths)
  std::vector<std::string> removed;   // files the edits had created, now removed
  std::vector<std::string> errors;    // one line each, naming the file
  // A journal without a manifest was found and removed; no file had been changed.
  bool discarded_incomplete_journal = false;

  bool ok() const { return errors.empty(); }
};

// Whether <root>/build/.mace_edit_journal exists (complete or not). `root` is canonical.
bool edit_journal_exists(const std::filesystem::path& root);

// Saves the originals of `files` (edited files of the canonical `root`) with their mode and
// owner, fsync'd, then renames the manifest into place. Returns, per file, the metadata the
// rewritten file must keep (nullopt for a file the edits create). Throws EditError, having
// removed the partial journal: nothing in the tree has changed then.
std::vector<std::optional<os::FileMeta>> write_edit_journal(const std::filesystem::path& root,
                                                            const std::vector<EditedFile>& files);

// Puts back every original the journal of `root` holds (bytes and mode), removes files the
// edits created, then removes the journal. A journal without a manifest is discarded. Safe
// whatever point an interrupted apply or restore reached, and idempotent.
RestoreReport restore_from_edit_journal(const std::filesystem::path& root);

}  // namespace mace::openpiton

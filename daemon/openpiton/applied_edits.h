#pragma once
// Edits applied to a checkout for one build and taken back out byte for byte afterwards
// (REQ-EXEC-15, 17), however the task ends: through a guard, and through the crash journal
// (edit_journal.h) when maced itself dies.
//
// Not thread-safe for one checkout: one task owns a checkout at a time. Different checkouts
// may be edited from different threads.

#include <filesystem>
#include <string>
#include <vector>

#include "openpiton/edit_journal.h"
#include "openpiton/edit_set.h"

namespace mace::openpiton {

// Edits applied to a checkout; restores them on destruction (REQ-EXEC-15: however the task
// ends, exceptions included). Move-only.
class AppliedEdits {
 public:
  AppliedEdits() = default;  // nothing applied
  AppliedEdits(AppliedEdits&& other) noexcept;
  AppliedEdits& operator=(AppliedEdits&& other) noexcept;
  AppliedEdits(const AppliedEdits&) = delete;
  AppliedEdits& operator=(const AppliedEdits&) = delete;
  // Restores, ignoring errors: a failed restore keeps its journal, and the next task on this
  // checkout restores it with restore_leftover_edits() before building (REQ-EXEC-17).
  ~AppliedEdits();

  // Puts back every original (bytes and mode), removes created files, removes the journal.
  // Idempotent; a second call after success does nothing.
  [[nodiscard]] RestoreReport restore() noexcept;

  // Test hook standing in for a killed maced: forgets the edits without restoring them,
  // leaving the changed files and the journal behind.
  void release_without_restore() noexcept;

  bool active() const { return !root_.empty(); }
  // Relative paths of the files changed, sorted.
  const std::vector<std::string>& files() const { return files_; }

 private:
  friend AppliedEdits apply_edits(const std::filesystem::path&, const EditSet&);
  AppliedEdits(std::filesystem::path root, std::vector<std::string> files);
  void reset() noexcept;

  std::filesystem::path root_;  // canonical checkout root; empty: nothing applied
  std::vector<std::string> files_;
};

// Writes `edit_set` into the checkout (REQ-EXEC-15): computes and validates every file
// first, writes the journal (originals fsync'd, then the manifest renamed into place), then
// replaces each file atomically (temp + rename, keeping its mode). A journal an interrupted
// task left is restored first. On any failure the files already written are restored and
// EditError is thrown. An empty (or no-op) edit set changes nothing and returns an inactive
// guard. Throws EditError if this process already holds edits applied to this checkout.
AppliedEdits apply_edits(const std::filesystem::path& checkout_root, const EditSet& edit_set);

// REQ-EXEC-17: if an interrupted task left a journal, restores the checkout from it and
// reports what it restored; a journal without a manifest is discarded (nothing had been
// changed). No journal: an empty report. Safe whatever point the interrupted apply or
// restore reached, and idempotent.
[[nodiscard]] RestoreReport restore_leftover_edits(const std::filesystem::path& checkout_root);

}  // namespace mace::openpiton

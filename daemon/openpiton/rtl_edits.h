#pragma once
// RTL edits an agent proposes for one build (REQ-EXEC-14..17, 19): which paths it may touch,
// how its text replacements are staged without touching the checkout, and how an edit set is
// applied to a checkout for a build and then taken back out byte-for-byte.
//
// Why a journal on disk and not just an in-memory copy: maced can be killed mid-task, and
// the next task on that checkout must not build the dead task's edits (REQ-EXEC-17). So
// apply_edits() first saves every original under <root>/build/.mace_edit_journal/ and only
// then changes the tree; the journal counts only once its manifest has been renamed into
// place, so a journal without a manifest means "nothing was changed yet" and is discarded.
//
// Not thread-safe for one checkout: one task owns a checkout at a time. Different checkouts
// may be edited from different threads.
//
// C++ standard library and POSIX only (REQ-PLAT-9).

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mace::openpiton {

// Any refused edit: a bad path, a replacement that does not match exactly once, an I/O error.
class EditError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A path the agent may not touch. The message names the path and the reason.
class PathError : public EditError {
 public:
  using EditError::EditError;
};

// The only part of the checkout an agent may change: the testbench and monitors under
// piton/verif/ must stay as they are, or the agent could make any design "pass".
inline constexpr std::string_view kDesignDir = "piton/design";
// Relative to the checkout root.
inline constexpr std::string_view kStagingDir = "build/.mace_edit_staging";
inline constexpr std::string_view kJournalDir = "build/.mace_edit_journal";

struct DesignPath {
  // Every symlink resolved; inside <canonical root>/piton/design/.
  std::filesystem::path absolute;
  // `absolute` relative to the canonical checkout root, '/'-separated
  // ("piton/design/chip/tile/rtl/tile.v"): the name an edit goes by everywhere else.
  std::string relative;
  bool exists = false;
};

// Accepts `relative` only if, after resolving every symlink of every existing component, it
// names a file (existing or not) inside <checkout_root>/piton/design/. Refuses: empty paths,
// NUL bytes, absolute paths, any `..` component, paths outside piton/design/, symlinks that
// lead out (also dangling ones, whose target a write would create), a piton/design that is
// itself a symlink, directories and other non-regular files. Throws PathError.
DesignPath resolve_design_path(const std::filesystem::path& checkout_root,
                               std::string_view relative);

// Replace the one place in the file where `old_text` occurs by `new_text`. Occurrences are
// counted overlapping, so "aa" in "aaa" is ambiguous. An empty `old_text` is accepted only
// for a file that does not exist yet, and creates it holding `new_text`.
struct TextReplacement {
  std::string path;  // relative to the checkout root
  std::string old_text;
  std::string new_text;
  bool operator==(const TextReplacement&) const = default;
};

// The whole new content of a file (what staging records); creates the file if absent.
struct FullContent {
  std::string path;
  std::string content;
  bool operator==(const FullContent&) const = default;
};

using FileEdit = std::variant<TextReplacement, FullContent>;
const std::string& edit_path(const FileEdit& edit);

// Ordered: a file's final content is its original with every edit naming it applied in
// order, so the edits of the tasks a task depends on go first and its own last (REQ-EXEC-15).
struct EditSet {
  std::vector<FileEdit> edits;

  bool empty() const { return edits.empty(); }
  void append(const EditSet& later) {
    edits.insert(edits.end(), later.edits.begin(), later.edits.end());
  }
  bool operator==(const EditSet&) const = default;
};

// Applies one replacement to `content`. Throws EditError naming the match count and `path`.
std::string apply_replacement(std::string_view content, const TextReplacement& replacement);

// One file an edit set changes, as it would be written.
struct EditedFile {
  DesignPath path;
  std::optional<std::string> original;  // nullopt: the edits create the file
  std::string content;
};

// The final content of every file `edit_set` changes, sorted by relative path, with files it
// would leave unchanged left out. Throws PathError / EditError before anything is written.
std::vector<EditedFile> compute_edited_files(const std::filesystem::path& checkout_root,
                                             const EditSet& edit_set);

// <checkout_root>/build/.mace_edit_staging
std::filesystem::path default_staging_dir(const std::filesystem::path& checkout_root);

// What the agent's replace tool does: reads the file's staged content (or the checkout's,
// when nothing is staged for it yet), applies `edit`, and writes the full result to
// <staging_dir>/<relative path>. Never writes the checkout. Returns the new content.
std::string stage_replacement(const std::filesystem::path& checkout_root,
                              const std::filesystem::path& staging_dir,
                              const TextReplacement& edit);

// What the agent's read tool should show: the staged content if any, else the checkout's.
std::string read_staged_or_checkout(const std::filesystem::path& checkout_root,
                                    const std::filesystem::path& staging_dir,
                                    std::string_view relative);

// The staged files as full-content edits, sorted by path. A staged file whose content equals
// the checkout's current file is left out: an agent that changed a file back recorded no
// edit there (REQ-EXEC-16). No staging dir: an empty set. Throws PathError if a staged path
// is not a design path.
EditSet load_staged_edits(const std::filesystem::path& checkout_root,
                          const std::filesystem::path& staging_dir);

// Removes the staging dir and everything in it (before a task's agent call).
void discard_staged_edits(const std::filesystem::path& staging_dir);

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

// The build configuration's rtl_edits_hash: SHA-256 (hex) of a canonical serialization
// (paths lexically normalized and sorted; per path its edits in order; every field length-
// prefixed). Independent of the checkout. An empty edit set hashes to "" (no edits: the
// plain model).
std::string edits_hash(const EditSet& edit_set);

// Unified diff (`--- a/path`, `+++ b/path`, `@@` hunks, 3 lines of context) of every file
// the set changes, against the checkout's current content; applies with `patch -p1` and
// `git apply`. Created files diff against /dev/null. Empty when nothing changes.
std::string unified_diff(const EditSet& edit_set, const std::filesystem::path& checkout_root);

// Unified diff of two texts under the given names (the line diff unified_diff() uses).
std::string unified_diff_text(std::string_view old_text, std::string_view new_text,
                              std::string_view old_name, std::string_view new_name);

// The paths `edit_set` names, lexically normalized, sorted, unique (REQ-EXEC-19 lists them in
// the next planning prompt).
std::vector<std::string> edited_files(const EditSet& edit_set);

// Test hook: called at every step of apply and restore where a crash would leave a
// different state on disk ("journal original", "manifest", "temp", "rename", ...). Tests
// _exit() from it in a forked child to check recovery from each point. Not thread-safe;
// nullptr (the default) disables it.
using EditStepHook = void (*)(std::string_view step);
void set_edit_step_hook(EditStepHook hook);

}  // namespace mace::openpiton

#pragma once
// RTL edits as data (REQ-EXEC-14, 15, 19): text replacements and whole new contents of
// design files, in the order they apply; what a set makes of a checkout's files, its hash
// (part of the build ID) and its unified diff (the task row's record).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "openpiton/design_path.h"

namespace mace::openpiton {

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

// The build configuration's rtl_edits_hash: SHA-256 (hex) of a canonical serialization
// (paths lexically normalized and sorted; per path its edits in order; every field length-
// prefixed). Independent of the checkout. An empty edit set hashes to "" (no edits: the
// plain model).
std::string edits_hash(const EditSet& edit_set);

// Unified diff (`--- a/path`, `+++ b/path`, `@@` hunks, 3 lines of context) of every file
// the set changes, against the checkout's current content; applies with `patch -p1` and
// `git apply`. Created files diff against /dev/null. Empty when nothing changes.
std::string unified_diff(const EditSet& edit_set, const std::filesystem::path& checkout_root);

// The paths `edit_set` names, lexically normalized, sorted, unique (REQ-EXEC-19 lists them in
// the next planning prompt).
std::vector<std::string> edited_files(const EditSet& edit_set);

}  // namespace mace::openpiton

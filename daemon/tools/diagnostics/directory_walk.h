#pragma once
// Walking the directories of a diagnostic tool's places (scope.h), without following
// symlinked directories: a symlink is an entry of its own, marked as leading inside its
// place or outside it, and is never walked through.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/diagnostics/scope.h"

namespace mace::tools::diagnostics {

enum class EntryKind { file, directory, symlink_inside, symlink_outside, other };

struct Entry {
  std::string name;            // namespace path
  std::filesystem::path path;  // as found (not resolved)
  EntryKind kind = EntryKind::other;
  std::uintmax_t size = 0;
  std::string link_target;  // namespace path of an inside symlink's target
};

// The entries under the directory `dir`, sorted by name, at most `cap` of them (then
// `truncated` is set), not descending below depth 8. A Refusal when `dir` cannot be
// listed.
std::vector<Entry> walk(const Resolved& dir, std::size_t cap, bool& truncated);

// The regular files a search or listing covers under `targets`, in order.
struct FileSet {
  std::vector<Resolved> files;
  bool truncated = false;
};

// Each target that is a directory stands for the regular files under it; any other target
// stands for itself.
FileSet files_under(const std::vector<Resolved>& targets);

}  // namespace mace::tools::diagnostics

#pragma once
// Finding a diag by name the way sims does (`find <root> -follow -name '<name>'`, sims,2.0's
// find_diag_path): every entry under the root whose name matches, symbolic links
// followed. So a gate workload can be checked before a run is queued, not an hour later
// when sims dies "no diag with name ... found".

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace mace::openpiton {

struct DiagMatches {
  std::vector<std::filesystem::path> found;  // at most the number asked for
  bool readable = true;  // the root exists and could be listed
  bool complete = true;  // every entry was looked at (within the walk's bound)
};

// Entries under `root` whose name matches `name` as find's -name does (a shell pattern;
// a plain name matches itself), at most `max_matches`. Directory loops through links are
// walked once; at most `max_entries` entries are looked at.
DiagMatches find_diags(const std::filesystem::path& root, const std::string& name,
                       std::size_t max_matches = 2, std::size_t max_entries = 500000);

}  // namespace mace::openpiton

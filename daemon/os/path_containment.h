#pragma once
// Whether a path lies inside a directory: the one containment rule every fence of MACE uses
// (the RTL edit paths, the rtl_edit tool, the diagnostic tools). Compared component by
// component, so /r/piton/design2 is not inside /r/piton/design. Both paths must already be
// canonical (symlinks resolved, no `..`): this only compares names.

#include <algorithm>
#include <filesystem>

namespace mace::os {

inline bool is_inside(const std::filesystem::path& path, const std::filesystem::path& dir) {
  auto [dir_end, path_it] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return dir_end == dir.end();
}

}  // namespace mace::os

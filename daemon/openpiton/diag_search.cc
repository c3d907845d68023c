#include "openpiton/diag_search.h"

#include <fnmatch.h>
#include <sys/stat.h>

#include <set>
#include <system_error>
#include <utility>

namespace mace::openpiton {

namespace fs = std::filesystem;

DiagMatches find_diags(const fs::path& root, const std::string& name, std::size_t max_matches,
                       std::size_t max_entries) {
  DiagMatches out;
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    out.readable = false;
    return out;
  }
  // Directories by device and inode: a link back up the tree is walked once.
  std::set<std::pair<dev_t, ino_t>> seen{{st.st_dev, st.st_ino}};
  std::vector<fs::path> pending{root};
  std::size_t entries = 0;
  while (!pending.empty() && out.found.size() < max_matches) {
    const fs::path dir = pending.back();
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      if (dir == root) out.readable = false;
      continue;
    }
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (++entries > max_entries) {
        out.complete = false;
        return out;
      }
      const fs::path& path = it->path();
      if (::fnmatch(name.c_str(), path.filename().c_str(), 0) == 0) {
        out.found.push_back(path);
        if (out.found.size() >= max_matches) return out;
      }
      struct stat entry {};
      if (::stat(path.c_str(), &entry) == 0 && S_ISDIR(entry.st_mode) &&
          seen.insert({entry.st_dev, entry.st_ino}).second)
        pending.push_back(path);
    }
  }
  return out;
}

}  // namespace mace::openpiton

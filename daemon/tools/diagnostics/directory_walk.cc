#include "tools/diagnostics/directory_walk.h"

#include <algorithm>
#include <system_error>
#include <utility>

#include "tools/diagnostic_tools.h"
#include "tools/diagnostics/text.h"

namespace mace::tools::diagnostics {

namespace fs = std::filesystem;

std::vector<Entry> walk(const Resolved& dir, std::size_t cap, bool& truncated) {
  std::vector<Entry> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir.path, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw Refusal("cannot list " + in_quotes(dir.name) + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (out.size() >= cap) {
      truncated = true;
      break;
    }
    if (it.depth() >= 8) it.disable_recursion_pending();
    Entry e;
    e.path = it->path();
    e.name = dir.name + "/" + e.path.lexically_relative(dir.path).generic_string();
    const auto status = it->symlink_status(ec);
    if (ec) {
      ec.clear();
      continue;
    }
    if (fs::is_symlink(status)) {
      fs::path target = fs::weakly_canonical(e.path, ec);
      if (!ec && contained(dir.place->root, target)) {
        e.kind = EntryKind::symlink_inside;
        e.link_target =
            dir.place->name + "/" + target.lexically_relative(dir.place->root).generic_string();
        if (target == dir.place->root) e.link_target = dir.place->name;
      } else {
        e.kind = EntryKind::symlink_outside;
      }
      ec.clear();
    } else if (fs::is_directory(status)) {
      e.kind = EntryKind::directory;
    } else if (fs::is_regular_file(status)) {
      e.kind = EntryKind::file;
      e.size = it->file_size(ec);
      if (ec) ec.clear();
    }
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return out;
}

FileSet files_under(const std::vector<Resolved>& targets) {
  FileSet set;
  for (const auto& t : targets) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(t.path, ec))) {
      for (auto& e : walk(t, kMaxListedEntries, set.truncated))
        if (e.kind == EntryKind::file)
          set.files.push_back(Resolved{t.place, e.name, e.path});
    } else {
      set.files.push_back(t);
    }
  }
  return set;
}

}  // namespace mace::tools::diagnostics

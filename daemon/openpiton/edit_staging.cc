#include "openpiton/edit_staging.h"

#include <algorithm>
#include <optional>
#include <system_error>
#include <vector>

#include "openpiton/edit_error.h"
#include "openpiton/edit_io.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

fs::path default_staging_dir(const fs::path& checkout_root) { return checkout_root / kStagingDir; }

std::string stage_replacement(const fs::path& checkout_root, const fs::path& staging_dir,
                              const TextReplacement& edit) {
  const DesignPath where = resolve_design_path(checkout_root, edit.path);
  const fs::path staged = staging_dir / where.relative;
  std::optional<std::string> current = read_edit_file_if_exists(staged);
  if (!current && where.exists) current = read_edit_file(where.absolute);
  std::string updated;
  if (!current) {
    if (!edit.old_text.empty()) {
      throw EditError("replacement in " + edit.path + ": the file does not exist");
    }
    updated = edit.new_text;
  } else {
    TextReplacement named = edit;
    named.path = where.relative;
    updated = apply_replacement(*current, named);
  }
  std::error_code ec;
  fs::create_directories(staged.parent_path(), ec);
  if (ec) throw EditError("cannot create " + staged.parent_path().string() + ": " + ec.message());
  // Staging is redone from scratch if maced dies, so it need not be durable.
  write_edit_file_atomically(staged, updated, std::nullopt, false);
  return updated;
}

std::string read_staged_or_checkout(const fs::path& checkout_root, const fs::path& staging_dir,
                                    std::string_view relative) {
  const DesignPath where = resolve_design_path(checkout_root, relative);
  if (auto staged = read_edit_file_if_exists(staging_dir / where.relative)) return *staged;
  if (!where.exists) throw EditError(where.relative + " does not exist");
  return read_edit_file(where.absolute);
}

EditSet load_staged_edits(const fs::path& checkout_root, const fs::path& staging_dir) {
  EditSet set;
  std::error_code ec;
  if (!fs::exists(staging_dir, ec)) return set;
  std::vector<std::string> staged_paths;
  for (auto it = fs::recursive_directory_iterator(staging_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::file_status st = it->symlink_status();
    if (fs::is_directory(st)) continue;
    const std::string relative = it->path().lexically_relative(staging_dir).generic_string();
    const std::string name = it->path().filename().string();
    // A staging write interrupted between temp and rename.
    if (name.starts_with(".") && name.ends_with(".mace-edit.tmp")) continue;
    if (!fs::is_regular_file(st)) {
      throw PathError("refused path '" + relative + "': staged entry is not a regular file");
    }
    staged_paths.push_back(relative);
  }
  if (ec) throw EditError("cannot list " + staging_dir.string() + ": " + ec.message());
  std::sort(staged_paths.begin(), staged_paths.end());
  for (const std::string& relative : staged_paths) {
    const DesignPath where = resolve_design_path(checkout_root, relative);
    std::string content = read_edit_file(staging_dir / relative);
    if (where.exists && read_edit_file(where.absolute) == content) continue;
    set.edits.emplace_back(FullContent{where.relative, std::move(content)});
  }
  return set;
}

void discard_staged_edits(const fs::path& staging_dir) {
  std::error_code ec;
  fs::remove_all(staging_dir, ec);
  if (ec) throw EditError("cannot remove " + staging_dir.string() + ": " + ec.message());
}

}  // namespace mace::openpiton

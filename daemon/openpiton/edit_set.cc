#include "openpiton/edit_set.h"

#include <map>
#include <set>

#include "openpiton/edit_error.h"
#include "openpiton/edit_io.h"
#include "os/line_diff.h"
#include "os/sha256.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

const std::string& edit_path(const FileEdit& edit) {
  return std::visit([](const auto& e) -> const std::string& { return e.path; }, edit);
}

std::string apply_replacement(std::string_view content, const TextReplacement& replacement) {
  const std::string& old_text = replacement.old_text;
  if (old_text.empty()) {
    throw EditError("replacement in " + replacement.path + ": the text to replace is empty");
  }
  // Overlapping occurrences count: "aa" in "aaa" has no single place to replace.
  size_t count = 0;
  size_t first = std::string_view::npos;
  for (size_t pos = content.find(old_text); pos != std::string_view::npos;
       pos = content.find(old_text, pos + 1)) {
    if (count++ == 0) first = pos;
  }
  if (count != 1) {
    throw EditError("replacement in " + replacement.path + ": the text to replace matches " +
                    std::to_string(count) + " places; it must match exactly one");
  }
  std::string out;
  out.reserve(content.size() - old_text.size() + replacement.new_text.size());
  out.append(content.substr(0, first));
  out.append(replacement.new_text);
  out.append(content.substr(first + old_text.size()));
  return out;
}

std::vector<EditedFile> compute_edited_files(const fs::path& checkout_root, const EditSet& edit_set) {
  std::map<std::string, EditedFile> files;
  for (const FileEdit& edit : edit_set.edits) {
    DesignPath where = resolve_design_path(checkout_root, edit_path(edit));
    auto it = files.find(where.relative);
    if (it == files.end()) {
      EditedFile file{where, where.exists ? read_edit_file_if_exists(where.absolute) : std::nullopt, {}};
      file.content = file.original.value_or("");
      // A file the set creates starts out "not existing", which only a full content or an
      // empty-old_text replacement may change.
      file.path.exists = file.original.has_value();
      it = files.emplace(where.relative, std::move(file)).first;
    }
    EditedFile& file = it->second;
    if (const auto* full = std::get_if<FullContent>(&edit)) {
      file.content = full->content;
      file.path.exists = true;
    } else {
      const auto& replacement = std::get<TextReplacement>(edit);
      if (!file.path.exists) {
        if (!replacement.old_text.empty()) {
          throw EditError("replacement in " + replacement.path + ": the file does not exist");
        }
        file.content = replacement.new_text;
        file.path.exists = true;
      } else {
        TextReplacement named = replacement;
        named.path = where.relative;
        file.content = apply_replacement(file.content, named);
      }
    }
  }
  std::vector<EditedFile> out;
  for (auto& [path, file] : files) {
    if (file.original && *file.original == file.content) continue;
    file.path.exists = file.original.has_value();
    out.push_back(std::move(file));
  }
  return out;
}

std::string edits_hash(const EditSet& edit_set) {
  if (edit_set.empty()) return "";
  // Per path, in set order: edits to different files commute, edits to one file do not.
  std::map<std::string, std::vector<const FileEdit*>> by_path;
  for (const FileEdit& edit : edit_set.edits) by_path[lexically_normal(edit_path(edit))].push_back(&edit);
  os::Sha256 hash;
  auto field = [&hash](std::string_view bytes) {
    hash.update(std::to_string(bytes.size()) + ":");
    hash.update(bytes);
  };
  hash.update("mace-rtl-edits 1\n");
  hash.update("files " + std::to_string(by_path.size()) + "\n");
  for (const auto& [path, edits] : by_path) {
    field(path);
    hash.update("edits " + std::to_string(edits.size()) + "\n");
    for (const FileEdit* edit : edits) {
      if (const auto* full = std::get_if<FullContent>(edit)) {
        hash.update("F");
        field(full->content);
      } else {
        const auto& replacement = std::get<TextReplacement>(*edit);
        hash.update("R");
        field(replacement.old_text);
        field(replacement.new_text);
      }
    }
  }
  return hash.finish_hex();
}

std::string unified_diff(const EditSet& edit_set, const fs::path& checkout_root) {
  std::string out;
  for (const EditedFile& file : compute_edited_files(checkout_root, edit_set)) {
    const std::string old_name = file.original ? "a/" + file.path.relative : "/dev/null";
    out += os::unified_diff_text(file.original.value_or(""), file.content, old_name,
                             "b/" + file.path.relative);
  }
  return out;
}

std::vector<std::string> edited_files(const EditSet& edit_set) {
  std::set<std::string> paths;
  for (const FileEdit& edit : edit_set.edits) paths.insert(lexically_normal(edit_path(edit)));
  return {paths.begin(), paths.end()};
}

}  // namespace mace::openpiton

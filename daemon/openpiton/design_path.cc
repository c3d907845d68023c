#include "openpiton/design_path.h"

#include <sys/stat.h>

#include <cerrno>
#include <deque>
#include <optional>
#include <system_error>
#include <vector>

#include "openpiton/edit_error.h"
#include "os/errno_text.h"
#include "os/path_containment.h"
#include "os/text.h"

namespace mace::openpiton {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxSymlinks = 40;  // what Linux allows in one path walk (ELOOP)

[[noreturn]] void refuse(std::string_view path, const std::string& reason) {
  throw PathError("refused path '" + std::string(path) + "': " + reason);
}

std::optional<struct stat> lstat_path(const fs::path& path, int* error = nullptr) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return st;
  if (error != nullptr) *error = errno;
  return std::nullopt;
}

// Where `path` (absolute) really leads, like realpath(3) but tolerating a missing tail, which
// is appended as written: a dangling symlink must be judged by where a write through it
// would create the file, not by the link's own location.
fs::path resolve_fully(const fs::path& path, std::string_view shown) {
  std::deque<std::string> pending;
  for (const auto& part : path.relative_path()) pending.push_back(part.string());
  fs::path result = "/";
  bool missing = false;
  int links_left = kMaxSymlinks;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      // The kernel would fail here (ENOENT); a lexical ".." could land on a symlink we then
      // never look at.
      if (missing) refuse(shown, "a symlink target goes through a missing directory and '..'");
      result = result.parent_path();
      continue;
    }
    fs::path next = result / part;
    if (missing) {
      result = std::move(next);
      continue;
    }
    int error = 0;
    auto st = lstat_path(next, &error);
    if (!st) {
      if (error != ENOENT) {
        refuse(shown, "cannot examine " + next.string() + ": " + os::errno_text(error));
      }
      missing = true;
      result = std::move(next);
      continue;
    }
    if (S_ISLNK(st->st_mode)) {
      if (--links_left < 0) refuse(shown, "too many levels of symlinks");
      std::error_code ec;
      fs::path target = fs::read_symlink(next, ec);
      if (ec) refuse(shown, "cannot read symlink " + next.string() + ": " + ec.message());
      std::vector<std::string> parts;
      for (const auto& p : target.relative_path()) parts.push_back(p.string());
      pending.insert(pending.begin(), parts.begin(), parts.end());
      if (target.is_absolute()) result = "/";
      continue;
    }
    if (!S_ISDIR(st->st_mode) && !pending.empty()) {
      refuse(shown, next.string() + " is not a directory");
    }
    result = std::move(next);
  }
  return result;
}

}  // namespace

std::string lexically_normal(std::string_view path) {
  std::string out = !path.empty() && path.front() == '/' ? "/" : "";
  bool first = true;
  for (std::string_view part : os::split_at(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (!first) out += '/';
    out += part;
    first = false;
  }
  return out;
}

fs::path canonical_checkout_root(const fs::path& checkout_root) {
  std::error_code ec;
  fs::path root = fs::canonical(checkout_root, ec);
  if (ec) throw EditError("checkout root " + checkout_root.string() + ": " + ec.message());
  return root;
}

DesignPath resolve_design_path(const fs::path& checkout_root, std::string_view relative) {
  const std::string shown(relative.find('\0') == std::string_view::npos
                              ? relative
                              : relative.substr(0, relative.find('\0')));
  if (relative.empty()) refuse(shown, "path is empty");
  if (relative.find('\0') != std::string_view::npos) refuse(shown, "path contains a NUL byte");
  if (relative.front() == '/') refuse(shown, "path is absolute");
  std::vector<std::string> parts;
  for (std::string_view part : os::split_at(relative, '/')) {
    if (part == "..") refuse(shown, "path has a '..' component");
    if (part.empty() || part == ".") continue;
    parts.emplace_back(part);
  }
  if (relative.back() == '/') refuse(shown, "path names a directory");
  if (parts.size() < 3 || parts[0] != "piton" || parts[1] != "design") {
    refuse(shown, "path is outside " + std::string(kDesignDir) + "/");
  }

  const fs::path root = canonical_checkout_root(checkout_root);
  const fs::path design = root / "piton" / "design";
  {
    // If piton/ or piton/design were links, "inside the design" would mean wherever they
    // point, and the check below would be meaningless.
    auto piton_st = lstat_path(root / "piton");
    auto design_st = lstat_path(design);
    if (!piton_st || !S_ISDIR(piton_st->st_mode) || !design_st || !S_ISDIR(design_st->st_mode)) {
      refuse(shown, std::string(kDesignDir) + " is not a directory of the checkout");
    }
  }

  fs::path current = design;
  bool exists = true;
  for (size_t i = 2; i < parts.size(); ++i) {
    fs::path next = current / parts[i];
    const bool last = i + 1 == parts.size();
    int error = 0;
    auto st = lstat_path(next, &error);
    if (!st) {
      if (error != ENOENT) refuse(shown, "cannot examine " + next.string() + ": " + os::errno_text(error));
      exists = false;
      for (size_t j = i + 1; j < parts.size(); ++j) next /= parts[j];
      current = next;
      break;
    }
    if (S_ISLNK(st->st_mode)) {
      const fs::path target = resolve_fully(next, shown);
      if (!os::is_inside(target, design)) {
        std::error_code ec;
        const fs::path link_text = fs::read_symlink(next, ec);
        refuse(shown, "path escapes " + std::string(kDesignDir) + "/ through symlink " +
                          next.lexically_relative(root).generic_string() + " -> " +
                          link_text.string() + " (resolves to " + target.string() + ")");
      }
      current = target;
      auto target_st = lstat_path(current);
      if (!target_st) {
        exists = false;
        for (size_t j = i + 1; j < parts.size(); ++j) current /= parts[j];
        break;
      }
      st = target_st;
    } else {
      current = std::move(next);
    }
    if (!last && !S_ISDIR(st->st_mode)) {
      refuse(shown, current.lexically_relative(root).generic_string() + " is not a directory");
    }
  }
  if (exists) {
    auto st = lstat_path(current);
    if (st && S_ISDIR(st->st_mode)) refuse(shown, "path names a directory");
    if (st && !S_ISREG(st->st_mode)) refuse(shown, "path is not a regular file");
  }
  if (current == design) refuse(shown, "path names a directory");
  return DesignPath{current, current.lexically_relative(root).generic_string(), exists};
}

}  // namespace mace::openpiton

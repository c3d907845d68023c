#include "maced/state_permissions.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "os/errno_text.h"

namespace mace {
namespace {

std::string octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Sets `path`'s permission bits to `wanted` when they differ; nothing for a path that does
// not exist (yet). A symbolic link is not followed: maced makes none of these as links.
void ensure_mode(const std::filesystem::path& path, mode_t wanted, const std::string& why,
                 std::vector<std::string>& failed, std::ostream& log) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || S_ISLNK(info.st_mode)) return;
  const mode_t now = info.st_mode & 07777;
  if (now == wanted) return;
  if (::chmod(path.c_str(), wanted) != 0) {
    const std::string what = path.string() + ": cannot make it " + octal(wanted) + ": " + os::errno_text(errno);
    log << "maced: " << what << "; " << why << "\n";
    failed.push_back(what);
    return;
  }
  log << "maced: " << path.string() << " was " << octal(now) << ", now " << octal(wanted) << " (" << why << ")\n";
}

bool is_inside(const std::filesystem::path& path, const std::filesystem::path& dir) {
  const auto p = std::filesystem::weakly_canonical(path).lexically_normal();
  const auto d = std::filesystem::weakly_canonical(dir).lexically_normal();
  auto rel = p.lexically_relative(d);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

void restrict_new_files() { ::umask(077); }

std::vector<std::string> secure_state(const std::filesystem::path& state_dir, const std::string& socket_path,
                                      const std::vector<std::filesystem::path>& evidence_roots, std::ostream& log) {
  std::vector<std::string> failed;
  const bool socket_inside = !socket_path.empty() && is_inside(socket_path, state_dir);
  ensure_mode(state_dir, socket_inside ? 0710 : 0700,
              socket_inside ? "only maced's user reads it; its group passes through to the socket inside"
                            : "only maced's user reads it",
              failed, log);
  for (const char* file : {"mace.db", "mace.db-wal", "mace.db-shm", "mace.db-journal", "maced.lock"})
    ensure_mode(state_dir / file, 0600, "only maced's user reads it", failed, log);
  for (const auto& root : evidence_roots) ensure_mode(root, 0700, "runs' evidence: only maced's user reads it", failed, log);
  return failed;
}

}  // namespace mace

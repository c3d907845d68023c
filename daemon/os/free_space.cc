#include "os/free_space.h"

#include <sys/statvfs.h>

namespace mace::os {

std::optional<FreeSpace> free_space(const std::filesystem::path& dir) {
  std::filesystem::path at = dir.empty() ? std::filesystem::path(".") : dir;
  for (;;) {
    struct statvfs info {};
    if (::statvfs(at.c_str(), &info) == 0) {
      const std::uint64_t unit = info.f_frsize ? info.f_frsize : info.f_bsize;
      return FreeSpace{at, static_cast<std::uint64_t>(info.f_bavail) * unit,
                       static_cast<std::uint64_t>(info.f_blocks) * unit};
    }
    if (!at.has_parent_path() || at.parent_path() == at) return std::nullopt;
    at = at.parent_path();
  }
}

}  // namespace mace::os

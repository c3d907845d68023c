#include "os/program_search.h"

#include <sys/stat.h>
#include <unistd.h>

namespace mace::os {

std::optional<std::filesystem::path> find_program(std::string_view name, std::string_view path_list) {
  if (name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
  while (true) {
    const auto colon = path_list.find(':');
    const std::string_view dir = path_list.substr(0, colon);
    if (!dir.empty() && dir.front() == '/') {
      const std::filesystem::path candidate = std::filesystem::path(dir) / name;
      struct stat st {};
      if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    path_list.remove_prefix(colon + 1);
  }
}

}  // namespace mace::os

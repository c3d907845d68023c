#include "os/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace mace::os {

TempDir::TempDir(const std::filesystem::path& parent, std::string_view prefix) {
  std::string pattern = (parent / prefix).string() + "XXXXXX";
  if (!::mkdtemp(pattern.data()))
    throw std::system_error(errno, std::generic_category(),
                            "cannot make a private directory under " + parent.string());
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::filesystem::path default_temp_parent() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace mace::os

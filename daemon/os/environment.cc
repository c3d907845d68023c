#include "os/environment.h"

#include <string_view>

extern char** environ;

namespace mace::os {

std::map<std::string, std::string> inherited_environment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

}  // namespace mace::os

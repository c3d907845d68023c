#include "core/environment_entries.h"

namespace mace {

std::vector<std::string> environment_entries(const std::map<std::string, std::string>& environment) {
  std::vector<std::string> entries;
  entries.reserve(environment.size());
  for (const auto& [name, value] : environment) entries.push_back(name + "=" + value);
  return entries;
}

}  // namespace mace

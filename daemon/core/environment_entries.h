#pragma once
// A process's whole environment as the store keeps it and a reproduction sets it: one
// "NAME=value" entry per variable, sorted by name.

#include <map>
#include <string>
#include <vector>

namespace mace {

std::vector<std::string> environment_entries(const std::map<std::string, std::string>& environment);

}  // namespace mace

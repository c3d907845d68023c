#pragma once
// The daemon's own environment as a map, to start a child's environment from: children
// get a complete environment of their own, never the daemon's by accident.

#include <map>
#include <string>

namespace mace::os {

std::map<std::string, std::string> inherited_environment();

}  // namespace mace::os

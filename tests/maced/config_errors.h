// What maced's configuration parser says about a configuration, as the lines a user reads:
// the configuration tests compare these, so each problem is checked as it is shown.
#pragma once

#include <string>
#include <vector>

#include "maced/config.h"

namespace mace {

inline std::vector<std::string> errors_of(const std::string& json) {
  std::vector<std::string> out;
  for (const auto& e : parse_maced_config(json).errors) out.push_back(e.to_string());
  return out;
}

}  // namespace mace

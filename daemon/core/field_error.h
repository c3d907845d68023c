#pragma once
// An error a user caused, with the place it was caused: the path of the offending field
// ("budget.max_wall_s", "workloads[2]") and what was wrong with it.

#include <string>
#include <vector>

namespace mace {

struct FieldError {
  std::string path;
  std::string message;

  std::string to_string() const { return path.empty() ? message : path + ": " + message; }
  bool operator==(const FieldError&) const = default;
};

using FieldErrors = std::vector<FieldError>;

}  // namespace mace

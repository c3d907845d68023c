#pragma once
// "a, b, c": how messages list the names a field may take.

#include <string>
#include <string_view>

namespace mace {

template <typename Names>
std::string joined(const Names& names, std::string_view separator = ", ") {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

}  // namespace mace

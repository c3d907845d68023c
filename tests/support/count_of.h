#pragma once
// How many times `needle` occurs in `text`, overlaps included: what tests count in pages,
// logs and answers.

#include <cstddef>
#include <string>

namespace mace::testing {

inline std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace mace::testing

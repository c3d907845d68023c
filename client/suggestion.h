#pragma once
// "Did you mean": the known word closest to a mistyped one, when it is close enough to be
// what was meant (a letter or two off, two letters swapped).

#include <optional>
#include <string>
#include <vector>

namespace mace::client {

std::optional<std::string> closest_word(const std::string& typed,
                                        const std::vector<std::string>& known);

}  // namespace mace::client

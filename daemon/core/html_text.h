#pragma once
// Text placed in an HTML page MACE writes (a run's report, an evaluation's, a Pareto chart):
// every character HTML gives a meaning escaped, so a suite's, a spec's or a model's words
// show as words and never run as markup.

#include <string>
#include <string_view>

namespace mace {

// & < > " ' as entities; everything else as it is.
std::string html_escaped(std::string_view text);

}  // namespace mace

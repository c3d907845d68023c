#pragma once
// `mace eval report`: one self-contained HTML page (no script, no network: the plots are
// inline SVG) with the results table and three plots: success rate per method, mean cost
// per method, and the distribution of wall times per method.

#include <string>

#include "eval/results.h"

namespace mace::eval {

std::string render_html_report(const BatchView& batch);

}  // namespace mace::eval

#pragma once
// The page `mace report` writes: one self-contained HTML file (inline CSS, inline script,
// SVG drawn by the script; nothing fetched) showing a run from the data it embeds.

#include <string>
#include <string_view>

namespace mace::client {

// The page for `data_json`: {"run", "tasks", "designs", "events", "diagnoses",
// "narrowing_builds", "post_mortem", "calls"} as `mace status / watch / calls --json` spell
// them. `charts_html`: the run's designs' charts of cycles against cache area (already
// escaped HTML, core/pareto.h), which the page shows under its designs; "" for none.
std::string report_html(const std::string& data_json, const std::string& charts_html = "");

// `json` fit to stand between <script type="application/json"> and </script>: the same
// JSON with every '<', '>', '&', U+2028 and U+2029 written as a \u escape.
std::string script_data_json(std::string_view json);

}  // namespace mace::client

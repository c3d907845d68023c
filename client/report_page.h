#pragma once
// The page `mace report` writes: one self-contained HTML file (inline CSS, inline script,
// SVG drawn by the script; nothing fetched) showing a run from the data it embeds.

#include <string>

namespace mace::client {

// The page for `data_json`: {"run", "tasks", "events", "diagnoses", "narrowing_builds",
// "post_mortem", "calls"} as `mace status / watch / calls --json` spell them.
std::string report_html(const std::string& data_json);

}  // namespace mace::client

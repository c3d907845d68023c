#pragma once
// Text handling every prompt MACE writes shares: sections of text that came from users,
// tools or logs, kept visibly inside their section, and cut without splitting characters.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mace {

// Appends every line of `text`, each prefixed by `indent`. Text from users, triage and
// tool output may span lines; indenting every line keeps it inside its section instead
// of reading as a new heading or directive. Empty text reads "(none given)".
void append_indented(std::string& out, std::string_view text, std::string_view indent);

// append_indented for each item, with "  - " before each.
void append_list(std::string& out, const std::vector<std::string>& items);

// The last `max_bytes` of `s` (whole lines when a line break falls in the window),
// prefixed by "… " when anything was cut. Logs say what went wrong at their end.
std::string tail_text(std::string_view s, size_t max_bytes);

}  // namespace mace

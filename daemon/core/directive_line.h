#pragma once
// Directive lines in LLM replies: "TASK: …", "DIAGNOSIS: …", "ASSESSMENT: …".
//
// Models wrap replies in markdown, so a directive counts at the start of a line after
// leading whitespace, at most one list marker ("-", "*", "+", "1.", "1)"), and optional
// bold around the tag ("**TAG:**" or "**TAG**:"); the tag is matched case-insensitively
// (REQ-PLAN-7). Every reader of replies uses this one rule, so a plan and a diagnosis
// written in the same style are read the same way.

#include <optional>
#include <string_view>

namespace mace {

// The text after "<tag>:" (trimmed, a closing "**" at the end removed) when `line` is a
// directive with that tag; nullopt otherwise ("TASKS:" is not "TASK:").
std::optional<std::string_view> directive_body(std::string_view line, std::string_view tag);

}  // namespace mace

#pragma once
// The verdict of one gate workload's simulation, read from its transcript (REQ-VER-2..4):
// the loop's word for it, apart from the adapter's own.

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class Verdict { none, pass, fail, timeout, maxcycles };

std::string_view to_string(Verdict verdict);  // "none", "pass", "fail", "timeout", "maxcycles"
std::optional<Verdict> verdict_from_string(std::string_view text);

}  // namespace mace

#pragma once
// What became of a task's build: none was attempted, it failed, it succeeded, or an
// identical finished model was reused.

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class BuildOutcome { none, failed, succeeded, reused };

// "" (none), "failed", "succeeded", "reused": as the store and `mace status` have them.
std::string_view to_string(BuildOutcome outcome);
std::optional<BuildOutcome> build_outcome_from_string(std::string_view text);

// For people: "not built" where to_string says "".
std::string_view describe(BuildOutcome outcome);

}  // namespace mace

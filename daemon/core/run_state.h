#pragma once
// The life of a run: queued, running, then exactly one final state (REQ-BUD-9), or
// cancelled by a user. The snake_case names are what the store and `--json` output use.

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class RunState {
  queued,
  running,
  passed,
  failed,
  planning_failed,
  budget_exceeded,
  checksum_mismatch,
  unsupported_core,
  error,
  cancelled,
};

std::string_view to_string(RunState s);
std::optional<RunState> run_state_from_string(std::string_view s);
bool is_final(RunState s);

}  // namespace mace

#include "core/run_state.h"

#include "core/enum_text.h"

namespace mace {

std::string_view to_string(RunState s) {
  switch (s) {
    case RunState::queued: return "queued";
    case RunState::running: return "running";
    case RunState::passed: return "passed";
    case RunState::failed: return "failed";
    case RunState::planning_failed: return "planning_failed";
    case RunState::budget_exceeded: return "budget_exceeded";
    case RunState::checksum_mismatch: return "checksum_mismatch";
    case RunState::unsupported_core: return "unsupported_core";
    case RunState::error: return "error";
    case RunState::cancelled: return "cancelled";
  }
  return "";
}

std::optional<RunState> run_state_from_string(std::string_view s) {
  return enum_from_string<RunState>(s);
}

bool is_final(RunState s) { return s != RunState::queued && s != RunState::running; }

}  // namespace mace

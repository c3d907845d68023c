#include "core/run_state.h"

#include <array>
#include <utility>

namespace mace {
namespace {

constexpr std::array<std::pair<RunState, std::string_view>, 10> kNames{{
    {RunState::queued, "queued"},
    {RunState::running, "running"},
    {RunState::passed, "passed"},
    {RunState::failed, "failed"},
    {RunState::planning_failed, "planning_failed"},
    {RunState::budget_exceeded, "budget_exceeded"},
    {RunState::checksum_mismatch, "checksum_mismatch"},
    {RunState::unsupported_core, "unsupported_core"},
    {RunState::error, "error"},
    {RunState::cancelled, "cancelled"},
}};

}  // namespace

std::string_view to_string(RunState s) {
  for (auto& [state, name] : kNames)
    if (state == s) return name;
  return "unknown";
}

std::optional<RunState> run_state_from_string(std::string_view s) {
  for (auto& [state, name] : kNames)
    if (name == s) return state;
  return std::nullopt;
}

bool is_final(RunState s) { return s != RunState::queued && s != RunState::running; }

}  // namespace mace

#include "core/run_outcome.h"

namespace mace {

std::string_view to_string(PlannerKind planner) {
  switch (planner) {
    case PlannerKind::llm: return "llm";
    case PlannerKind::direct: return "direct";
    case PlannerKind::replay: return "replay";
    case PlannerKind::fault_check: return "fault_check";
    case PlannerKind::codesign: return "codesign";
  }
  return "";
}

std::optional<PlannerKind> planner_kind_from_string(std::string_view text) {
  return enum_from_string<PlannerKind>(text);
}

std::string_view describe(PlannerKind planner) {
  switch (planner) {
    case PlannerKind::llm: return "planned by the LLM towards the objective";
    case PlannerKind::direct:
      return "direct planner: built the spec's core and mesh with OpenPiton's defaults and ran "
             "the gate workloads; it did not try to meet the objective";
    case PlannerKind::replay: return "a replay: the original run's decisions, served from its record";
    case PlannerKind::fault_check:
      return "fault check: the suite's expert configuration with a seeded fault, no LLM";
    case PlannerKind::codesign: return "co-design search: the designs the search enumerated, no LLM";
  }
  return "";
}

std::string_view to_string(RunOutcome outcome) {
  switch (outcome) {
    // "" names the first enumerator: enum_from_string stops at the first "" after it.
    case RunOutcome::none: return "";
    case RunOutcome::caught: return "caught";
    case RunOutcome::missed: return "missed";
  }
  return "";
}

std::optional<RunOutcome> run_outcome_from_string(std::string_view text) {
  return enum_from_string<RunOutcome>(text);
}

}  // namespace mace

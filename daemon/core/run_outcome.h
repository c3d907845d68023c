#pragma once
// What a run's end means beyond its state, where the state alone would mislead.
//
// PlannerKind: who planned the run. A run of the direct planner built the spec's core and
// mesh with OpenPiton's defaults and simulated the gate workloads: it did not try to meet
// its objective, so its `passed` says the defaults pass the gates, nothing about the
// objective. A fault check's and a co-design search's plans are fixed by the evaluation
// harness; a replay's are the original's.
//
// RunOutcome: a fault check's conclusion (REQ-EVAL-11): the fault it applied was caught
// (a gate workload, or the build, failed the design with the fault) or missed (every gate
// workload passed it). Other runs have none: their state says it.

#include <optional>
#include <string>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class PlannerKind { llm, direct, replay, fault_check, codesign };

// "llm", "direct", "replay", "fault_check", "codesign": as the store and JSON have them.
std::string_view to_string(PlannerKind planner);
std::optional<PlannerKind> planner_kind_from_string(std::string_view text);
// For people, where a run's outcome is shown: what the planner did and did not try.
std::string_view describe(PlannerKind planner);

enum class RunOutcome { none, caught, missed };

// "" (none), "caught", "missed".
std::string_view to_string(RunOutcome outcome);
std::optional<RunOutcome> run_outcome_from_string(std::string_view text);

}  // namespace mace

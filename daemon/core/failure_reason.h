#pragma once
// Why a task failed, in one word: what the store records, triage is told, narrowing
// decides on, and replay compares (REQ-VER-5, REQ-FAIL-2). Each comes from one place; the
// adapter's reasons arrive as its documented words and are read with
// failure_reason_from_string.

#include <optional>
#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class FailureReason {
  none,  // the task passed, or has not ended
  // The build (openpiton/builder.h).
  way_rule,          // Ariane L1 ways above the L1.5's (REQ-EXEC-13); nothing ran
  invalid_config,    // no safe sims command for the configuration
  budget_exhausted,  // no time left in the run's budget (REQ-BUD-11); nothing ran
  cancelled,
  timeout,
  launch_failed,     // sims or Verilator could not be started
  build_failed,      // sims exited non-zero
  no_model_binary,   // sims exited 0 without a model
  leftover_edits,    // an interrupted task's RTL edits could not be restored
  // The gate workloads (openpiton/simulator.h).
  invalid_request,
  no_workloads,
  workload_failed,   // a gate workload did not pass (REQ-VER-1)
  // A gate workload could not be run at all, whatever the design: no re-plan can change
  // it, so the run ends at once with its cause (no_replan_can_change).
  workload_not_found,    // no program, or no single checkout diag, of that name
  workload_not_built,    // the program does not compile or assemble
  sims_option_rejected,  // sims refused an option the spec gave the workload
  // unit_test tasks (openpiton/unit_test_env.h).
  unit_test_bad_module_path,
  unit_test_scaffold_failed,
  unit_test_build_failed,
  testbench_mismatch,  // the testbench connects a port the module lacks (REQ-FAIL-3)
  // The executor and replay.
  executor_error,    // MACE itself failed running the task
  no_checkout,       // the run holds no checkout for the task's slot
  rtl_edits_failed,  // the agent's edits could not be applied
  cache_miss,        // a bypassed call had no cache entry (REQ-REPLAY-4)
  // The machine or scheduler a checkout's work was placed on (a Slurm node) ended it.
  node_failure,         // the node went down, drained or failed
  out_of_memory,        // killed for using more memory than the job asked for
  never_started,        // waited for its node longer than maced allows
  killed_by_scheduler,  // ended by the scheduler for another reason (an operator's scancel)
  // core generic (REQ-VER-17): a tile's first memory request was not at the descriptor's
  // reset vector, whatever the gate workloads said.
  wrong_first_request,
};

// "" for none, otherwise the enumerator's name.
std::string_view to_string(FailureReason reason);
std::optional<FailureReason> failure_reason_from_string(std::string_view text);

// The task's work was lost to the machine or scheduler it was placed on (its node went
// down, failed or was drained, the job never got its node, the scheduler ended it), not
// ended by the design: it is run again on another checkout, never diagnosed or counted.
bool lost_to_infrastructure(FailureReason reason);

// Reasons that say nothing about the design: the budget, a cancel, MACE itself, a replay
// cache miss, a workload that cannot be run. Narrowing a configuration for them would
// only repeat them.
bool says_nothing_about_the_design(FailureReason reason);

// Failures no plan can change: the spec names a workload that cannot be run (missing, not
// compiling or assembling, given an option sims refuses). Every later iteration would fail
// the same way, so the run ends with the cause as its reason.
bool no_replan_can_change(FailureReason reason);

}  // namespace mace

#pragma once
// Why the adapter's work gave no model, no passing run or no unit-test model: one word per
// cause, for builds, gate workloads and unit tests alike. The daemon maps each onto its own
// vocabulary with a switch the compiler checks (executor/adapter_bridge.cc), so a cause
// added here does not build until the daemon knows what it means.

#include <optional>
#include <ostream>
#include <string_view>

#include "os/process_group.h"

namespace mace::openpiton {

enum class Failure {
  none,  // nothing failed
  // A build (builder.h).
  way_rule,          // Ariane with an L1D or L1I with more ways than the L1.5 (REQ-EXEC-13); nothing ran
  invalid_config,    // the configuration cannot be turned into a safe sims command
  budget_exhausted,  // no time was left in the run's budget (REQ-BUD-11); nothing ran
  cancelled,
  timeout,
  launch_failed,     // sims or Verilator could not be started (the message says why)
  build_failed,      // sims exited with a non-zero status
  no_model_binary,   // sims exited 0 but left no model binary
  // A build without edits found RTL edits an interrupted task left and could not restore
  // them (REQ-EXEC-17); nothing ran, so the edited design was not built by mistake.
  leftover_edits,
  // Gate workloads (simulator.h).
  invalid_request,  // nothing was started (the detail says why)
  no_workloads,     // the request named no workload
  workload_failed,  // a run did not pass (its verdict, returncode and error say why)
  // A workload that cannot run whatever the design (WorkloadRunResult::cannot_run).
  workload_not_found,    // no such program, or sims found no single diag of that name
  workload_not_built,    // it does not compile or assemble
  sims_option_rejected,  // sims refused an option the request gave the workload
  // Unit-test tasks (unit_test_env.h).
  unit_test_bad_module_path,
  unit_test_scaffold_failed,
  unit_test_build_failed,
  testbench_mismatch,  // the testbench connects a port the module lacks (REQ-FAIL-3)
  // The machine or scheduler that ran the step ended it (os::HostStop); only when the
  // checkout's runner places work elsewhere.
  node_failure,
  out_of_memory,
  never_started,
  killed_by_scheduler,
};

// "" for none, otherwise the enumerator's name: the word replay records and people read.
std::string_view to_string(Failure failure);
std::optional<Failure> failure_from_string(std::string_view text);
std::ostream& operator<<(std::ostream& out, Failure failure);

// The failure a host's stop is; none for HostStop::none.
Failure failure_of(os::HostStop stop);

}  // namespace mace::openpiton

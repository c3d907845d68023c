#pragma once
// One simulated gate workload as the store keeps it: a task's (task_results) or a
// re-simulated design's (eval_resimulations).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/run_input.h"
#include "core/tile_figures.h"
#include "core/verdict.h"

namespace mace::store {

// One simulated workload of a task, in the order the workloads ran.
struct WorkloadResultRecord {
  int64_t ordinal = 0;  // 0 for the first gate workload; unique within the task
  std::string workload;
  Verdict verdict = Verdict::none;
  std::optional<int64_t> returncode;  // none when the simulator gave none (killed, say)
  std::string run_dir;
  double wall_s = 0;
  // The verdict line's simulation time and the clock cycles it stands for; none when the
  // transcript gave none (openpiton/sim_figures.h).
  std::optional<int64_t> verdict_time = {};
  std::optional<int64_t> cycles = {};
  // For a workload that did not pass: the line that says what went wrong (the failure
  // signature is read from it and the verdict, core/failure_signature.h), and the
  // transcript's lines around its error and verdict, for people.
  std::string error_line = {};
  std::string excerpt = {};
  // What each tile did, in a simulation with monitors; empty otherwise.
  std::vector<TileFigures> tiles = {};
  // How it ran (its provenance, and what `mace repro` reruns): sims' command line and
  // whole environment ("NAME=value", sorted) as executed; empty when recorded before MACE
  // kept them or when sims was not started. For one that did not pass, what its run
  // directory held before sims started, or why not.
  std::vector<std::string> argv = {};
  std::vector<std::string> environment = {};
  std::vector<RunInput> inputs = {};
  std::string inputs_note = {};
};

}  // namespace mace::store

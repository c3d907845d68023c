#pragma once
// A reproduction of one recorded simulation (`mace repro`): what was recorded of it and of
// its build, and the self-contained shell script that reruns both by hand, outside maced, in
// the same checkout (docs/failures.md#a-reproduction-of-a-failure).
//
// The script checks the checkout's commit, applies the task's RTL edits (and takes them
// back when it ends), builds the model with the recorded sims command line and environment
// under a build ID of its own (repro_<build id>: maced's models are left alone), recreates
// what the run directory held before sims started, runs the recorded simulation command
// there, and compares the verdict and its time stamp with the recorded ones. Every recorded
// value is written single-quoted, so nothing in it runs as shell.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/run_input.h"
#include "core/verdict.h"

namespace mace {

struct ReproFacts {
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  std::string workload;
  // Where and on what it ran (the run's environment).
  std::string checkout;
  std::string checkout_commit;
  std::string source_fingerprint;
  std::string verilator;
  std::string mace_version;
  std::string mace_commit;
  std::string host;
  // The build: its ID, sims command line and environment ("NAME=value"); the RTL edits it
  // carried as a unified diff ("" for none).
  std::string build_id;
  std::vector<std::string> build_argv;
  std::vector<std::string> build_environment;
  std::string rtl_edits;
  // The simulation: its command line and environment, and the run directory it ran in.
  std::vector<std::string> sim_argv;
  std::vector<std::string> sim_environment;
  std::string run_dir;
  std::vector<RunInput> inputs;
  std::string inputs_note;
  // What was recorded of it.
  Verdict verdict = Verdict::none;
  std::string error_line;
  std::optional<int64_t> verdict_time;
  std::optional<int64_t> cycles;
};

// The build ID the reproduction builds under: "repro_" + the recorded one.
std::string repro_build_id(const std::string& build_id);

// The script, for /bin/sh. Exit status: 0 the recorded verdict (and its time stamp, when
// one was recorded) came again, 1 it did not, 2 the reproduction could not be set up (the
// RTL edits do not apply, the build failed).
std::string repro_script(const ReproFacts& facts);

// 'text' for the shell: single-quoted, each ' written '\''.
std::string shell_quoted(const std::string& text);

}  // namespace mace

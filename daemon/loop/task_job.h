#pragma once
// One task as the loop hands it to whatever runs it (a TaskJob: the task with everything
// its build and simulations need, placed on a checkout of the run's) and what comes back
// (a TaskOutcome: built or not, each gate workload's verdict, why it failed).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/build_outcome.h"
#include "core/failure_reason.h"
#include "core/plan.h"
#include "core/plan_checks.h"
#include "core/run_input.h"
#include "core/tile_figures.h"
#include "core/verdict.h"

namespace mace::loop {

// A checkout the run holds, by a name that stays the same while it holds it (maced's
// index of the checkout in its pool).
using Slot = std::size_t;

// RTL edits as the full new content of each file, in the order they apply: a later entry
// for a path replaces an earlier one (REQ-EXEC-15). The loop only carries them from task to
// task and iteration to iteration (REQ-EXEC-19); the executor applies and restores them.
struct RtlEdits {
  struct File {
    std::string path;  // relative to the checkout root, under piton/design/
    std::string content;
    bool operator==(const File&) const = default;
  };
  std::vector<File> files;

  bool empty() const { return files.empty(); }
  void append(const RtlEdits& later) { files.insert(files.end(), later.files.begin(), later.files.end()); }
  std::vector<std::string> paths() const;  // sorted, unique
  bool operator==(const RtlEdits&) const = default;
};

// One task, ready to execute on the run's checkout `slot` (REQ-EXEC-2).
struct TaskJob {
  PlannedTask task;
  std::vector<std::string> defines;  // the task's and its dependencies' (REQ-EXEC-5)
  CacheGeometry caches;              // every cache, defaults filled in
  Slot slot = 0;
  std::chrono::milliseconds build_limit{0};  // capped by the budget (REQ-BUD-11)
  std::chrono::milliseconds run_limit{0};
  // Non-empty for a narrowing rebuild of task.id (REQ-FAIL-12): which changes it undoes.
  std::string narrowing = {};
  // Make the task's prompt call first (REQ-EXEC-10, 11, 18): only with task prompts on.
  bool prompt = false;
  // Simulate the gate workloads once built; off for a build-only check, whose tasks pass
  // on their build (RunOptions::build_only).
  bool simulate = true;
  // The edits the task's build starts from: those carried from the last iteration and
  // those of the rtl tasks it depends on (REQ-EXEC-15, 19). An rtl task adds its own.
  RtlEdits edits = {};
};

struct WorkloadVerdict {
  std::string workload;
  Verdict verdict = Verdict::none;
  std::string run_dir = {};
  double wall_s = 0;
  int returncode = 0;
  // The simulation time stamp of the verdict line and the clock cycles it stands for
  // (openpiton/sim_figures.h); unset when the transcript gives none.
  std::optional<int64_t> verdict_time = {};
  std::optional<int64_t> cycles = {};
  // For a workload that did not pass: the line that says what went wrong, and the
  // transcript's lines around its error and verdict (openpiton/transcript_excerpt.h).
  std::string error_line = {};
  std::string excerpt = {};
  // What each tile did, in a run with monitors (core/tile_figures.h); empty otherwise.
  std::vector<TileFigures> tiles = {};
  // How it ran, for a reproduction: sims' command line and whole environment as executed,
  // and, for a workload that did not pass, what its run directory held before sims started
  // (core/run_input.h) or why not.
  std::vector<std::string> argv = {};
  std::map<std::string, std::string> environment = {};
  std::vector<RunInput> inputs = {};
  std::string inputs_note = {};
};

// What a task's build cost: its wall time (for a reused model, finding and copying it),
// and, when sims ran on this machine, its CPU time and the peak memory of its largest
// process; unset otherwise.
struct BuildFigures {
  double wall_s = 0;
  std::optional<double> cpu_s = {};
  std::optional<int64_t> peak_rss_bytes = {};
  bool operator==(const BuildFigures&) const = default;
};

// The waveform of a failed task's deciding workload (docs/failures.md, "The waveform around
// a failure"): re-simulated once on a traced variant of its model, the cycles before the
// time it failed at written as a VCD. `workload` empty: none was attempted.
struct FailureWaveform {
  std::string workload;
  std::string path;  // the VCD where the traced simulation wrote it; "" when none
  std::int64_t from_time = 0, to_time = 0, last_time = 0;  // asked for, and the last traced
  std::string end;  // "window", "size" (the limit cut it at last_time) or "finish"
  std::uint64_t bytes = 0;
  std::string build_id;  // the traced model's
  bool model_reused = false;
  double build_seconds = 0, sim_seconds = 0;
  // Why there is no waveform, for people ("" when there is one); and what is odd about one
  // (the traced simulation ended otherwise than the first).
  std::string problem, note;
  // Signals near the top that changed last before its end, "<path> -> <value> at <time>",
  // latest first, for the diagnosis prompt.
  std::vector<std::string> changed_last;
  bool attempted() const { return !workload.empty(); }
  bool captured() const { return !path.empty(); }
};

struct TaskOutcome {
  std::string task_id;
  bool passed = false;        // REQ-VER-5
  bool built = false;
  FailureReason failure_reason = FailureReason::none;
  std::vector<WorkloadVerdict> verdicts;
  std::vector<std::string> evidence;  // error lines or the simulation log's tail
  // For a task lost to the infrastructure (lost_to_infrastructure): what its machine or
  // scheduler did, naming the node and the scheduler's own reason.
  std::string lost_detail = {};
  std::string build_id = {};
  BuildFigures build_figures = {};  // when a build was tried
  bool reused = false;
  // When reused: "checkout" or "store" (openpiton::reuse_source), and for the store where
  // the model was built; what went wrong with the model store, to be logged.
  std::string reused_from = {};
  std::string build_origin = {};
  std::vector<std::string> store_notes = {};
  std::string checkout = {};
  // For triage (REQ-FAIL-2): the failed build's output tail, the last run's sim.log tail
  // and status.log.
  std::string build_output_tail = {};
  std::string sim_log_tail = {};
  std::string status_log = {};
  std::string build_log = {};  // the build's transcript file, for the diagnostic tools
  // The build's sims command line and whole environment, as formed (also for a model that
  // was reused: the command that would build it), for a reproduction.
  std::vector<std::string> build_argv = {};
  std::map<std::string, std::string> build_environment = {};
  // The edits the build carried (the job's and, for an rtl task, its agent's), their
  // unified diff, and for an rtl or unit_test task the agent's closing words.
  RtlEdits applied_edits = {};
  std::string edits_diff = {};
  std::string edits_hash = {};
  std::string agent_reply = {};
  bool agent_recorded_no_edit = false;  // an rtl task whose agent changed nothing (REQ-EXEC-16)
  // What the task's own LLM calls cost (a task prompt, an agent), for REQ-BUD-5.
  double llm_cost_usd = 0;
  FailureWaveform waveform = {};

  BuildOutcome build_outcome() const {
    if (!built) return build_id.empty() ? BuildOutcome::none : BuildOutcome::failed;
    return reused ? BuildOutcome::reused : BuildOutcome::succeeded;
  }
};

}  // namespace mace::loop

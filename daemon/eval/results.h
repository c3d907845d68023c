#pragma once
// An evaluation batch's progress and results table, from its jobs and their runs: per
// suite task and method (and fault, for fault checks), the success rate over repeats,
// iterations, cost, wall time and designs evaluated. Rendered as text, JSON and CSV here,
// as HTML in html_report.h. Pure: the service reads the store and fills JobOutcome.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/eval_job_key.h"
#include "core/eval_state.h"

namespace mace::eval {

// One job as the batch sees it now.
// REQ-EVAL-7: one design a passed build-only run accepted, simulated after the run.
struct ResimulatedDesign {
  std::string task_id;
  std::string build_id;
  std::vector<std::pair<std::string, std::string>> verdicts;  // (workload, verdict), in order
  // Each verdict's simulated cycles, in the same order; none where the transcript gave none.
  std::vector<std::optional<int64_t>> cycles = {};
  bool passed() const;  // every gate workload passed
};

// One gate workload's verdict on a design, with its simulated cycles.
struct WorkloadFigures {
  std::string workload;
  std::string verdict;
  std::optional<int64_t> cycles;  // none when the transcript gave none
};

// A design a job's run built and simulated: which task, its configuration in words
// (core/design_configuration.h) and each gate workload's verdict and cycles.
struct JobDesign {
  std::string task_id;
  int64_t iteration = 0;
  std::string build_id;
  bool passed = false;
  std::string configuration;           // configuration_text
  bool default_configuration = false;  // OpenPiton's defaults on the run's core and mesh
  double area = 0;  // its caches' area per tile, in the area model's units (core/cache_area.h)
  std::vector<WorkloadFigures> results;
};

// The gate workloads' verdicts of one task of a job's run.
struct TaskVerdicts {
  int64_t iteration = 0;
  std::string task_id;
  std::vector<std::pair<std::string, std::string>> verdicts;  // (workload, verdict), in order
  // Each verdict's simulated cycles, in the same order; none where the transcript gave none.
  std::vector<std::optional<int64_t>> cycles = {};
};

// A job (its key, as the store keeps it) and what became of it.
struct JobOutcome : EvalJobKey {
  EvalJobState job_state = EvalJobState::pending;
  int64_t attempts = 0;
  std::string run_id;     // latest run; "" before the first
  std::string run_state;  // that run's state; "" without one
  int64_t iterations = 0;
  double cost_usd = 0;
  double wall_s = 0;
  int64_t designs = 0;  // distinct builds the run made (its task rows' build IDs)
  int64_t feasible_designs = 0;  // of those, the ones every gate workload passed on
  std::string env_json;  // REQ-EVAL-9, "" until the run started
  std::vector<ResimulatedDesign> resimulated;  // REQ-EVAL-7; empty unless build-only
  // Who planned its run (core/run_outcome.h: llm, direct, ...); for a job not yet run, who
  // will. A `mace` job planned by the direct planner built the task's defaults: it did not
  // try the objective.
  std::string planner;
  std::string outcome;  // a fault check's run: caught | missed; "" when it could not tell
  // Every task of its run that built a design, in the order recorded.
  std::vector<JobDesign> design_results = {};
  // The verdicts of the tasks of its run's last iteration that simulated anything.
  std::vector<TaskVerdicts> verdicts;
  // A caught fault check: what caught the fault ("add.S (verdict fail)", "the build
  // (build_failed)"), as its run's reason says; "" otherwise.
  std::string caught_by;
};

// Whether the job's run tried to meet its task's objective: all but a `mace` job of the
// direct planner, whose success is the defaults passing the gates, not the objective.
bool attempts_objective(const JobOutcome& job);
// The method as results show it: "mace (direct)" for a `mace` job of the direct planner.
std::string method_label(const JobOutcome& job);

struct BatchView {
  std::string id;
  std::string suite;
  EvalBatchState state = EvalBatchState::running;
  int64_t submitted_at_ms = 0;
  int64_t finished_at_ms = 0;
  std::string request_json;
  std::vector<JobOutcome> jobs;
};

// A job's success: its run passed, and every design a build-only run accepted passed its
// gate workloads when simulated (REQ-EVAL-7); for a fault check, its run's outcome is
// caught (a check that could not tell, cancelled or unable to run its workload, caught
// nothing); for a co-design search, at least one feasible design was found. For a job that
// did not attempt the objective (attempts_objective), success is only that its gates passed.
bool job_succeeded(const JobOutcome& job);
bool job_finished(const JobOutcome& job);

struct ResultRow {
  std::string task_id;
  std::string method;      // method_label: "mace (direct)" apart from "mace"
  std::string fault;
  // False for the direct planner's `mace` jobs: `successes` then counts runs whose gates
  // passed, which says nothing of the objective, and the rate is not shown as one.
  bool objective_attempted = true;
  int64_t runs = 0;        // finished jobs
  int64_t successes = 0;
  double success_rate = 0;  // successes / runs; 0 without runs
  double mean_iterations = 0;
  double mean_cost_usd = 0;
  double total_cost_usd = 0;
  double mean_wall_s = 0;
  int64_t designs = 0;  // total over the runs
  std::vector<double> wall_s;  // each finished run's, for the distribution plot
};

struct MethodProgress {
  std::string method;
  int64_t done = 0;
  int64_t total = 0;
};

std::vector<ResultRow> result_rows(const BatchView& batch);
// `v` with `decimals` digits after the point, as every rendering shows numbers.
std::string fixed(double v, int decimals);
std::vector<MethodProgress> progress(const BatchView& batch);

std::string render_status_text(const BatchView& batch);
std::string render_results_text(const BatchView& batch);
std::string render_results_json(const BatchView& batch);
std::string render_results_csv(const BatchView& batch);

}  // namespace mace::eval

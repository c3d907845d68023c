#pragma once
// A run as the store keeps it: its row, how runs are listed, and its metrics
// (store/run_records.cc).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/plan_checks.h"
#include "core/run_outcome.h"
#include "core/run_state.h"

namespace mace::store {

struct RunRecord {
  std::string id;
  RunState state = RunState::queued;
  std::string reason;
  std::string spec_json;  // the normalised spec (kept in run_specs, migration 14)
  std::string core;
  int mesh_x = 1;
  int mesh_y = 1;
  std::string objective;
  std::vector<std::string> workloads;
  std::string backend;
  std::string model;
  int64_t max_iterations = 0;
  double max_usd = 0;
  int64_t max_wall_s = 0;
  uint32_t submitted_by_uid = 0;
  int64_t submitted_at_ms = 0;
  int64_t started_at_ms = 0;   // 0: not started
  int64_t finished_at_ms = 0;  // 0: not finished
  std::string replay_of;       // the original run when this run is a replay
  int64_t replay_until = 0;    // a replay's last iteration (`--until`); 0: the whole run
  int64_t checkouts_wanted = 0;  // the spec's `checkouts`; 0: all maced grants
  // Who planned it; unset until its planning starts (core/run_outcome.h).
  std::optional<PlannerKind> planner;
  RunOutcome outcome = RunOutcome::none;  // a fault check's caught or missed
  // The caches a build gets where its task sets none, read from the run's checkout when
  // its loop started (OpenPiton's defaults); empty before then.
  CacheGeometry default_caches = {};
  // Derived from other tables when read:
  int64_t iterations = 0;
  double cost_usd = 0;
};

struct RunFilter {
  std::vector<RunState> states;           // empty: any
  std::optional<uint32_t> submitted_by_uid;
  int64_t limit = 100;                    // newest first; 0: no limit
  std::string before;                     // only runs whose ID sorts before it; "": any
};

// The five metrics of REQ-VER-15, each read from the run's recorded rows.
struct RunMetrics {
  // Task rows of the run, in any iteration, that passed (tasks.passed = 1). A task
  // retried in a later iteration counts once per iteration it passed in.
  int64_t successful_tasks = 0;
  // Iteration rows of the run: every iteration that started, passed or not.
  int64_t iterations = 0;
  // Diagnoses of the run marked recovered (REQ-FAIL-9): failures a later pass fixed.
  int64_t failures_recovered = 0;
  // From started_at to finished_at, or to now while the run is unfinished; 0 for a run
  // that never started (still queued, or refused before starting).
  double execution_time_s = 0;
  // The sum of the cost of every LLM call the run made (llm_calls.cost_usd), planning,
  // task, diagnosis and post-mortem alike.
  double compute_cost_usd = 0;
};

}  // namespace mace::store

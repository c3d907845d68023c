#pragma once
// A run's iterations and their tasks as the store keeps them (store/task_records.cc).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/build_outcome.h"
#include "core/failure_reason.h"
#include "core/task_kind.h"
#include "core/task_stage.h"
#include "store/workload_result_record.h"

namespace mace::store {

// One iteration of a run (REQ-VER-13), with its cost and wall time (REQ-BUD-6). A time of
// 0 means the moment has not come (NULL in the schema).
struct IterationRecord {
  std::string run_id = {};
  int64_t iteration = 0;
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;
  double cost_usd = 0;
  double wall_s = 0;
  bool passed = false;
  std::string plan_text = {};  // the plan as the planner wrote it
};

// One task of an iteration with its whole build configuration (REQ-VER-13). As in
// RunRecord, 0 and "" stand for NULL in the schema: a cache size or associativity of 0
// means the core's default, an empty build_id no build yet, a time of 0 not yet.
struct TaskRecord {
  int64_t row_id = 0;  // tasks.id; assigned by upsert_task, ignored by it
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;  // the planner's id, unique in its iteration
  TaskKind kind = TaskKind::config;
  std::string instruction;
  std::vector<std::string> deps;  // task ids; stored as a JSON array
  std::string checkout;
  std::string core;
  int64_t mesh_x = 0;
  int64_t mesh_y = 0;
  std::string network;
  int64_t l1i_size = 0;
  int64_t l1i_assoc = 0;
  int64_t l1d_size = 0;
  int64_t l1d_assoc = 0;
  int64_t l15_size = 0;
  int64_t l15_assoc = 0;
  int64_t l2_size = 0;
  int64_t l2_assoc = 0;
  // Stored space-separated, so no element may be empty or hold whitespace (upsert_task
  // throws std::invalid_argument). rtl_defines is stored sorted and reads back sorted;
  // extra_flags keeps its order.
  std::vector<std::string> rtl_defines;
  std::string rtl_edits;  // unified diff
  std::string rtl_edits_hash;
  std::vector<std::string> extra_flags;
  std::string build_id;
  BuildOutcome build_outcome = BuildOutcome::none;
  bool build_reused = false;
  // How the task got its model: "built" (sims ran), "checkout" (an earlier
  // build in the same checkout), "store" (the model store); "" when there was no model.
  std::string build_source;
  // For "store": the entry and where and when the model was built.
  std::string build_origin;
  FailureReason failure_reason = FailureReason::none;
  TaskStage stage = TaskStage::pending;
  std::string waiting_for;  // why a `waiting` task waits; "" otherwise
  // What its build cost (loop::BuildFigures): none where nothing was built or tried, or,
  // for CPU time and peak memory, where sims did not run on maced's machine.
  std::optional<double> build_wall_s;
  std::optional<double> build_cpu_s;
  std::optional<int64_t> build_peak_rss_bytes;
  // Its build's sims command line and whole environment ("NAME=value", sorted), as formed
  // (for a reused model: what would build it); empty before MACE kept them.
  std::vector<std::string> build_argv;
  std::vector<std::string> build_environment;
  std::optional<bool> passed;     // none until the task ends
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;
  std::vector<WorkloadResultRecord> results;  // by ordinal

  // The cache columns by the loop's cache names (core/plan.h kCacheNames: "l1i", "l1d",
  // "l15", "l2"): {size, associativity}, 0 for the core's default. Throws
  // std::invalid_argument for another name.
  std::pair<int64_t, int64_t> cache(std::string_view name) const;
  void set_cache(std::string_view name, int64_t size, int64_t associativity);
};

}  // namespace mace::store

#pragma once
// The evaluation harness's records (migrations 9 and 11): batches, their jobs in run
// order, the runs jobs made (REQ-EVAL-3, REQ-EVAL-9) and the re-simulations of build-only
// runs (REQ-EVAL-7).

#include <cstdint>
#include <string>
#include <vector>

#include "core/eval_job_key.h"
#include "core/eval_state.h"
#include "store/workload_result_record.h"

namespace mace::store {

struct EvalBatchRecord {
  std::string id;
  std::string suite_name;
  std::string suite_json;    // the suite as submitted
  std::string request_json;  // methods, repeats, seed, keep_models, ...
  uint32_t submitted_by_uid = 0;
  int64_t submitted_at_ms = 0;
  EvalBatchState state = EvalBatchState::running;
  int64_t finished_at_ms = 0;
};

struct EvalJobRecord : EvalJobKey {
  EvalJobState state = EvalJobState::pending;
  int64_t attempts = 0;
  // Read with the job: its latest run, "" when none was made yet.
  std::string run_id;
};

// One run a job made: what it was and what it was told (the method's instructions, read
// back by the run), and the environment it ran in, recorded when it started.
struct EvalRunRecord : EvalJobKey {
  std::string run_id;
  std::string instructions_json;
  std::string env_json;  // "" until the run started
};

// REQ-EVAL-7 (migration 11): one design a passed build-only run accepted, simulated after
// the run: its task, the model, and each gate workload's verdict (`none` for a workload
// that could not be run on it).
struct EvalResimulationRecord {
  std::string task_id;
  std::string build_id;
  std::vector<WorkloadResultRecord> results;
};

}  // namespace mace::store

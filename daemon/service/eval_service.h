#pragma once
// Evaluation batches as maced keeps them (REQ-EVAL-1..4, 9): a batch is submitted with its
// suite, checked whole before anything is recorded, stored with its jobs in shuffled order,
// and advanced one job at a time: each job becomes an ordinary run, tied to the job in the
// same transaction. A job whose run ended in a final state other than error is done; one
// whose run ended in error (maced killed under it, say) gets a new run, up to
// kMaxJobAttempts; so a stopped batch resumes where it was. Event-loop thread only, like
// RunService.

#include <cstdint>
#include <string>
#include <vector>

#include "core/field_error.h"
#include "eval/batch_plan.h"
#include "eval/results.h"
#include "service/caller.h"
#include "service/clock.h"
#include "service/run_service.h"
#include "store/store.h"

namespace mace::service {

// A job whose runs all ended in error this many times is given up (recorded gave_up), so
// a task that always breaks maced's side cannot hold a batch forever.
inline constexpr int64_t kMaxJobAttempts = 3;

struct EvalSubmitOutcome {
  std::string batch_id;  // empty when refused
  FieldErrors errors;
};

class EvalService {
 public:
  EvalService(store::Store& store, RunService& runs, Clock clock = system_now_ms);

  // Checks the suite (REQ-EVAL-1) and the request, records the batch and its jobs, and
  // starts its first job. Nothing is recorded when anything is wrong, a run a task's spec
  // names that the caller may not read included.
  EvalSubmitOutcome submit(std::string_view suite_json, const eval::BatchRequest& request,
                           const Caller& caller);

  // Moves every running batch on: finished jobs marked done, the next job's run queued.
  // maced calls it at start (a batch a dead maced left resumes) and after every run ends.
  void advance();

  // The batch as `mace eval status/results/report` shows it. Throws RequestError for an
  // unknown batch, or one the caller may not read (its submitter's and administrators',
  // unless others see everything).
  eval::BatchView view(const std::string& batch_id, const Caller& caller) const;

  // Stops a batch: no further job starts, and its queued or running run is cancelled. Only
  // its submitter and administrators may; a refusal (RequestError) changes nothing.
  void cancel(const std::string& batch_id, const Caller& caller);

 private:
  // The refusal of a batch of `new_jobs` jobs when uid's pending jobs would pass
  // queue.max_eval_jobs_per_user; empty otherwise.
  FieldErrors queue_full(uint32_t uid, int64_t new_jobs) const;
  void advance_batch(const store::EvalBatchRecord& batch);
  // Queues a run for `job`; false when its spec was refused (the job is given up then).
  bool start_job(const store::EvalBatchRecord& batch, const store::EvalJobRecord& job);

  store::Store& store_;
  RunService& runs_;
  Clock clock_;
  RunIdGenerator ids_;
  bool advancing_ = false;
};

}  // namespace mace::service

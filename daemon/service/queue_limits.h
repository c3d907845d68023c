#pragma once
// How much of maced's queue one user may hold (`queue` in maced's configuration,
// docs/operating-maced.md "Limits"). Every queued run and every pending evaluation job is
// kept in the store and shown to everyone who lists the queue, so one member of the group
// queueing thousands would cost everyone else disk, memory and time; a submit beyond the
// limit is refused before anything is stored, naming the limit and the user's count.

#include <cstdint>

namespace mace::service {

// `queue.max_runs_per_user`: runs one uid may have queued (not yet started). A run an
// evaluation batch queues for its next job is counted by the job limit instead.
inline constexpr int64_t kDefaultMaxQueuedRunsPerUser = 100;
inline constexpr int64_t kMaxMaxQueuedRunsPerUser = 100'000;

// `queue.max_eval_jobs_per_user`: jobs of one uid's unfinished evaluation batches that are
// not done yet, the new batch's included. The default takes one batch of the largest size
// (eval::kMaxBatchJobs).
inline constexpr int64_t kDefaultMaxPendingEvalJobsPerUser = 2000;
inline constexpr int64_t kMaxMaxPendingEvalJobsPerUser = 1'000'000;

struct QueueLimits {
  int64_t max_runs_per_user = kDefaultMaxQueuedRunsPerUser;
  int64_t max_eval_jobs_per_user = kDefaultMaxPendingEvalJobsPerUser;
};

}  // namespace mace::service

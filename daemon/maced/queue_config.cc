#include "maced/queue_config.h"

#include "maced/config_fields.h"

namespace mace {

void read_queue_config(simdjson::dom::element value, service::QueueLimits& queue,
                       FieldErrors& errors) {
  const auto section_object = config_fields::object_with_keys(value, "queue", {"max_runs_per_user", "max_eval_jobs_per_user"}, errors);
  if (!section_object) return;
  const simdjson::dom::object obj = *section_object;
  if (auto n = config_fields::limit_field(obj, "max_runs_per_user", "queue.max_runs_per_user",
                                          queue.max_runs_per_user,
                                          service::kMaxMaxQueuedRunsPerUser, "runs", errors))
    queue.max_runs_per_user = *n;
  if (auto n = config_fields::limit_field(obj, "max_eval_jobs_per_user",
                                          "queue.max_eval_jobs_per_user",
                                          queue.max_eval_jobs_per_user,
                                          service::kMaxMaxPendingEvalJobsPerUser, "jobs", errors))
    queue.max_eval_jobs_per_user = *n;
}

}  // namespace mace

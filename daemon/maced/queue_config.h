#pragma once
// `queue` in maced's configuration: how much of the queue one user may hold
// (service/queue_limits.h):
//
//   "queue": {"max_runs_per_user": 100, "max_eval_jobs_per_user": 2000}
//
// `max_runs_per_user`: runs one uid may have queued, 1..100000 (default 100).
// `max_eval_jobs_per_user`: jobs of one uid's unfinished evaluation batches not yet done,
// 1..1000000 (default 2000, one batch of the largest size).

#include <simdjson.h>

#include "core/field_error.h"
#include "service/queue_limits.h"

namespace mace {

void read_queue_config(simdjson::dom::element value, service::QueueLimits& queue,
                       FieldErrors& errors);

}  // namespace mace

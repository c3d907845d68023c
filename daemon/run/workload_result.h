#pragma once
// A workload's verdict, as the loop reports it, in the row the store keeps for it.

#include <cstdint>

#include "loop/task_job.h"
#include "store/workload_result_record.h"

namespace mace::run {

// `ordinal`: the workload's place among the task's gate workloads, from 0.
store::WorkloadResultRecord workload_result(int64_t ordinal, const loop::WorkloadVerdict& verdict);

}  // namespace mace::run

#pragma once
// The columns a simulated workload takes in the store (task_results and
// eval_resimulations alike), after the columns that say whose result it is. For the files
// that implement Store; the one list of them, so a new column is added here once.

#include "store/columns.h"
#include "store/workload_result_record.h"

namespace mace::store {

inline const auto kWorkloadResultColumns = columns(
    column("ordinal", &WorkloadResultRecord::ordinal), column("workload", &WorkloadResultRecord::workload),
    column("verdict", &WorkloadResultRecord::verdict), column("returncode", &WorkloadResultRecord::returncode),
    column("run_dir", &WorkloadResultRecord::run_dir), column("wall_s", &WorkloadResultRecord::wall_s),
    column("verdict_time", &WorkloadResultRecord::verdict_time), column("cycles", &WorkloadResultRecord::cycles),
    column("error_line", &WorkloadResultRecord::error_line), column("excerpt", &WorkloadResultRecord::excerpt));

}  // namespace mace::store

#include "run/workload_result.h"

#include "core/environment_entries.h"

namespace mace::run {

store::WorkloadResultRecord workload_result(int64_t ordinal, const loop::WorkloadVerdict& v) {
  return {ordinal,  v.workload,   v.verdict, v.returncode, v.run_dir,
          v.wall_s, v.verdict_time, v.cycles,  v.error_line, v.excerpt,
          v.tiles,  v.argv,         environment_entries(v.environment), v.inputs, v.inputs_note};
}

}  // namespace mace::run

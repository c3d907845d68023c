#pragma once
// What happens inside a task as it happens, recorded as the run's events for `mace watch`:
// a build's progress (its phase, objects compiled of objects to build, the time it has
// taken and the time it should still take, core/build_time_estimate.h), and each
// gate workload's verdict the moment its simulation is
// judged, not when its task ends. The executor calls these from its tasks' threads.

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "core/build_time_estimate.h"
#include "core/run_spec.h"
#include "executor/task_calls.h"
#include "loop/run_loop.h"
#include "openpiton/build_progress.h"
#include "run/run_recorder.h"
#include "service/clock.h"

namespace mace::run {

class ProgressEvents {
 public:
  ProgressEvents(RunRecorder& recorder, const RunSpec& spec, Clock now_ms = system_now_ms);

  void build_progress(const executor::TaskCallSite& site, const openpiton::BuildProgress& progress);
  // Records the time of a build that ran here and succeeded, for later estimates.
  void build_finished(const executor::TaskCallSite& site, const openpiton::BuildResult& build);
  // A narrowing rebuild's runs are not the task's verdicts: they are not reported.
  void verdict(const executor::TaskCallSite& site, const loop::WorkloadVerdict& verdict);
  // A task's simulation of `workload` started (not a narrowing rebuild's).
  void workload_started(const executor::TaskCallSite& site, const std::string& workload);

 private:
  struct RunningBuild {
    int64_t started_ms = 0;
    int64_t compiling_since_ms = 0;  // 0: make has not started
    BuildTimeEstimate estimate;      // from the store's history of this shape and the pace
    openpiton::BuildProgress last;
  };

  RunRecorder& recorder_;
  const RunSpec& spec_;
  Clock now_ms_;
  std::mutex mutex_;  // tasks of a batch build at once
  std::map<std::string, RunningBuild> builds_;  // by call site
};

}  // namespace mace::run

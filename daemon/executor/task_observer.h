#pragma once
// What the executor tells of a task while it runs: each stage it enters, its build's
// progress and end, each verdict as soon as it is judged, and its logs as they start and
// once complete. A run's assembly implements it (run/run_execution.cc records each in the
// store, its progress events and its evidence); every method does nothing unless
// overridden. Called from the tasks' threads, several at once.

#include <filesystem>
#include <string>

#include "core/task_stage.h"
#include "executor/task_calls.h"
#include "loop/task_job.h"
#include "openpiton/build_progress.h"
#include "openpiton/builder.h"
#include "openpiton/coverage.h"

namespace mace::executor {

class TaskObserver {
 public:
  virtual ~TaskObserver() = default;

  // The task entered `stage`: prompting, building, running (REQ-EXEC-10).
  virtual void stage(int /*iteration*/, const loop::TaskJob& /*job*/, TaskStage /*stage*/) {}
  // A build's progress moved (how many objects are compiled; openpiton/build_progress.h).
  // Not told of reused or cached models.
  virtual void build_progress(const TaskCallSite& /*site*/, const openpiton::BuildProgress& /*progress*/) {}
  // A build ended, whether it ran, was reused or came from the replay cache.
  virtual void build_finished(const TaskCallSite& /*site*/, const openpiton::BuildResult& /*build*/) {}
  // A gate workload's verdict, before the next simulation starts.
  virtual void verdict(const TaskCallSite& /*site*/, const loop::WorkloadVerdict& /*verdict*/) {}
  // A build's transcript (`workload` "") or a simulation's sim.log is about to be written
  // at `path`, so it can be read while it grows (`mace logs`).
  virtual void log_started(const TaskCallSite& /*site*/, const std::string& /*workload*/,
                           const std::filesystem::path& /*path*/) {}
  // That build or simulation has ended and its log is complete, before anything else runs
  // in the checkout (the run keeps its copy now).
  virtual void log_finished(const TaskCallSite& /*site*/, const std::string& /*workload*/) {}
  // Whether a task of a spec with coverage merges its line coverage over the workloads it
  // simulated (REQ-EXEC-6); not for a replay, whose simulations were not run.
  virtual bool wants_coverage() const { return false; }
  // That coverage, merged, from the task's thread, before anything else runs in its
  // checkout.
  virtual void coverage(const TaskCallSite& /*site*/, const openpiton::CoverageResult& /*coverage*/) {}
  // Whether a failed task's deciding workload is re-simulated for its waveform (the
  // executor's settings say how); not for a replay, whose simulations were not run.
  virtual bool wants_waveform() const { return false; }
  // That re-simulation is starting (a traced model to build or reuse first), and its end,
  // from the task's thread before anything else runs in its checkout.
  virtual void waveform_started(const TaskCallSite& /*site*/, const std::string& /*workload*/) {}
  virtual void waveform(const TaskCallSite& /*site*/, const loop::FailureWaveform& /*waveform*/) {}
};

}  // namespace mace::executor

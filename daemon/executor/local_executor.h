#pragma once
// The executor: runs each task it is given on the checkout it is given, on a thread of its
// own, so the tasks of a level run at the same time (REQ-EXEC-3), through the OpenPiton
// adapter. Every build and simulation of a checkout happens where the checkout is
// (REQ-EXEC-4): here, or as Slurm jobs on its node when the checkout's commands go through
// a SlurmRunner (openpiton::Checkout's runner); nothing here changes for that.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/run_spec.h"
#include "core/task_stage.h"
#include "executor/build_share.h"
#include "executor/failure_waveform.h"
#include "executor/gate_workloads.h"
#include "executor/task_calls.h"
#include "executor/task_llm.h"
#include "executor/task_observer.h"
#include "loop/task_job.h"
#include "openpiton/checkout.h"
#include "openpiton/coverage.h"
#include "openpiton/edit_set.h"
#include "openpiton/model_store.h"
#include "openpiton/simulator.h"
#include "openpiton/generic_tile.h"
#include "os/cancel_token.h"

namespace mace::executor {

// Everything an executor works with, given once when it is made.
struct ExecutorSettings {
  std::filesystem::path workloads_dir;
  const os::CancelToken* cancel = nullptr;
  // Makes the tasks' builds and workload runs (REQ-REPLAY-1..4: the replay cache wraps
  // them); null: the adapter directly.
  TaskCalls* task_calls = nullptr;
  // The tasks' prompt and agent calls; null: none (no LLM).
  TaskLlm* llm = nullptr;
  // Told of each task's stages, builds, verdicts and logs as they happen; null: nobody.
  TaskObserver* observer = nullptr;
  // A seeded source fault (REQ-EVAL-12): edits every build of the run carries before its
  // own, applied and restored with them. Empty for every run but a fault check's.
  openpiton::EditSet fault_edits = {};
  // Where builds take finished models from and publish them to; null: none.
  const openpiton::ModelStore* model_store = nullptr;
  // What each build is given when its checkout's commands run elsewhere (a Slurm job's
  // allocation); unset: this machine, divided between the builds under way.
  std::optional<BuildShare> build_share = {};
  // The waveform around a failed task's deciding workload (failure_waveform.h); unset:
  // none is traced.
  std::optional<WaveformSettings> waveform = {};
  // The ccache directory builds compile through, and its limit in MiB; empty: none.
  std::string compiler_cache_dir = {};
  std::int64_t compiler_cache_max_mb = 0;
  // The largest file one simulation may write, in bytes; 0: no limit (openpiton/simulator.h).
  std::uint64_t max_sim_output_bytes = 0;
  // The most gate workloads of one task simulating side by side (gate_workloads.h); 0: as
  // many as the task's share of the machine's CPUs. The spec's parallel_workloads, when it
  // sets one, comes first; on Slurm without either, 1.
  std::size_t parallel_workloads = 0;
  // core generic: the descriptor's core (REQ-EXEC-20, REQ-VER-17); unset otherwise.
  std::optional<openpiton::GenericCore> generic = {};
};

class LocalExecutor final {
 public:
  LocalExecutor(const RunSpec& spec, ExecutorSettings settings);
  // Waits for the tasks still under way (the run's cancel token stops them first).
  ~LocalExecutor();
  LocalExecutor(const LocalExecutor&) = delete;
  LocalExecutor& operator=(const LocalExecutor&) = delete;

  // Runs `job` on `checkout` on a thread of its own and returns at once; `done` is called
  // on that thread with the outcome, whatever happens (an exception is an executor_error).
  void start(int iteration, loop::TaskJob job, openpiton::Checkout checkout,
             std::function<void(const loop::TaskJob&, loop::TaskOutcome)> done);
  // Runs `job` on `checkout` on the calling thread.
  loop::TaskOutcome run(int iteration, const loop::TaskJob& job, const openpiton::Checkout& checkout);

 private:
  loop::TaskOutcome run_task(int iteration, const loop::TaskJob& job,
                             const openpiton::Checkout& leased);
  // Builds the task's configuration (the edits already applied) and simulates the gate
  // workloads on it, filling `outcome` (REQ-VER-1..5): the steps below, in order.
  void build_and_simulate(int iteration, const loop::TaskJob& job,
                          const openpiton::Checkout& checkout, const std::string& edits_hash,
                          std::chrono::steady_clock::time_point budget_end, loop::TaskOutcome& outcome);
  // The task's model, built, reused or taken from the store, within this task's share of
  // the machine; the observer told of its progress, transcript and end.
  BuildCall build_model(const TaskCallSite& site, const loop::TaskJob& job,
                        const openpiton::Checkout& checkout, const std::string& edits_hash);
  // The options every build of `job` gets: its time, the cancel, the store and the cache.
  openpiton::BuildOptions build_options(const loop::TaskJob& job) const;
  // How many of a task's gate workloads simulate side by side on model `build_id`: the
  // spec's or maced's cap, and here at most the task's share of this machine's CPUs and
  // memory among the tasks and builds under way.
  SideBySideLimit side_by_side_limit(const std::string& build_id) const;
  // How many compile jobs a build holding `slot` may run now: its share of this machine.
  int compile_jobs_now(const LocalBuildSlot& slot) const;
  // The failed workload re-simulated with its waveform traced, when the run wants it.
  void capture_waveform(const TaskCallSite& site, const loop::TaskJob& job,
                        const openpiton::Checkout& checkout,
                        const openpiton::WorkloadRunResult& failed,
                        std::chrono::steady_clock::time_point budget_end, loop::TaskOutcome& outcome) const;
  // What the build says of the task: its figures, where its model came from, and why it
  // failed.
  void take_build(const BuildCall& build, loop::TaskOutcome& outcome) const;
  // The gate workloads as the spec gives them, on model `build_id` of `checkout`.
  openpiton::SimulationRequest simulation_request(const openpiton::Checkout& checkout,
                                                  const std::string& build_id) const;
  // Simulates the gate workloads, each verdict told as it is judged, and says why the
  // task failed when it did.
  void simulate_gate(const TaskCallSite& site, const loop::TaskJob& job,
                     const openpiton::Checkout& checkout, const std::string& build_id,
                     std::chrono::steady_clock::time_point budget_end, loop::TaskOutcome& outcome);
  // Merges the task's coverage over what it simulated and tells the observer (REQ-EXEC-6).
  void merge_coverage(const TaskCallSite& site, const loop::TaskJob& job,
                      const openpiton::Checkout& checkout, const std::string& build_id,
                      const openpiton::SimulationResult& simulated) const;
  void stage(int iteration, const loop::TaskJob& job, TaskStage stage) const;
  // Joins the threads of tasks that have ended.
  void join_ended();

  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> ended;
  };

  const RunSpec& spec_;
  ExecutorSettings settings_;
  DirectTaskCalls direct_calls_;
  TaskCalls& calls_;
  Agent agent_;
  // The tasks under way now: their builds share the machine.
  std::atomic<int> under_way_{0};
  std::vector<Worker> workers_;  // touched only by the thread that starts tasks
};

}  // namespace mace::executor

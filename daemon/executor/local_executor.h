#pragma once
// The local executor: runs a batch's tasks on this machine, each on its own leased
// checkout, at the same time (REQ-EXEC-3), through the OpenPiton adapter. Every build and
// simulation of a checkout happens here, on the machine that holds it (REQ-EXEC-4). A
// Slurm executor would implement the same TaskRunner with `srun` pinned to the node of
// each checkout; the loop does not change.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/run_spec.h"
#include "executor/agent.h"
#include "executor/task_calls.h"
#include "loop/run_loop.h"
#include "openpiton/checkout.h"
#include "os/process_group.h"

namespace mace::executor {

class LocalExecutor final : public loop::TaskRunner {
 public:
  // `checkouts` are the run's leased checkouts: slot i of a batch runs on checkouts[i].
  LocalExecutor(const RunSpec& spec, std::vector<openpiton::Checkout> checkouts,
                std::filesystem::path workloads_dir, const os::CancelToken* cancel);

  // A config or workload task's prompt call, made when job.prompt says so (REQ-EXEC-10);
  // returns its cost. Its failure is the callee's to log: the task builds anyway
  // (REQ-EXEC-11).
  std::function<double(int iteration, const loop::TaskJob& job)> task_prompt;

  // The agent call of rtl and unit_test tasks (REQ-EXEC-8, 14); unset: none.
  Agent agent;

  // Makes the tasks' builds and workload runs (REQ-REPLAY-1..4: the replay cache wraps
  // them); null: the adapter directly.
  TaskCalls* task_calls = nullptr;

  // Told when a task enters a stage: "prompting", "building", "running" (REQ-EXEC-10).
  std::function<void(int iteration, const std::string& task_id, const std::string& stage)>
      on_stage;

  std::vector<loop::TaskOutcome> run_batch(int iteration,
                                           const std::vector<loop::TaskJob>& jobs) override;

 private:
  loop::TaskOutcome run_task(int iteration, const loop::TaskJob& job);
  // Builds the task's configuration (the edits already applied) and simulates the gate
  // workloads on it, filling `outcome` (REQ-VER-1..5).
  void build_and_simulate(int iteration, const loop::TaskJob& job,
                          const openpiton::Checkout& checkout, const std::string& edits_hash,
                          loop::TaskOutcome& outcome);

  const RunSpec& spec_;
  std::vector<openpiton::Checkout> checkouts_;
  std::filesystem::path workloads_dir_;
  const os::CancelToken* cancel_;
};

}  // namespace mace::executor

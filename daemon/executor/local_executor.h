#pragma once
// The local executor: runs a batch's tasks on this machine, each on its own leased
// checkout, at the same time (REQ-EXEC-3), through the OpenPiton adapter. Every build and
// simulation of a checkout happens here, on the machine that holds it (REQ-EXEC-4). A
// Slurm executor would implement the same TaskRunner with `srun` pinned to the node of
// each checkout; the loop does not change.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/run_spec.h"
#include "core/task_stage.h"
#include "executor/task_calls.h"
#include "executor/task_llm.h"
#include "loop/run_loop.h"
#include "openpiton/checkout.h"
#include "openpiton/generic_tile.h"
#include "os/cancel_token.h"

namespace mace::executor {

// Everything an executor works with, given once when it is made.
struct ExecutorSettings {
  // The run's leased checkouts: slot i of a batch runs on checkouts[i].
  std::vector<openpiton::Checkout> checkouts;
  std::filesystem::path workloads_dir;
  const os::CancelToken* cancel = nullptr;
  // Makes the tasks' builds and workload runs (REQ-REPLAY-1..4: the replay cache wraps
  // them); null: the adapter directly.
  TaskCalls* task_calls = nullptr;
  // The tasks' prompt and agent calls; null: none (no LLM).
  TaskLlm* llm = nullptr;
  // Told when a task enters a stage: prompting, building, running (REQ-EXEC-10). May be
  // called from several threads at once.
  std::function<void(int iteration, const std::string& task_id, TaskStage stage)> on_stage;
  // core generic: the descriptor's core (REQ-EXEC-20, REQ-VER-17); unset otherwise.
  std::optional<openpiton::GenericCore> generic;
};

class LocalExecutor final : public loop::TaskRunner {
 public:
  LocalExecutor(const RunSpec& spec, ExecutorSettings settings);

  std::vector<loop::TaskOutcome> run_batch(int iteration,
                                           const std::vector<loop::TaskJob>& jobs) override;

 private:
  loop::TaskOutcome run_task(int iteration, const loop::TaskJob& job);
  // Builds the task's configuration (the edits already applied) and simulates the gate
  // workloads on it, filling `outcome` (REQ-VER-1..5).
  void build_and_simulate(int iteration, const loop::TaskJob& job,
                          const openpiton::Checkout& checkout, const std::string& edits_hash,
                          loop::TaskOutcome& outcome);
  void stage(int iteration, const loop::TaskJob& job, TaskStage stage) const;

  const RunSpec& spec_;
  ExecutorSettings settings_;
  DirectTaskCalls direct_calls_;
  TaskCalls& calls_;
  Agent agent_;
};

}  // namespace mace::executor

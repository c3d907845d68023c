#pragma once
// What replay adds to a run (REQ-REPLAY-1..4, `mace replay`): the cache around the run's
// builds, workload runs and task prompts, and, for a replay, its planner, the check of its
// decisions against the original's and how it ends. The logic lives in daemon/replay/;
// this wires it to the run's recorder.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "executor/task_calls.h"
#include "executor/task_llm.h"
#include "loop/run_loop.h"
#include "replay/cached_task_calls.h"
#include "replay/call_cache.h"
#include "replay/divergence.h"
#include "replay/original_run.h"
#include "replay/replay_planner.h"
#include "run/run_recorder.h"

namespace mace::run {

class RunReplay {
 public:
  // `default_cache` is what the run caches when its spec's `replay.cache` is unset
  // (maced's configuration). Messages go to the run's log.
  RunReplay(RunRecorder& recorder, const store::RunRecord& record, const RunSpec& spec,
            const std::vector<std::string>& default_cache);
  ~RunReplay();

  bool is_replay() const { return original_.has_value(); }
  executor::TaskCalls& task_calls() { return *task_calls_; }

  // A replay's planner, and the task LLM that answers its tasks' prompt and agent calls
  // from the record. Only for a replay.
  std::unique_ptr<loop::Planner> replay_planner(const RunSpec& spec, std::function<int()> iteration);
  executor::TaskLlm& replay_task_llm() { return *replay_task_llm_; }

  // A task's prompt call through the cache (function "prompt"): served when bypassed,
  // stored when cached, else just made.
  loop::PlannerReply prompt(int iteration, const std::string& task_id,
                            const std::function<loop::PlannerReply()>& call);

  // The observer the loop reports to: for a replay, one that compares before recording.
  loop::LoopObserver& observer(loop::LoopObserver& recording);
  // The loop should end (a replay diverged, or reached --until).
  bool stopping() const { return state_.stopping(); }
  // The run's final state and reason; unchanged for a run that is not a replay.
  std::pair<RunState, std::string> conclude(const loop::LoopResult& result) const;

 private:
  RunRecorder& recorder_;
  std::optional<replay::OriginalRun> original_;
  replay::ReplayState state_;
  std::unique_ptr<replay::CallCache> cache_;
  executor::DirectTaskCalls direct_;
  std::unique_ptr<replay::CachedTaskCalls> task_calls_;
  replay::ReplayPlanner* planner_ = nullptr;
  std::unique_ptr<executor::TaskLlm> replay_task_llm_;
  std::unique_ptr<replay::ReplayObserver> observer_;
};

}  // namespace mace::run

#pragma once
// Whether a replay decides what its original decided, checked as the replay goes: each
// plan, task result, narrowing rebuild, diagnosis, iteration end and post-mortem against
// the original's record, and the final status at the end. The first difference stops the
// replay and is its reason, e.g.
//   replay diverged at iteration 2, task t1: original passed, replay failed (workload_failed)
// The comparisons are pure functions over the records; ReplayObserver applies them to a
// loop as it runs, passing every event on to the observer that records the replay.

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis.h"
#include "core/post_mortem.h"
#include "loop/run_loop.h"
#include "replay/original_run.h"

namespace mace::replay {

// Each returns "" when the replay agrees with the original, else what differs, for people.
std::string compare_plan(const store::IterationRecord* original, const std::string& replay_reply);
std::string compare_task(const store::TaskRecord* original, const loop::TaskJob& job,
                         const loop::TaskOutcome& outcome);
std::string compare_narrowing(const store::NarrowingBuildRecord* original,
                              const loop::TaskJob& job, const loop::TaskOutcome& outcome);
std::string compare_diagnosis(const store::DiagnosisRecord* original, int iteration,
                              const std::string& task_id, const Diagnosis& diagnosis);
// At the end of an iteration: its outcome, and tasks the original ran that the replay did not.
std::string compare_iteration_end(const store::IterationRecord* original, bool passed,
                                  const std::vector<std::string>& original_task_ids,
                                  const std::vector<std::string>& replay_task_ids);
std::string compare_post_mortem(const std::optional<store::PostMortemRecord>& original,
                                const PostMortem& replay);
std::string compare_final(RunState original, RunState replay, const std::string& replay_reason);

// "replay diverged at iteration 2, task t1: <what>"; iteration 0 is "at the end".
std::string divergence_message(int iteration, const std::string& task_id, const std::string& what);

// Shared by the replay's planner (the loop's and the executor's threads) and observer.
class ReplayState {
 public:
  explicit ReplayState(int until_iteration = 0) : until_(until_iteration) {}
  // The first divergence wins; later ones follow from it.
  void diverge(const std::string& message);
  std::optional<std::string> divergence() const;
  int until() const { return until_; }
  void reach_until();
  bool until_reached() const;
  // The loop should end: it diverged, or the iteration after --until began.
  bool stopping() const;

 private:
  mutable std::mutex mutex_;
  std::optional<std::string> divergence_;
  int until_;
  bool until_reached_ = false;
};

// Compares what the loop reports with the original and passes everything on to `inner`.
// Loop thread only.
class ReplayObserver final : public loop::LoopObserver {
 public:
  ReplayObserver(const OriginalRun& original, ReplayState& state, loop::LoopObserver& inner);

  void iteration_started(int iteration) override;
  void plan_made(int iteration, const Plan& plan, const std::string& reply) override;
  void level_started(int iteration, std::size_t level, const std::vector<std::string>& ids) override;
  void task_waiting(int iteration, const loop::TaskJob& job, const std::string& why) override;
  void task_started(int iteration, const loop::TaskJob& job) override;
  void task_finished(int iteration, const loop::TaskJob& job, const loop::TaskOutcome& outcome) override;
  void task_lost(int iteration, const loop::TaskJob& job, const loop::TaskOutcome& outcome,
                 const std::string& next) override;
  void iteration_finished(int iteration, bool passed, double cost_usd, double wall_s) override;
  void note(const std::string& message) override;
  void narrowing_finished(int iteration, const loop::TaskJob& job, const loop::TaskOutcome& outcome) override;
  void diagnosed(int iteration, const std::string& task_id, const Diagnosis& diagnosis) override;
  void failures_recovered() override;
  void post_mortem_made(const PostMortem& post_mortem) override;

 private:
  void check(int iteration, const std::string& task_id, const std::string& what);
  const store::IterationRecord* original_iteration(int iteration) const;

  const OriginalRun& original_;
  ReplayState& state_;
  loop::LoopObserver& inner_;
  std::vector<std::string> tasks_this_iteration_;
  std::size_t next_diagnosis_ = 0;
  std::size_t next_narrowing_ = 0;
};

struct Conclusion {
  RunState state = RunState::error;
  std::string reason;
};

// How a replay ends: `error` with the divergence, `cancelled` when it stopped at
// --until with everything matching, else the original's state. `unasked_calls`
// describes recorded LLM calls the replay never asked for (the planner's).
Conclusion conclude(const OriginalRun& original, const ReplayState& state,
                    const loop::LoopResult& result, const std::vector<std::string>& unasked_calls);

}  // namespace mace::replay

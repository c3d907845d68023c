#pragma once
// The planner of a replay: every LLM call the loop and its tasks make is answered with the
// reply the original run got, from its llm_calls, without calling any LLM. Planning,
// diagnosis and post-mortem calls come one after another from the loop, so they are
// served in the order they were recorded, each checked for its phase, iteration and task;
// task calls (prompts, agents) run concurrently, so each is served from its own task's
// calls, in order. A call the record does not have is a divergence: it is reported to the
// ReplayState and answered with a failed reply, and the loop stops.
//
// Each recorded attempt (a rate-limited one before its retry included) is recorded again
// for the replay with its tokens and cost, so the replay's budget and compute cost are the
// original's (REQ-BUD-5).
//
// An original planned by the direct planner has no LLM calls; its replay plans with the
// direct planner again.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "loop/run_loop.h"
#include "replay/divergence.h"
#include "replay/original_run.h"

namespace mace::replay {

// One call as the loop saw it: its attempts, the last of which is the reply.
struct RecordedCall {
  std::vector<store::LlmCallRecord> attempts;
  const store::LlmCallRecord& reply() const { return attempts.back(); }
  std::string describe() const;  // "diagnosis call (iteration 1, task t1)"
};

// The attempts grouped into calls: a rate-limited attempt is followed by its retry, up to
// `max_attempts` (the retry policy's waits plus one). Ordered by their first attempt.
std::vector<RecordedCall> group_calls(const std::vector<store::LlmCallRecord>& attempts,
                                      std::size_t max_attempts = 4);


class ReplayPlanner final : public loop::Planner {
 public:
  // `iteration` is the loop's current iteration; `record` stores an attempt of the replay
  // (run_id already the replay's).
  ReplayPlanner(const OriginalRun& original, const RunSpec& spec, ReplayState& state,
                std::string replay_run_id, std::function<int()> iteration,
                std::function<void(const store::LlmCallRecord&)> record,
                std::function<int64_t()> now_ms);

  loop::PlannerReply plan(const std::string& prompt) override;
  bool can_triage() const override;
  // As the original's planner: the direct planner's replay ends where it ended.
  bool replans() const override { return direct_ == nullptr; }
  std::string who() const override { return direct_ ? direct_->who() : "the replayed planner"; }
  loop::PlannerReply triage(loop::TriagePhase phase,
                            const std::function<std::string(bool)>& prompt,
                            const loop::TaskOutcome* failed) override;
  // A task's own call (its prompt, or an rtl / unit_test task's agent): any thread.
  loop::PlannerReply task(int iteration, const std::string& task_id);

  // The loop's recorded calls the replay never asked for, described.
  std::vector<std::string> unasked() const;

 private:
  loop::PlannerReply serve_loop(LlmPhase phase, int iteration, const std::string& task_id);
  loop::PlannerReply answer(const RecordedCall& call, int iteration);
  loop::PlannerReply diverged(int iteration, const std::string& task_id, const std::string& what);

  const OriginalRun& original_;
  ReplayState& state_;
  std::string run_id_;
  std::function<int()> iteration_;
  std::function<void(const store::LlmCallRecord&)> record_;
  std::function<int64_t()> now_ms_;
  std::unique_ptr<loop::Planner> direct_;  // for an original of the direct planner
  mutable std::mutex mutex_;
  std::deque<RecordedCall> loop_calls_;
  std::map<std::pair<int64_t, std::string>, std::deque<RecordedCall>> task_calls_;
};

}  // namespace mace::replay

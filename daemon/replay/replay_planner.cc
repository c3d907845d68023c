#include "replay/replay_planner.h"

#include "loop/direct_planner.h"

namespace mace::replay {
namespace {

std::string call_place(LlmPhase phase, int64_t iteration, const std::string& task_id) {
  std::string out = std::string(to_string(phase)) + " call (iteration " + std::to_string(iteration);
  if (!task_id.empty()) out += ", task " + task_id;
  return out + ")";
}

}  // namespace

std::string RecordedCall::describe() const {
  const auto& r = reply();
  return call_place(r.phase, r.iteration, r.task_id);
}


std::vector<RecordedCall> group_calls(const std::vector<store::LlmCallRecord>& attempts,
                                      std::size_t max_attempts) {
  std::vector<RecordedCall> calls;
  // The call of each stream still open for a retry: the loop's, or one task's.
  std::map<std::tuple<std::string, int64_t, std::string>, std::size_t> open;
  for (const auto& attempt : attempts) {
    auto key = is_loop_phase(attempt.phase)
                   ? std::make_tuple(std::string("loop"), int64_t{0}, std::string())
                   : std::make_tuple(std::string(to_string(attempt.phase)), attempt.iteration, attempt.task_id);
    auto it = open.find(key);
    if (it != open.end()) {
      calls[it->second].attempts.push_back(attempt);
    } else {
      calls.push_back({{attempt}});
      it = open.emplace(key, calls.size() - 1).first;
    }
    const RecordedCall& call = calls[it->second];
    bool retried = !attempt.success && attempt.error_class == LlmErrorClass::rate_limit &&
                   call.attempts.size() < max_attempts;
    if (!retried) open.erase(it);
  }
  return calls;
}

ReplayPlanner::ReplayPlanner(const OriginalRun& original, const RunSpec& spec, ReplayState& state,
                             std::string replay_run_id, std::function<int()> iteration,
                             std::function<void(const store::LlmCallRecord&)> record,
                             std::function<int64_t()> now_ms)
    : original_(original),
      state_(state),
      run_id_(std::move(replay_run_id)),
      iteration_(std::move(iteration)),
      record_(std::move(record)),
      now_ms_(std::move(now_ms)) {
  if (is_direct_backend(original.run.backend)) direct_ = std::make_unique<loop::DirectPlanner>(spec);
  for (auto& call : group_calls(original.llm_calls)) {
    const auto& reply = call.reply();
    if (is_loop_phase(reply.phase))
      loop_calls_.push_back(std::move(call));
    else
      task_calls_[{reply.iteration, reply.task_id}].push_back(std::move(call));
  }
}

loop::PlannerReply ReplayPlanner::plan(const std::string& prompt) {
  const int iteration = iteration_();
  if (state_.stopping())
    return {false, "", 0, state_.until_reached() ? "the replay stopped at --until" : "the replay diverged"};
  if (direct_) return direct_->plan(prompt);
  return serve_loop(LlmPhase::planning, iteration, "");
}

bool ReplayPlanner::can_triage() const { return direct_ == nullptr; }

loop::PlannerReply ReplayPlanner::triage(loop::TriagePhase phase,
                                         const std::function<std::string(bool)>&,
                                         const loop::TaskOutcome* failed) {
  if (direct_) return direct_->triage(phase, [](bool) { return std::string(); }, failed);
  return serve_loop(loop::llm_phase(phase),
                    iteration_(), failed ? failed->task_id : "");
}

loop::PlannerReply ReplayPlanner::task(int iteration, const std::string& task_id) {
  std::optional<RecordedCall> call;
  {
    std::lock_guard lock(mutex_);
    auto it = task_calls_.find({iteration, task_id});
    if (it != task_calls_.end() && !it->second.empty()) {
      call = std::move(it->second.front());
      it->second.pop_front();
    }
  }
  if (!call)
    return diverged(iteration, task_id, "the task makes an LLM call the original's did not make");
  return answer(*call, iteration);
}

std::vector<std::string> ReplayPlanner::unasked() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& call : loop_calls_) out.push_back(call.describe());
  for (const auto& [key, calls] : task_calls_)
    for (const auto& call : calls) out.push_back(call.describe());
  return out;
}

loop::PlannerReply ReplayPlanner::serve_loop(LlmPhase phase, int iteration,
                                             const std::string& task_id) {
  std::optional<RecordedCall> call;
  {
    std::lock_guard lock(mutex_);
    if (!loop_calls_.empty()) {
      call = std::move(loop_calls_.front());
      loop_calls_.pop_front();
    }
  }
  const std::string asked = call_place(phase, iteration, task_id);
  if (!call) return diverged(iteration, task_id, "the replay makes a " + asked +
                                                     " where the original made no more LLM calls");
  const auto& r = call->reply();
  if (r.phase != phase || r.iteration != iteration || r.task_id != task_id)
    return diverged(iteration, task_id,
                    "the replay makes a " + asked + " where the original made a " + call->describe());
  return answer(*call, iteration);
}

loop::PlannerReply ReplayPlanner::answer(const RecordedCall& call, int iteration) {
  for (store::LlmCallRecord attempt : call.attempts) {
    attempt.id = 0;
    attempt.run_id = run_id_;
    attempt.iteration = iteration;
    attempt.wall_s = 0;
    attempt.created_at_ms = now_ms_();
    if (record_) record_(attempt);
  }
  const auto& r = call.reply();
  return {r.success, r.reply_text, r.cost_usd,
          r.success ? "" : "the recorded call failed (" + std::string(to_string(r.error_class)) + ")"};
}

loop::PlannerReply ReplayPlanner::diverged(int iteration, const std::string& task_id,
                                           const std::string& what) {
  state_.diverge(divergence_message(iteration, task_id, what));
  return {false, "", 0, "the replay diverged: " + what};
}

}  // namespace mace::replay

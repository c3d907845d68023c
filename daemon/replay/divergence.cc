#include "replay/divergence.h"

#include <algorithm>

#include "core/joined.h"

namespace mace::replay {
namespace {

constexpr std::size_t kShownBytes = 120;

std::string passed_text(bool passed, FailureReason failure_reason) {
  if (passed) return "passed";
  return failure_reason == FailureReason::none
             ? "failed"
             : "failed (" + std::string(to_string(failure_reason)) + ")";
}

std::string build_text(BuildOutcome outcome) {
  return outcome == BuildOutcome::none ? "none" : std::string(to_string(outcome));
}

std::string quoted(const std::string& text) {
  std::string shown = text.size() > kShownBytes ? text.substr(0, kShownBytes) + "..." : text;
  for (char& c : shown)
    if (c == '\n') c = ' ';
  return "\"" + shown + "\"";
}

// The first line where two texts differ, both shown.
std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t line_start = 0;
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '\n') line_start = i + 1;
    ++i;
  }
  auto line_of = [&](const std::string& s) {
    std::size_t end = s.find('\n', line_start);
    return line_start >= s.size() ? std::string("(end)") : s.substr(line_start, end - line_start);
  };
  return "original " + quoted(line_of(a)) + ", replay " + quoted(line_of(b));
}

std::string verdicts_text(const std::vector<std::pair<std::string, Verdict>>& verdicts) {
  std::vector<std::string> parts;
  for (const auto& [workload, verdict] : verdicts)
    parts.push_back(workload + " " + std::string(to_string(verdict)));
  return parts.empty() ? "none" : joined(parts, ", ");
}

}  // namespace

std::string divergence_message(int iteration, const std::string& task_id, const std::string& what) {
  std::string where = iteration > 0 ? "at iteration " + std::to_string(iteration) : "at the end";
  if (!task_id.empty()) where += ", task " + task_id;
  return "replay diverged " + where + ": " + what;
}

std::string compare_plan(const store::IterationRecord* original, const std::string& replay_reply) {
  if (!original) return "the original made no plan in this iteration";
  if (original->plan_text == replay_reply) return "";
  return "the plan came from another reply: " + first_difference(original->plan_text, replay_reply);
}

std::string compare_task(const store::TaskRecord* original, const loop::TaskJob& job,
                         const loop::TaskOutcome& outcome) {
  if (!original) return "the original ran no such task in this iteration";
  if (original->kind != job.task.kind)
    return "original kind " + std::string(to_string(original->kind)) + ", replay kind " +
           std::string(to_string(job.task.kind));
  if (original->deps != job.task.deps)
    return "original deps [" + joined(original->deps, ", ") + "], replay deps [" +
           joined(job.task.deps, ", ") + "]";
  for (std::string_view name : kCacheNames) {
    auto [size, associativity] = original->cache(name);
    const CacheOverride was{size, associativity};
    auto it = job.caches.find(std::string(name));
    const CacheOverride is = it == job.caches.end() ? CacheOverride{} : it->second;
    if (was != is)
      return std::string(name) + ": original " + describe(was) + ", replay " + describe(is);
  }
  std::vector<std::string> defines = job.defines;
  std::sort(defines.begin(), defines.end());
  defines.erase(std::unique(defines.begin(), defines.end()), defines.end());
  if (original->rtl_defines != defines)
    return "original defines [" + joined(original->rtl_defines, ", ") + "], replay defines [" +
           joined(defines, ", ") + "]";
  bool original_passed = original->passed.value_or(false);
  if (original_passed != outcome.passed || original->failure_reason != outcome.failure_reason)
    return "original " + passed_text(original_passed, original->failure_reason) + ", replay " +
           passed_text(outcome.passed, outcome.failure_reason);
  const BuildOutcome build = outcome.build_outcome();
  if (original->build_outcome != build)
    return "original build " + build_text(original->build_outcome) + ", replay build " +
           build_text(build);
  std::vector<std::pair<std::string, Verdict>> was, is;
  for (const auto& r : original->results) was.emplace_back(r.workload, r.verdict);
  for (const auto& v : outcome.verdicts) is.emplace_back(v.workload, v.verdict);
  if (was != is)
    return "original verdicts " + verdicts_text(was) + ", replay verdicts " + verdicts_text(is);
  return "";
}

std::string compare_narrowing(const store::NarrowingBuildRecord* original,
                              const loop::TaskJob& job, const loop::TaskOutcome& outcome) {
  if (!original) return "narrowing rebuild \"" + job.narrowing + "\" the original did not make";
  if (original->task_id != job.task.id || original->undone != job.narrowing)
    return "original narrowing rebuild of " + original->task_id + " \"" + original->undone +
           "\", replay of " + job.task.id + " \"" + job.narrowing + "\"";
  if (original->passed != outcome.passed || original->failure_reason != outcome.failure_reason)
    return "narrowing rebuild \"" + job.narrowing + "\": original " +
           passed_text(original->passed, original->failure_reason) + ", replay " +
           passed_text(outcome.passed, outcome.failure_reason);
  return "";
}

std::string compare_diagnosis(const store::DiagnosisRecord* original, int iteration,
                              const std::string& task_id, const Diagnosis& d) {
  auto text = [](const std::string& label, const std::string& fix, DiagnosisSource source) {
    return label + " (" + std::string(to_string(source)) + ")" + (fix.empty() ? "" : ", fix " + quoted(fix));
  };
  if (!original)
    return "diagnosis " + text(d.label, d.fix, d.source) + " the original did not make";
  if (original->iteration != iteration || original->task_id != task_id)
    return "the original's next diagnosis is of task " + original->task_id + " in iteration " +
           std::to_string(original->iteration);
  if (original->label != d.label || original->fix != d.fix || original->source != d.source)
    return "diagnosis: original " + text(original->label, original->fix, original->source) +
           ", replay " + text(d.label, d.fix, d.source);
  return "";
}

std::string compare_iteration_end(const store::IterationRecord* original, bool passed,
                                  const std::vector<std::string>& original_task_ids,
                                  const std::vector<std::string>& replay_task_ids) {
  for (const auto& id : original_task_ids)
    if (std::find(replay_task_ids.begin(), replay_task_ids.end(), id) == replay_task_ids.end())
      return "the original ran task " + id + ", the replay did not";
  if (!original) return "the original has no record of this iteration";
  if (original->passed != passed)
    return std::string("original iteration ") + (original->passed ? "passed" : "failed") +
           ", replay iteration " + (passed ? "passed" : "failed");
  return "";
}

std::string compare_post_mortem(const std::optional<store::PostMortemRecord>& original,
                                const PostMortem& replay) {
  if (!original) return "post-mortem " + replay.assessment + " the original did not make";
  if (original->assessment != replay.assessment)
    return "post-mortem: original " + original->assessment + ", replay " + replay.assessment;
  return "";
}

std::string compare_final(RunState original, RunState replay, const std::string& replay_reason) {
  if (original == replay) return "";
  return "original ended " + std::string(to_string(original)) + ", replay ended " +
         std::string(to_string(replay)) + (replay_reason.empty() ? "" : " (" + replay_reason + ")");
}

void ReplayState::diverge(const std::string& message) {
  std::lock_guard lock(mutex_);
  if (!divergence_) divergence_ = message;
}

std::optional<std::string> ReplayState::divergence() const {
  std::lock_guard lock(mutex_);
  return divergence_;
}

void ReplayState::reach_until() {
  std::lock_guard lock(mutex_);
  until_reached_ = true;
}

bool ReplayState::until_reached() const {
  std::lock_guard lock(mutex_);
  return until_reached_;
}

bool ReplayState::stopping() const {
  std::lock_guard lock(mutex_);
  return divergence_.has_value() || until_reached_;
}

ReplayObserver::ReplayObserver(const OriginalRun& original, ReplayState& state,
                               loop::LoopObserver& inner)
    : original_(original), state_(state), inner_(inner) {}

void ReplayObserver::check(int iteration, const std::string& task_id, const std::string& what) {
  if (!what.empty()) state_.diverge(divergence_message(iteration, task_id, what));
}

const store::IterationRecord* ReplayObserver::original_iteration(int iteration) const {
  for (const auto& it : original_.iterations)
    if (it.iteration == iteration) return &it;
  return nullptr;
}

void ReplayObserver::iteration_started(int iteration) {
  // --until N: iteration N+1 is not begun; the planner refuses its plan.
  if (state_.until() > 0 && iteration > state_.until()) {
    state_.reach_until();
    return;
  }
  tasks_this_iteration_.clear();
  inner_.iteration_started(iteration);
}

void ReplayObserver::plan_made(int iteration, const Plan& plan, const std::string& reply) {
  inner_.plan_made(iteration, plan, reply);
  check(iteration, "", compare_plan(original_iteration(iteration), reply));
}

void ReplayObserver::level_started(int iteration, std::size_t level,
                                   const std::vector<std::string>& ids) {
  inner_.level_started(iteration, level, ids);
}

void ReplayObserver::task_waiting(int iteration, const loop::TaskJob& job, const std::string& why) {
  inner_.task_waiting(iteration, job, why);
}

void ReplayObserver::task_started(int iteration, const loop::TaskJob& job) {
  inner_.task_started(iteration, job);
}

// Where and how often a task ran says nothing of the run's decisions: not compared.
void ReplayObserver::task_lost(int iteration, const loop::TaskJob& job,
                               const loop::TaskOutcome& outcome, const std::string& next) {
  inner_.task_lost(iteration, job, outcome, next);
}

void ReplayObserver::task_finished(int iteration, const loop::TaskJob& job,
                                   const loop::TaskOutcome& outcome) {
  inner_.task_finished(iteration, job, outcome);
  tasks_this_iteration_.push_back(job.task.id);
  const store::TaskRecord* original = nullptr;
  for (const auto& t : original_.tasks)
    if (t.iteration == iteration && t.task_id == job.task.id) original = &t;
  check(iteration, job.task.id, compare_task(original, job, outcome));
}

void ReplayObserver::iteration_finished(int iteration, bool passed, double cost_usd, double wall_s) {
  inner_.iteration_finished(iteration, passed, cost_usd, wall_s);
  std::vector<std::string> original_ids;
  for (const auto& t : original_.tasks)
    if (t.iteration == iteration) original_ids.push_back(t.task_id);
  check(iteration, "", compare_iteration_end(original_iteration(iteration), passed, original_ids,
                                             tasks_this_iteration_));
}

void ReplayObserver::note(const std::string& message) { inner_.note(message); }

void ReplayObserver::narrowing_finished(int iteration, const loop::TaskJob& job,
                                        const loop::TaskOutcome& outcome) {
  inner_.narrowing_finished(iteration, job, outcome);
  const store::NarrowingBuildRecord* original =
      next_narrowing_ < original_.narrowing_builds.size() ? &original_.narrowing_builds[next_narrowing_]
                                                          : nullptr;
  ++next_narrowing_;
  if (original && original->iteration != iteration) original = nullptr;
  check(iteration, job.task.id, compare_narrowing(original, job, outcome));
}

void ReplayObserver::diagnosed(int iteration, const std::string& task_id, const Diagnosis& d) {
  inner_.diagnosed(iteration, task_id, d);
  const store::DiagnosisRecord* original =
      next_diagnosis_ < original_.diagnoses.size() ? &original_.diagnoses[next_diagnosis_] : nullptr;
  ++next_diagnosis_;
  check(iteration, task_id, compare_diagnosis(original, iteration, task_id, d));
}

void ReplayObserver::failures_recovered() { inner_.failures_recovered(); }

void ReplayObserver::post_mortem_made(const PostMortem& pm) {
  inner_.post_mortem_made(pm);
  check(0, "", compare_post_mortem(original_.post_mortem, pm));
}

Conclusion conclude(const OriginalRun& original, const ReplayState& state,
                    const loop::LoopResult& result, const std::vector<std::string>& unasked_calls) {
  if (auto divergence = state.divergence()) return {RunState::error, *divergence};
  const std::string& id = original.run.id;
  if (state.until_reached()) {
    return {RunState::cancelled, "replay of " + id + " stopped after iteration " +
                                     std::to_string(state.until()) +
                                     " as asked (--until); every decision so far matched"};
  }
  if (std::string what = compare_final(original.run.state, result.state, result.reason); !what.empty())
    return {RunState::error, divergence_message(0, "", what)};
  if (!unasked_calls.empty())
    return {RunState::error,
            divergence_message(0, "", "the original made LLM calls the replay did not: " +
                                          joined(unasked_calls, ", "))};
  return {result.state, "replay of " + id + ": every decision matched the original" +
                            (result.reason.empty() ? "" : "; " + result.reason)};
}

}  // namespace mace::replay

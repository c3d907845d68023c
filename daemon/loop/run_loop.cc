#include "loop/run_loop.h"

#include <algorithm>
#include <set>

#include "core/budget_tracker.h"
#include "core/joined.h"
#include "core/planner_prompt.h"
#include "core/task_graph.h"

namespace mace::loop {
namespace {

constexpr int kPlanAsks = 3;  // one call and at most two re-asks (REQ-PLAN-5, REQ-PLAN-16)
constexpr std::size_t kDigestBytes = 4000;

std::string caches_text(const CacheGeometry& caches) {
  std::string out;
  for (const auto& [name, geometry] : caches) {
    if (!out.empty()) out += ", ";
    out += name + " " + std::to_string(geometry.size) + " B " +
           std::to_string(geometry.associativity) + "-way";
  }
  return out;
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// A config or workload task whose design ran every gate workload to a pass (REQ-VER-10).
bool design_passed_every_workload(const TaskOutcome& outcome) {
  if (!outcome.passed || outcome.verdicts.empty()) return false;
  for (const auto& v : outcome.verdicts)
    if (v.verdict != "pass") return false;
  return true;
}

}  // namespace

LoopResult run_loop(const LoopInputs& in, Planner& planner, TaskRunner& runner,
                    LoopObserver& observer) {
  LoopResult result;
  // REQ-BUD-7, REQ-BUD-8: before any LLM call or checkout access.
  if (auto problems = in.checksum_problems(); !problems.empty()) {
    result.state = RunState::checksum_mismatch;
    result.reason = joined(problems, "; ");
    return result;
  }

  BudgetTracker budget(in.spec.budget, in.now());
  std::set<std::string> failed_signatures;
  std::string failure_digest;
  auto finish = [&](RunState state, std::string reason) {
    result.state = state;
    result.reason = std::move(reason);
    result.iterations = budget.iterations();
    result.cost_usd = budget.cost();
    return result;
  };

  for (int iteration = 1;; ++iteration) {
    if (in.cancelled()) return finish(RunState::cancelled, "cancelled");
    // REQ-BUD-3, REQ-BUD-4
    if (auto why = budget.exceeded_before_iteration(in.now()))
      return finish(RunState::budget_exceeded, *why);
    observer.iteration_started(iteration);
    const Clock::time_point iteration_start = in.now();
    const double cost_before = budget.cost();

    // Plan, re-asking with the reasons while the reply is unusable or rejected.
    std::optional<Plan> plan;
    std::string reply_text;
    std::vector<std::string> reasons;
    for (int ask = 0; ask < kPlanAsks; ++ask) {
      PromptInputs prompt{.spec = in.spec,
                          .failure_digest = failure_digest,
                          .rejection_reasons = reasons,
                          .rtl_edits = in.spec.options.rtl_edits,
                          .default_caches = caches_text(in.default_caches)};
      PlannerReply reply = planner.plan(planner_prompt(prompt));
      budget.add_cost(reply.cost_usd);  // REQ-BUD-5
      if (!reply.ok) return finish(RunState::error, "the planner gave no reply: " + reply.error);
      Plan parsed = parse_plan(reply.text);
      if (!parsed.usable()) {
        reasons = parsed.errors;
        continue;
      }
      PlanContext context;
      context.core = std::string(to_string(in.spec.core));
      context.rtl_edits = in.spec.options.rtl_edits;
      context.default_caches = in.default_caches;
      context.failed_signatures = failed_signatures;
      context.define_mentioned = in.define_mentioned;
      context.objective_defines = in.objective_defines;
      PlanCheckResult checked = check_plan(parsed, context);
      for (const auto& note : checked.notes) observer.note(note);
      plan = checked.plan;
      reply_text = reply.text;
      // A plan still rejected after the re-asks runs as it stands (REQ-PLAN-16).
      if (checked.rejections.empty()) break;
      reasons = checked.rejections;
    }
    if (!plan) {  // REQ-PLAN-13
      return finish(RunState::planning_failed,
                    "no usable plan after " + std::to_string(kPlanAsks) +
                        " replies: " + joined(reasons, "; "));
    }
    if (fast_path_applies(*plan)) *plan = fast_path(*plan);  // REQ-PLAN-17
    observer.plan_made(iteration, *plan, reply_text);

    // Execute level by level, in batches of one task per checkout (REQ-EXEC-1, 2).
    std::vector<TaskOutcome> outcomes;
    const TaskOutcome* first_failure = nullptr;
    std::vector<TaskLevel> levels = topological_levels(plan->tasks);
    for (std::size_t level = 0; level < levels.size() && first_failure == nullptr; ++level) {
      std::vector<std::string> ids;
      for (const auto& task : levels[level]) ids.push_back(task.id);
      observer.level_started(iteration, level, ids);
      for (const TaskLevel& batch : batches(levels[level], in.checkouts)) {
        if (in.cancelled()) return finish(RunState::cancelled, "cancelled");
        std::vector<TaskJob> jobs;
        for (std::size_t slot = 0; slot < batch.size(); ++slot) {
          const PlannedTask& task = batch[slot];
          jobs.push_back(TaskJob{.task = task,
                                 .defines = inherited_defines(*plan, task),
                                 .caches = effective_caches(task, in.default_caches),
                                 .slot = slot,
                                 .build_limit = budget.cap(kBuildTimeLimit, in.now()),
                                 .run_limit = budget.cap(kRunTimeLimit, in.now())});
        }
        std::vector<TaskOutcome> done = runner.run_batch(iteration, jobs);
        for (std::size_t i = 0; i < done.size() && i < jobs.size(); ++i) {
          observer.task_finished(iteration, jobs[i], done[i]);
          outcomes.push_back(done[i]);
          if (!done[i].passed) {
            failed_signatures.insert(task_build_signature(*plan, jobs[i].task, in.default_caches));
          }
        }
      }
      // REQ-VER-9: no later level builds on a level that failed verification.
      for (const auto& outcome : outcomes)
        if (!outcome.passed && first_failure == nullptr) first_failure = &outcome;
    }

    bool all_passed = !outcomes.empty() && first_failure == nullptr;
    bool one_design_passed = false;
    for (const auto& outcome : outcomes) one_design_passed |= design_passed_every_workload(outcome);
    const bool passed = all_passed || one_design_passed;
    const Clock::time_point now = in.now();
    budget.iteration_finished(passed, now);
    observer.iteration_finished(iteration, passed, budget.cost() - cost_before,
                                seconds_between(iteration_start, now));
    if (in.cancelled()) return finish(RunState::cancelled, "cancelled");
    if (outcomes.empty())  // REQ-VER-11
      return finish(RunState::failed,
                    "iteration " + std::to_string(iteration) + " produced no task results");
    if (passed) return finish(RunState::passed, "");  // REQ-VER-10

    // REQ-FAIL-13: the next prompt carries what the failed task left behind.
    failure_digest = "task " + first_failure->task_id + " failed (" +
                     first_failure->failure_reason + ")\n" +
                     digest_lines(first_failure->evidence, kDigestBytes);
  }
}

std::vector<std::string> define_candidates(const std::string& objective) {
  auto is_word_char = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  };
  auto looks_like_define = [](const std::string& w) {
    if (w.size() < 3 || w.find('_') == std::string::npos || !(w[0] >= 'A' && w[0] <= 'Z'))
      return false;
    return std::all_of(w.begin(), w.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < objective.size();) {
    std::size_t end = i;
    while (end < objective.size() && is_word_char(objective[end])) ++end;
    std::string word = objective.substr(i, end - i);
    if (looks_like_define(word) && std::find(out.begin(), out.end(), word) == out.end())
      out.push_back(word);
    i = end == i ? i + 1 : end;
  }
  return out;
}

}  // namespace mace::loop

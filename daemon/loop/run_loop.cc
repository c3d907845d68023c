#include "loop/run_loop.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "core/budget_tracker.h"
#include "core/diagnosis.h"
#include "core/joined.h"
#include "core/narrowing.h"
#include "core/planner_prompt.h"
#include "core/post_mortem.h"
#include "core/task_graph.h"

namespace mace::loop {
namespace {

constexpr int kPlanAsks = 3;  // one call and at most two re-asks (REQ-PLAN-5, REQ-PLAN-16)
constexpr std::size_t kDigestBytes = 4000;
constexpr std::size_t kEvidenceBytes = 2000;

// A planner call that got no reply after the backend's retries ends the run (REQ-BUD-14).
struct PlannerSilent {
  std::string error;
};

// The infrastructure left the run nothing to run a task on, or lost one task too often:
// the run ends, naming what the infrastructure did, never the design.
struct InfrastructureGone {
  std::string why;
};

std::string caches_text(const CacheGeometry& caches) {
  std::string out;
  for (const auto& [name, geometry] : caches) {
    if (!out.empty()) out += ", ";
    out += name + " " + describe(geometry);
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
    if (v.verdict != Verdict::pass) return false;
  return true;
}

// The first evidence line of a failed task: what a run's reason shows of it.
std::string failure_summary(const TaskOutcome& outcome) {
  std::string text = "task " + outcome.task_id + " failed (" +
                     std::string(to_string(outcome.failure_reason)) + ")";
  for (const auto& line : outcome.evidence) {
    if (line.empty()) continue;
    const std::string first = line.substr(0, line.find('\n'));
    return text + ": " + first.substr(0, kEvidenceBytes);
  }
  return text;
}

// The cause of the first task that failed for a reason no plan can change, as the run's
// reason; nullopt when there is none.
std::optional<std::string> unreplannable_cause(const std::vector<TaskOutcome>& outcomes) {
  for (const auto& outcome : outcomes)
    if (!outcome.passed && no_replan_can_change(outcome.failure_reason))
      return failure_summary(outcome) + "; no plan can change this, so the run ends here";
  return std::nullopt;
}

// One run of the loop. The state a run accumulates (its diagnoses, the configurations
// that failed, the changes narrowing showed break the design) lives here, so every
// iteration's prompt is built from the whole history (REQ-PLAN-14, REQ-PLAN-15).
class RunLoop {
 public:
  RunLoop(const LoopInputs& in, Planner& planner, TaskRunner& runner, LoopObserver& observer)
      : in_(in), planner_(planner), runner_(runner), observer_(observer),
        budget_(in.spec.budget, in.now()) {}

  LoopResult run() {
    LoopResult result = iterate();
    result.iterations = budget_.iterations();
    if (result.state == RunState::passed && !diagnoses_.empty())
      observer_.failures_recovered();  // REQ-FAIL-9
    // A run that ended on a cause it names has nothing left to assess (REQ-FAIL-10 asks
    // for a post-mortem only of runs that may).
    if (post_mortem_due(result.state, result.iterations) && planner_.can_triage() &&
        !cause_known_ && !in_.cancelled())
      post_mortem(result);
    result.cost_usd = budget_.cost();
    return result;
  }

 private:
  LoopResult finish(RunState state, std::string reason) {
    LoopResult r;
    r.state = state;
    r.reason = std::move(reason);
    return r;
  }

  // What the levels of one iteration left: every task that ended, in plan order.
  struct LevelsRun {
    std::vector<TaskJob> jobs;
    std::vector<TaskOutcome> outcomes;
    std::optional<std::size_t> first_failure;
    std::optional<RtlEdits> last_built_edits;
    std::string last_built_diff;
  };
  class Calls;

  LoopResult iterate();
  LevelsRun run_levels(int iteration, const Plan& plan);
  DispatchSettings dispatch_settings() const;
  std::optional<Plan> make_plan(std::string& reply_text, std::vector<std::string>& reasons);
  void triage(int iteration, const TaskJob& job, const TaskOutcome& outcome);
  std::optional<Diagnosis> narrow(int iteration, const TaskJob& job, FailedTaskReport& report);
  void post_mortem(const LoopResult& result);

  TaskJob job_for(const PlannedTask& task, const Plan& plan) {
    // REQ-EXEC-15, 19: the carried edits, then those of every rtl task it depends on.
    RtlEdits edits = in_.generic_files;  // REQ-EXEC-20: before every build
    edits.append(carried_edits_);
    for (const auto& dep : dependency_order(plan, task))
      if (auto it = edits_by_task_.find(dep); it != edits_by_task_.end()) edits.append(it->second);
    return TaskJob{.task = task,
                   .defines = inherited_defines(plan, task),
                   .caches = effective_caches(task, in_.default_caches),
                   .build_limit = budget_.cap(kBuildTimeLimit, in_.now()),
                   .run_limit = budget_.cap(kRunTimeLimit, in_.now()),
                   .prompt = task_prompts_on() && builds_without_agent(task.kind),
                   .simulate = !in_.spec.options.build_only,
                   .edits = std::move(edits)};
  }

  // Every task `task` depends on, directly or not, each after its own dependencies.
  static std::vector<std::string> dependency_order(const Plan& plan, const PlannedTask& task) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    std::function<void(const PlannedTask&)> visit = [&](const PlannedTask& t) {
      for (const auto& dep : t.deps) {
        if (!seen.insert(dep).second) continue;
        for (const auto& candidate : plan.tasks)
          if (candidate.id == dep) visit(candidate);
        out.push_back(dep);
      }
    };
    visit(task);
    return out;
  }

  // REQ-PLAN-15: the wrapper the next plan starts from is the skeleton MACE wrote, or
  // none has been carried yet.
  bool generic_wrapper_is_skeleton() const {
    if (in_.generic_wrapper_path.empty()) return false;
    const std::string* skeleton = nullptr;
    const std::string* carried = nullptr;
    for (const auto& f : in_.generic_files.files)
      if (f.path == in_.generic_wrapper_path) skeleton = &f.content;
    for (const auto& f : carried_edits_.files)
      if (f.path == in_.generic_wrapper_path) carried = &f.content;
    return !carried || (skeleton && *carried == *skeleton);
  }

  // The fast path turns task prompts off (REQ-EXEC-18): they are on only when the spec
  // asks for them and turns the fast path off.
  bool task_prompts_on() const {
    return in_.spec.options.task_prompts && !in_.spec.options.fast_path;
  }

  const LoopInputs& in_;
  Planner& planner_;
  TaskRunner& runner_;
  LoopObserver& observer_;
  BudgetTracker budget_;
  std::set<std::string> failed_signatures_;
  BreakingChanges breaking_;
  std::vector<PriorDiagnosis> diagnoses_;
  std::string failure_digest_;
  std::optional<TaskOutcome> last_failure_;
  RtlEdits carried_edits_;                       // REQ-EXEC-19
  std::string carried_diff_;
  std::map<std::string, RtlEdits> edits_by_task_;  // this iteration's tasks' applied edits
  bool cause_known_ = false;  // ended on a failure no plan can change
};

// What the dispatcher asks of the loop and tells it, for the plan's own tasks or for one
// failed task's narrowing rebuilds.
class RunLoop::Calls final : public DispatchCalls {
 public:
  Calls(RunLoop& loop, int iteration, bool narrowing)
      : loop_(loop), iteration_(iteration), narrowing_(narrowing) {}

  bool cancelled() override { return loop_.in_.cancelled(); }
  bool prepare(TaskJob& job) override {
    // Capped by what is left of the budget when it starts (REQ-BUD-11).
    job.build_limit = loop_.budget_.cap(kBuildTimeLimit, loop_.in_.now());
    job.run_limit = loop_.budget_.cap(kRunTimeLimit, loop_.in_.now());
    // "While the run's time allows" (REQ-FAIL-12): a rebuild that cannot start is not tried.
    return !narrowing_ || job.build_limit.count() > 0;
  }
  void waiting(const TaskJob& job, const std::string& why) override {
    if (!narrowing_) loop_.observer_.task_waiting(iteration_, job, why);
  }
  void started(const TaskJob& job) override {
    if (!narrowing_) loop_.observer_.task_started(iteration_, job);
  }
  void finished(const TaskJob& job, const TaskOutcome& outcome) override {
    loop_.budget_.add_cost(outcome.llm_cost_usd);  // REQ-BUD-5
    // Narrowing's rebuilds are told in their order once all have ended (narrow()).
    if (!narrowing_) loop_.observer_.task_finished(iteration_, job, outcome);
  }
  void lost(const TaskJob& job, const TaskOutcome& outcome, const std::string& next) override {
    loop_.budget_.add_cost(outcome.llm_cost_usd);
    loop_.observer_.task_lost(iteration_, job, outcome, next);
  }

 private:
  RunLoop& loop_;
  const int iteration_;
  const bool narrowing_;
};

DispatchSettings RunLoop::dispatch_settings() const {
  DispatchSettings settings;
  settings.mode = in_.spec.dispatch.value_or(in_.dispatch);
  settings.max_checkouts = in_.spec.checkouts ? static_cast<std::size_t>(*in_.spec.checkouts) : 0;
  settings.infrastructure_retries = in_.infrastructure_retries;
  settings.models_shared = in_.models_shared;
  return settings;
}

// Executes the plan level by level (REQ-EXEC-1, 2): each level's tasks on the run's
// checkouts as the dispatcher places them, no level after one with a failed task (REQ-VER-9).
RunLoop::LevelsRun RunLoop::run_levels(int iteration, const Plan& plan) {
  LevelsRun run;
  edits_by_task_.clear();
  const DispatchSettings settings = dispatch_settings();
  std::vector<TaskLevel> levels = topological_levels(plan.tasks);
  for (std::size_t level = 0; level < levels.size() && !run.first_failure && !in_.cancelled(); ++level) {
    std::vector<std::string> ids;
    std::vector<TaskJob> jobs;
    std::vector<ExpectedTime> expected;
    for (const auto& task : levels[level]) {
      ids.push_back(task.id);
      jobs.push_back(job_for(task, plan));
      if (in_.expected) expected.push_back(in_.expected(jobs.back()));
    }
    observer_.level_started(iteration, level, ids);
    if (settings.mode == Dispatch::queue && jobs.size() > 1 && !expected.empty())
      observer_.note("level " + std::to_string(level) + ", longest expected first: " +
                     describe_order(jobs, expected));
    Calls calls(*this, iteration, false);
    DispatchResult done = dispatch(runner_, iteration, jobs, expected, settings, calls);
    for (const auto& finished : done.finished) {
      if (!finished) continue;
      const TaskJob& job = finished->job;
      const TaskOutcome& outcome = finished->outcome;
      if (!outcome.applied_edits.empty()) edits_by_task_[job.task.id] = outcome.applied_edits;
      if (outcome.built) {
        run.last_built_edits = outcome.applied_edits;
        run.last_built_diff = outcome.edits_diff;
      }
      if (!outcome.passed) {
        failed_signatures_.insert(task_build_signature(plan, job.task, in_.default_caches));
        if (!run.first_failure) run.first_failure = run.outcomes.size();
      }
      run.jobs.push_back(job);
      run.outcomes.push_back(outcome);
    }
    if (done.end == DispatchResult::End::no_checkout_left ||
        done.end == DispatchResult::End::infrastructure)
      throw InfrastructureGone{done.why};
    // The next level's width is what the run keeps (it asks for more as it needs them).
    if (level + 1 < levels.size()) keep_checkouts(runner_, levels[level + 1].size());
  }
  return run;
}

std::optional<Plan> RunLoop::make_plan(std::string& reply_text, std::vector<std::string>& reasons) {
  std::optional<Plan> plan;
  for (int ask = 0; ask < kPlanAsks; ++ask) {
    PromptInputs prompt{.spec = in_.spec,
                        .diagnoses = diagnoses_,
                        .failure_digest = failure_digest_,
                        .edited_files = carried_edits_.paths(),
                        .edits_diff = carried_diff_,
                        .rejection_reasons = reasons,
                        .rtl_edits = in_.spec.options.rtl_edits,
                        .default_caches = caches_text(in_.default_caches)};
    PlannerReply reply = planner_.plan(planner_prompt(prompt));
    budget_.add_cost(reply.cost_usd);  // REQ-BUD-5
    if (!reply.ok) throw PlannerSilent{reply.error};
    Plan parsed = parse_plan(reply.text, {.network = planner_.chooses_network()});
    if (!parsed.usable()) {
      reasons = parsed.errors;
      continue;
    }
    PlanContext context;
    context.core = std::string(to_string(in_.spec.core));
    context.rtl_edits = in_.spec.options.rtl_edits;
    context.default_caches = in_.default_caches;
    context.failed_signatures = failed_signatures_;
    context.find_define = in_.find_define;
    context.module_exists = in_.module_exists;
    context.objective_defines = in_.objective_defines;
    context.generic_wrapper_is_skeleton = generic_wrapper_is_skeleton();
    if (!breaking_.empty()) {
      context.narrowing_breaks = [this](const CacheGeometry& caches,
                                        const std::vector<std::string>& defines) {
        return breaking_.broken_by(caches, defines, in_.default_caches);
      };
    }
    PlanCheckResult checked = check_plan(parsed, context);
    for (const auto& note : checked.notes) observer_.note(note);
    plan = checked.plan;
    reply_text = reply.text;
    // A plan still rejected after the re-asks runs as it stands (REQ-PLAN-16).
    if (checked.rejections.empty()) break;
    reasons = checked.rejections;
  }
  return plan;
}

LoopResult RunLoop::iterate() {
  // REQ-BUD-7, REQ-BUD-8: before any LLM call or checkout access.
  if (auto problems = in_.checksum_problems(); !problems.empty())
    return finish(RunState::checksum_mismatch, joined(problems, "; "));
  // REQ-EXEC-20: also before any LLM call.
  if (in_.unsupported_core)
    if (auto why = in_.unsupported_core()) return finish(RunState::unsupported_core, *why);

  for (int iteration = 1;; ++iteration) {
    if (in_.cancelled()) return finish(RunState::cancelled, "cancelled");
    // REQ-BUD-3, REQ-BUD-4
    if (auto why = budget_.exceeded_before_iteration(in_.now()))
      return finish(RunState::budget_exceeded, *why);
    observer_.iteration_started(iteration);
    const Clock::time_point iteration_start = in_.now();
    const double cost_before = budget_.cost();

    std::optional<Plan> plan;
    std::string reply_text;
    std::vector<std::string> reasons;
    try {
      plan = make_plan(reply_text, reasons);
    } catch (const PlannerSilent& silent) {  // REQ-BUD-14
      // A cancel cuts a rate-limit wait short; the run was stopped, not failed.
      if (in_.cancelled()) return finish(RunState::cancelled, "cancelled");
      return finish(RunState::error, "the planner gave no reply: " + silent.error);
    }
    if (!plan) {  // REQ-PLAN-13
      return finish(RunState::planning_failed,
                    "no usable plan after " + std::to_string(kPlanAsks) +
                        " replies: " + joined(reasons, "; "));
    }
    if (fast_path_applies(*plan)) *plan = fast_path(*plan);  // REQ-PLAN-17
    observer_.plan_made(iteration, *plan, reply_text);

    LevelsRun levels;
    try {
      levels = run_levels(iteration, *plan);
    } catch (const InfrastructureGone& gone) {
      return finish(RunState::error, "the infrastructure failed, not the design: " + gone.why);
    }
    const std::vector<TaskOutcome>& outcomes = levels.outcomes;
    const std::optional<std::size_t>& first_failure = levels.first_failure;

    bool all_passed = !outcomes.empty() && !first_failure;
    bool one_design_passed = false;
    for (const auto& outcome : outcomes) one_design_passed |= design_passed_every_workload(outcome);
    const bool passed = all_passed || one_design_passed;
    const Clock::time_point now = in_.now();
    budget_.iteration_finished(passed, now);
    // REQ-VER-14: the iteration's results are reported before failure analysis.
    observer_.iteration_finished(iteration, passed, budget_.cost() - cost_before,
                                 seconds_between(iteration_start, now));
    if (in_.cancelled()) return finish(RunState::cancelled, "cancelled");
    if (outcomes.empty())  // REQ-VER-11
      return finish(RunState::failed,
                    "iteration " + std::to_string(iteration) + " produced no task results");
    if (passed) return finish(RunState::passed, "");  // REQ-VER-10

    // A workload that cannot run at all fails every later iteration alike: the run ends
    // now, with the cause in front, not after a budget's worth of repeats.
    if (auto cause = unreplannable_cause(outcomes)) {
      cause_known_ = true;
      return finish(RunState::failed, *cause);
    }

    // REQ-EXEC-19: the next iteration starts from the edits of the last task that built.
    const RtlEdits edits_before = carried_edits_;
    if (levels.last_built_edits) {
      carried_edits_ = *levels.last_built_edits;
      carried_diff_ = levels.last_built_diff;
    }
    const TaskOutcome& failure = outcomes[*first_failure];
    // REQ-FAIL-13: the next prompt carries what the failed task left behind.
    failure_digest_ = "task " + failure.task_id + " failed (" +
                      std::string(to_string(failure.failure_reason)) + ")\n" +
                      digest_lines(failure.evidence, kDigestBytes);
    last_failure_ = failure;
    try {
      if (in_.triage_failures) triage(iteration, levels.jobs[*first_failure], failure);
    } catch (const InfrastructureGone& gone) {
      return finish(RunState::error, "the infrastructure failed, not the design: " + gone.why);
    }
    keep_checkouts(runner_, 1);  // planning needs none; the next plan asks for what it needs
    if (in_.cancelled()) return finish(RunState::cancelled, "cancelled");
    // A planner that plans alike whatever it is told would run this very iteration again:
    // from the same edits, or from the very edits the failed build was built with.
    const bool same_start = carried_edits_ == edits_before || (failure.built && carried_edits_ == failure.applied_edits);
    if (!planner_.replans() && same_start)
      return finish(RunState::failed, "iteration " + std::to_string(iteration) + " failed and " +
                                          planner_.who() + " would plan it again unchanged: " +
                                          failure_summary(failure));
  }
}

FailedTaskReport report_of(const RunSpec& spec, const TaskJob& job, const TaskOutcome& outcome) {
  FailedTaskReport r;
  r.task_id = job.task.id;
  r.kind = job.task.kind;
  r.instruction = job.task.instruction;
  for (const auto& [name, g] : job.caches)
    r.build_flags.push_back(name + " " + describe(g));
  for (const auto& define : job.defines) r.build_flags.push_back("define " + define);
  for (const auto& flag : extra_build_flags(spec)) r.build_flags.push_back(flag);
  r.build_outcome = outcome.build_outcome();
  // The verdict that failed the task: the last one, unless every workload ran past it.
  if (!outcome.verdicts.empty()) r.verdict = outcome.verdicts.back().verdict;
  for (const auto& v : outcome.verdicts)
    if (v.verdict != Verdict::pass) {
      r.verdict = v.verdict;
      break;
    }
  r.failure_reason = outcome.failure_reason;
  if (!outcome.built) r.error_lines = outcome.evidence;
  r.build_output_tail = outcome.build_output_tail;
  r.sim_log_tail = outcome.sim_log_tail;
  r.status_log = outcome.status_log;
  if (r.sim_log_tail.empty() && outcome.built && !outcome.evidence.empty())
    r.sim_log_tail = joined(outcome.evidence, "\n");
  r.rtl_diff = outcome.edits_diff;
  // REQ-EXEC-16: triage hears that the agent changed nothing, in its own words.
  if (outcome.agent_recorded_no_edit)
    r.agent_without_edit = outcome.agent_reply.empty() ? "(the agent said nothing)" : outcome.agent_reply;
  if (outcome.waveform.captured()) {
    const FailureWaveform& w = outcome.waveform;
    r.waveform = FailedTaskReport::Waveform{w.workload, w.from_time, w.last_time, w.changed_last};
  }
  return r;
}

// Failures narrowing cannot explain: nothing was built or run because of the budget, a
// cancel or MACE itself, not because of the configuration.
bool configuration_could_be_the_cause(const TaskOutcome& outcome) {
  return !says_nothing_about_the_design(outcome.failure_reason);
}

void RunLoop::triage(int iteration, const TaskJob& job, const TaskOutcome& outcome) {
  FailedTaskReport report = report_of(in_.spec, job, outcome);
  std::optional<Diagnosis> diagnosis = rule_diagnosis(report);  // REQ-FAIL-3
  if (!diagnosis && configuration_could_be_the_cause(outcome)) diagnosis = narrow(iteration, job, report);
  if (!diagnosis && in_.cancelled()) return;
  if (!diagnosis && planner_.can_triage()) {  // REQ-FAIL-1
    PlannerReply reply = planner_.triage(
        TriagePhase::diagnosis,
        [&](bool tools_offered) { return diagnosis_prompt(in_.spec, report, tools_offered); },
        &outcome);
    budget_.add_cost(reply.cost_usd);  // REQ-BUD-5
    if (reply.ok) {
      diagnosis = parse_diagnosis(reply.text);
      if (!diagnosis) observer_.note("the diagnosis reply has no DIAGNOSIS line");
    } else {
      observer_.note("the diagnosis call failed: " + reply.error);
    }
  }
  if (!diagnosis) diagnosis = fallback_diagnosis();  // REQ-FAIL-4
  if (diagnosis->evidence.empty()) diagnosis->evidence = evidence_digest(report, kEvidenceBytes);
  observer_.diagnosed(iteration, job.task.id, *diagnosis);  // REQ-FAIL-8
  diagnoses_.push_back({iteration, job.task.id, diagnosis->label, diagnosis->fix,
                        diagnosis->evidence});
}

std::optional<Diagnosis> RunLoop::narrow(int iteration, const TaskJob& job, FailedTaskReport& report) {
  if (!builds_without_agent(job.task.kind)) return std::nullopt;
  std::vector<NarrowingVariant> variants =
      narrowing_variants(job.caches, job.defines, in_.default_caches);
  std::vector<TaskJob> jobs;
  for (const auto& variant : variants) {
    TaskJob rebuild = job;
    rebuild.caches = variant.caches;
    rebuild.defines = variant.defines;
    rebuild.narrowing = variant.description();
    rebuild.prompt = false;
    jobs.push_back(std::move(rebuild));
  }
  // In order, in batches of the checkouts the run holds, until a batch has one that
  // passes: the first that passes is the smallest change explained. Batches, so the
  // rebuilds tried do not depend on which ended first, and a replay tries the same.
  DispatchSettings settings = dispatch_settings();
  settings.mode = Dispatch::batches;
  settings.stop_after_a_pass = true;
  Calls calls(*this, iteration, true);
  DispatchResult done = dispatch(runner_, iteration, jobs, {}, settings, calls);
  if (done.end == DispatchResult::End::no_checkout_left ||
      done.end == DispatchResult::End::infrastructure)
    throw InfrastructureGone{done.why};
  std::vector<std::pair<const NarrowingVariant*, TaskOutcome>> tried;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (!done.finished[i]) continue;
    observer_.narrowing_finished(iteration, done.finished[i]->job, done.finished[i]->outcome);
    tried.emplace_back(&variants[i], done.finished[i]->outcome);
  }
  for (const auto& [variant, outcome] : tried) {
    if (!outcome.passed) continue;
    breaking_.add(variant->undone);  // REQ-PLAN-15
    return narrowing_diagnosis(*variant, evidence_digest(report, kEvidenceBytes));
  }
  if (done.end == DispatchResult::End::out_of_time || done.end == DispatchResult::End::cancelled)
    report.narrowing.push_back("stopped: the run's time is up");
  for (const auto& [variant, outcome] : tried)
    report.narrowing.push_back(variant->description() + ": failed (" +
                               std::string(to_string(outcome.failure_reason)) + ")");
  return std::nullopt;
}

void RunLoop::post_mortem(const LoopResult& result) {
  PostMortemInputs inputs{.spec = in_.spec,
                          .final_state = result.state,
                          .reason = result.reason,
                          .iterations = result.iterations,
                          .diagnoses = diagnoses_,
                          .last_failure_digest = failure_digest_};
  PlannerReply reply = planner_.triage(
      TriagePhase::post_mortem,
      [&](bool tools_offered) {
        inputs.tools_offered = tools_offered;
        return post_mortem_prompt(inputs);
      },
      last_failure_ ? &*last_failure_ : nullptr);
  // Counts toward the run's compute cost, after the last budget check: it never ends a run.
  budget_.add_cost(reply.cost_usd);
  if (!reply.ok) {
    observer_.note("the post-mortem call failed: " + reply.error);
    return;
  }
  if (auto pm = parse_post_mortem(reply.text)) {
    observer_.post_mortem_made(*pm);
  } else {  // REQ-FAIL-11
    observer_.note("the post-mortem reply has no assessment; discarded");
  }
}

}  // namespace

std::vector<std::string> RtlEdits::paths() const {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.path);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

LoopResult run_loop(const LoopInputs& in, Planner& planner, TaskRunner& runner,
                    LoopObserver& observer) {
  return RunLoop(in, planner, runner, observer).run();
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

#include "service/eval_service.h"

#include <algorithm>
#include <set>

#include "core/cache_area.h"
#include "core/run_id.h"
#include "eval/codesign_designs.h"
#include "eval/job_instructions.h"
#include "eval/suite.h"
#include "service/service_error.h"
#include "store/sqlite.h"
#include "store/task_configuration.h"

namespace mace::service {
namespace {

// The verdicts of the tasks of the run's last iteration that simulated anything.
std::vector<eval::TaskVerdicts> last_iteration_verdicts(const std::vector<store::TaskRecord>& tasks) {
  int64_t last = 0;
  for (const auto& t : tasks)
    if (!t.results.empty()) last = std::max(last, t.iteration);
  std::vector<eval::TaskVerdicts> out;
  for (const auto& t : tasks) {
    if (t.iteration != last || t.results.empty()) continue;
    eval::TaskVerdicts v{t.iteration, t.task_id, {}};
    for (const auto& r : t.results) {
      v.verdicts.emplace_back(r.workload, std::string(to_string(r.verdict)));
      v.cycles.push_back(r.cycles);
    }
    out.push_back(std::move(v));
  }
  return out;
}


// The run a job makes: its task's spec, with what the method changes.
RunSpec job_spec(const eval::SuiteTask& task, eval::Method method, const eval::BatchRequest& request) {
  RunSpec spec = task.spec;
  if (method == eval::Method::codesign || method == eval::Method::fault_check) {
    // REQ-EVAL-8, 11: designs MACE chose, each built and checked once, no LLM.
    spec.backend = std::string(kDirectBackend);
    spec.model.reset();
    spec.budget.max_iterations = 1;
    return spec;
  }
  if (!request.backend.empty()) spec.backend = request.backend;
  if (!request.model.empty()) spec.model = request.model;
  // One proposal (or one set of co-design designs) checked once, or once plus a fixed
  // number of retries, each seeing the last failure in the loop's next planning prompt.
  if (method == eval::Method::baseline || method == eval::Method::codesign_llm)
    spec.budget.max_iterations = 1;
  if (method == eval::Method::baseline_retry) spec.budget.max_iterations = 1 + request.baseline_retries;
  return spec;
}

eval::JobInstructions job_instructions(const eval::Suite& suite, const eval::SuiteTask& task,
                                       const store::EvalJobRecord& job,
                                       const eval::BatchRequest& request, eval::Method method) {
  eval::JobInstructions in;
  in.method = method;
  in.keep_models = request.keep_models;
  if (method == eval::Method::baseline_retry) in.baseline_retries = request.baseline_retries;
  if (method == eval::Method::codesign) {
    auto designs = eval::codesign_designs(task.spec, task.expert, task.area_budget.value_or(0));
    if (designs.empty())
      throw std::runtime_error("no design of the search fits task " + task.id + "'s area budget");
    in.plan_reply = eval::codesign_plan_reply(task.spec, designs);
  }
  if (method == eval::Method::codesign_llm) in.area_budget = task.area_budget.value_or(0);
  if (method == eval::Method::seeded_fault || method == eval::Method::fault_check) {
    const eval::Fault* fault = suite.fault(job.fault);
    if (!fault) throw std::runtime_error("the suite has no fault named " + job.fault);
    in.fault = fault->name;
    in.fault_kind = fault->kind;
    if (method == eval::Method::seeded_fault) {
      in.fault_config = fault->config;
    } else {
      in.fault_edits = fault->edits;
      in.plan_reply = eval::config_plan_reply(task.spec, eval::with_fault(task.expert, *fault));
    }
  }
  return in;
}

// Who plans a job's run before it has started: a `mace` job with the direct backend is
// the direct planner's (core/run_outcome.h); the fixed plans are their methods'.
std::string planned_by(const std::optional<eval::BatchRequest>& request, const eval::SuiteParseResult& suite,
                       const store::EvalJobRecord& job) {
  if (job.method == EvalMethod::fault_check || job.method == EvalMethod::codesign)
    return std::string(to_string(job.method));
  if (job.method != EvalMethod::mace) return "llm";
  std::string backend = request ? request->backend : "";
  if (backend.empty()) {
    const eval::SuiteTask* task = suite.suite ? suite.suite->task(job.task_id) : nullptr;
    if (task) backend = task->spec.backend.value_or("");
  }
  return is_direct_backend(backend) ? std::string(kDirectBackend) : "llm";
}

}  // namespace

EvalService::EvalService(store::Store& store, RunService& runs, Clock clock)
    : store_(store), runs_(runs), clock_(std::move(clock)) {}

EvalSubmitOutcome EvalService::submit(std::string_view suite_json, const eval::BatchRequest& request,
                                      const Caller& caller) {
  eval::SuiteParseResult parsed = eval::parse_suite_json(suite_json);
  FieldErrors errors = std::move(parsed.errors);
  for (auto& e : errors) e.path = e.path.empty() ? "suite" : "suite." + e.path;
  for (auto& e : eval::check_request(request)) errors.push_back(std::move(e));
  if (!errors.empty()) return {"", std::move(errors)};
  const eval::Suite& suite = *parsed.suite;
  // A workload no job could run would fail every job of its task alike. A run a task's
  // spec names (replay.from) is read by its jobs, so it must be the submitter's to read;
  // checked here, where the caller is known (a job's run is submitted later, by maced).
  for (size_t t = 0; t < suite.tasks.size(); ++t) {
    for (auto& e : runs_.check_named_runs(suite.tasks[t].spec, caller))
      errors.push_back({"suite.tasks[" + std::to_string(t) + "].spec." + e.path, e.message});
    for (auto& e : runs_.check_workloads(suite.tasks[t].spec))
      errors.push_back({"suite.tasks[" + std::to_string(t) + "].spec." + e.path, e.message});
  }
  for (size_t i = 0; i < request.methods.size(); ++i) {
    if (!eval::calls_llm(request.methods[i])) continue;
    // An LLM method needs an LLM: the request's backend, else every task's own.
    for (size_t t = 0; t < suite.tasks.size(); ++t) {
      std::string backend = request.backend.empty()
                                ? suite.tasks[t].spec.backend.value_or("")
                                : request.backend;
      if (is_direct_backend(backend))
        errors.push_back({"methods[" + std::to_string(i) + "]",
                          std::string(to_string(request.methods[i])) +
                              " calls an LLM, but task " + suite.tasks[t].id +
                              " would run with the direct backend; give --backend"});
    }
  }
  if (std::find(request.methods.begin(), request.methods.end(), eval::Method::codesign) !=
      request.methods.end())
    for (size_t t = 0; t < suite.tasks.size(); ++t)
      if (suite.tasks[t].area_budget &&
          eval::codesign_designs(suite.tasks[t].spec, suite.tasks[t].expert,
                                 *suite.tasks[t].area_budget).empty())
        errors.push_back({"suite.tasks[" + std::to_string(t) + "].area_budget",
                          "no design of the co-design search fits it (the smallest caches "
                          "need more; see docs/evaluation.md)"});
  std::vector<eval::Job> jobs = eval::plan_jobs(suite, request);
  if (jobs.empty())
    errors.push_back({"methods", "no method applies to any task of the suite (a fault check "
                                 "needs a task that names a fault breaking its core and mesh)"});
  if (jobs.size() > eval::kMaxBatchJobs)
    errors.push_back({"repeats", "the batch would have " + std::to_string(jobs.size()) +
                                     " jobs; at most " + std::to_string(eval::kMaxBatchJobs)});
  if (!errors.empty()) return {"", std::move(errors)};
  if (FieldErrors full = queue_full(caller.uid, static_cast<int64_t>(jobs.size())); !full.empty())
    return {"", std::move(full)};

  const int64_t now = clock_();
  store::EvalBatchRecord batch;
  batch.id = "eval-" + ids_.next(now);
  batch.suite_name = suite.name;
  batch.suite_json = std::string(suite_json);
  batch.request_json = eval::to_json(request);
  batch.submitted_by_uid = caller.uid;
  batch.submitted_at_ms = now;
  std::vector<store::EvalJobRecord> rows;
  for (const auto& job : jobs) {
    store::EvalJobRecord row;
    row.position = job.position;
    row.method = job.method;
    row.task_id = job.task_id;
    row.fault = job.fault;
    row.repeat = job.repeat;
    row.seed = static_cast<int64_t>(job.seed);
    rows.push_back(std::move(row));
  }
  {
    // The batch, its jobs and its first job's run are one write: a submit answered with an
    // error (a full disk refusing the run) must not leave a batch that starts later.
    RunService::SchedulerHold hold(runs_);
    store::Transaction txn(store_.database());
    store_.insert_eval_batch(batch, rows);
    if (auto stored = store_.find_eval_batch(batch.id)) advance_batch(*stored);
    txn.commit();
    hold.release();
  }
  return {batch.id, {}};
}

FieldErrors EvalService::queue_full(uint32_t uid, int64_t new_jobs) const {
  const int64_t limit = runs_.queue_limits().max_eval_jobs_per_user;
  const int64_t pending = store_.count_pending_eval_jobs(uid);
  if (pending + new_jobs <= limit) return {};
  return {{"queue.max_eval_jobs_per_user",
           "this batch has " + std::to_string(new_jobs) + " jobs and uid " + std::to_string(uid) +
               "'s unfinished batches " + std::to_string(pending) +
               " pending ones; maced holds at most " + std::to_string(limit) +
               " per user (queue.max_eval_jobs_per_user in its configuration); nothing was "
               "queued: wait for a batch to finish, cancel one, or ask for fewer repeats"}};
}

void EvalService::advance() {
  // A run this advance queues may end at once (refused), which calls advance again.
  if (advancing_) return;
  advancing_ = true;
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{advancing_};
  for (const auto& batch : store_.eval_batches({EvalBatchState::running})) advance_batch(batch);
}

void EvalService::advance_batch(const store::EvalBatchRecord& batch) {
  for (const auto& job : store_.eval_jobs(batch.id)) {
    if (job.state != EvalJobState::pending) continue;
    if (!job.run_id.empty()) {
      auto run = store_.find_run(job.run_id);
      if (run && !is_final(run->state)) return;  // one job at a time: it is still going
      if (run && run->state != RunState::error) {
        store_.set_eval_job_state(batch.id, job.position, EvalJobState::done);  // REQ-EVAL-3
        continue;
      }
      if (job.attempts >= kMaxJobAttempts) {
        store_.set_eval_job_state(batch.id, job.position, EvalJobState::gave_up);
        continue;
      }
    }
    if (start_job(batch, job)) return;
  }
  store_.set_eval_batch_state(batch.id, EvalBatchState::done, clock_());
}

bool EvalService::start_job(const store::EvalBatchRecord& batch, const store::EvalJobRecord& job) {
  auto suite = eval::parse_suite_json(batch.suite_json);
  auto request = eval::request_from_json(batch.request_json);
  const eval::SuiteTask* task = suite.suite ? suite.suite->task(job.task_id) : nullptr;
  if (!task || !request) {
    store_.set_eval_job_state(batch.id, job.position, EvalJobState::gave_up);
    return false;
  }
  eval::JobInstructions instructions;
  try {
    instructions = job_instructions(*suite.suite, *task, job, *request, job.method);
  } catch (const std::exception&) {
    store_.set_eval_job_state(batch.id, job.position, EvalJobState::gave_up);
    return false;
  }
  store::EvalRunRecord record{job, "", eval::to_json(instructions), ""};
  SubmitOutcome outcome = runs_.submit_tied(
      job_spec(*task, job.method, *request), batch.submitted_by_uid, [&](const std::string& run_id) {
        record.run_id = run_id;
        store_.insert_eval_run(record);
      });
  if (outcome.run_id.empty()) {
    // The spec was refused now (a backend that cannot be used any more, say): the job
    // cannot run, and trying again would refuse it again.
    store_.set_eval_job_state(batch.id, job.position, EvalJobState::gave_up);
    return false;
  }
  return true;
}

eval::BatchView EvalService::view(const std::string& batch_id, const Caller& caller) const {
  auto batch = store_.find_eval_batch(batch_id);
  if (!batch) throw RequestError(RequestErrorKind::not_found, {"batchId", "no evaluation batch named '" + id_for_message(batch_id) + "'"});
  if (!caller.admin && caller.uid != batch->submitted_by_uid &&
      runs_.others_see() != OthersSee::everything)
    throw RequestError(RequestErrorKind::not_permitted, {"batchId", "batch " + batch_id + " is uid " +
                                       std::to_string(batch->submitted_by_uid) +
                                       "'s; only its submitter and maced's administrators may read it"});
  eval::BatchView view;
  view.id = batch->id;
  view.suite = batch->suite_name;
  view.state = batch->state;
  view.submitted_at_ms = batch->submitted_at_ms;
  view.finished_at_ms = batch->finished_at_ms;
  view.request_json = batch->request_json;
  const auto request = eval::request_from_json(batch->request_json);
  const auto suite = eval::parse_suite_json(batch->suite_json);
  for (const auto& job : store_.eval_jobs(batch_id)) {
    eval::JobOutcome out;
    static_cast<EvalJobKey&>(out) = job;
    out.job_state = job.state;
    out.attempts = job.attempts;
    out.run_id = job.run_id;
    out.planner = planned_by(request, suite, job);
    if (!job.run_id.empty()) {
      if (auto run = store_.find_run(job.run_id)) {
        out.run_state = std::string(to_string(run->state));
        if (run->planner) out.planner = std::string(to_string(*run->planner));
        out.outcome = std::string(to_string(run->outcome));
        out.iterations = run->iterations;
        out.cost_usd = run->cost_usd;
        if (run->started_at_ms > 0 && run->finished_at_ms >= run->started_at_ms)
          out.wall_s = static_cast<double>(run->finished_at_ms - run->started_at_ms) / 1000.0;
        // REQ-EVAL-7: a build-only run's accepted designs, simulated after it passed.
        std::set<std::string> failed_simulation;
        for (const auto& record : store_.eval_resimulations(job.run_id)) {
          eval::ResimulatedDesign design{record.task_id, record.build_id, {}};
          for (const auto& r : record.results) {
            design.verdicts.emplace_back(r.workload, std::string(to_string(r.verdict)));
            design.cycles.push_back(r.cycles);
          }
          if (!design.passed()) failed_simulation.insert(record.build_id);
          out.resimulated.push_back(std::move(design));
        }
        std::set<std::string> builds, feasible;
        for (const auto& t : store_.tasks(job.run_id)) {
          if (t.build_id.empty()) continue;
          builds.insert(t.build_id);
          if (store::has_configuration(t)) {
            const DesignConfiguration config = store::task_configuration(t, run->default_caches);
            eval::JobDesign design{t.task_id, t.iteration, t.build_id, t.passed.value_or(false),
                                   configuration_text(config), is_default_configuration(config),
                                   design_cache_area(config), {}};
            for (const auto& r : t.results)
              design.results.push_back({r.workload, std::string(to_string(r.verdict)), r.cycles});
            out.design_results.push_back(std::move(design));
          }
          // REQ-EVAL-8: every design of a search fits the area budget by construction, so
          // it is feasible when every gate workload passed on it (for a build-only check,
          // when simulated after the run).
          if (t.passed && *t.passed && !failed_simulation.count(t.build_id)) feasible.insert(t.build_id);
        }
        out.designs = static_cast<int64_t>(builds.size());
        out.feasible_designs = static_cast<int64_t>(feasible.size());
        out.verdicts = last_iteration_verdicts(store_.tasks(job.run_id));
        // A caught fault check's reason starts "caught by <what>: the <kind> fault ...".
        if (run->outcome == RunOutcome::caught && run->reason.rfind("caught by ", 0) == 0)
          out.caught_by = run->reason.substr(10, run->reason.find(": ") - 10);
      }
      if (auto eval_run = store_.find_eval_run(job.run_id)) out.env_json = eval_run->env_json;
    }
    view.jobs.push_back(std::move(out));
  }
  return view;
}

void EvalService::cancel(const std::string& batch_id, const Caller& caller) {
  auto batch = store_.find_eval_batch(batch_id);
  if (!batch) throw RequestError(RequestErrorKind::not_found, {"batchId", "no evaluation batch named '" + id_for_message(batch_id) + "'"});
  // Every permission first, so that a refusal changes nothing: reading a batch (others may,
  // when they see everything) is not cancelling it.
  if (!caller.admin && caller.uid != batch->submitted_by_uid)
    throw RequestError(RequestErrorKind::not_permitted, {"batchId", "batch " + batch_id + " was submitted by uid " +
                                       std::to_string(batch->submitted_by_uid) +
                                       "; only that user and maced's administrators may cancel it"});
  if (batch->state != EvalBatchState::running) return;
  std::vector<std::string> under_way;
  for (const auto& job : store_.eval_jobs(batch_id)) {
    if (job.state != EvalJobState::pending || job.run_id.empty()) continue;
    auto run = store_.find_run(job.run_id);
    if (!run || is_final(run->state)) continue;
    runs_.check_may_cancel(run->id, caller);
    under_way.push_back(run->id);
  }
  // The batch first: a cancelled run ends, and the batch must start no next job then.
  store_.set_eval_batch_state(batch_id, EvalBatchState::cancelled, clock_());
  for (const auto& run_id : under_way) runs_.cancel(run_id, caller);
}

}  // namespace mace::service

#include "run/recording_observer.h"

#include "core/environment_entries.h"

#include "core/joined.h"
#include "os/duration_text.h"
#include "run/workload_result.h"
#include "service/clock.h"

namespace mace::run {

RecordingObserver::RecordingObserver(RunRecorder& recorder, const RunSpec& spec)
    : recorder_(recorder), spec_(spec) {}

int RecordingObserver::current_iteration() const {
  std::lock_guard lock(mutex_);
  return iteration_;
}

std::vector<std::filesystem::path> RecordingObserver::passing_run_dirs() const {
  std::lock_guard lock(mutex_);
  return passing_run_dirs_;
}

std::vector<RecordingObserver::AcceptedDesign> RecordingObserver::accepted_designs() const {
  std::lock_guard lock(mutex_);
  return accepted_;
}

void RecordingObserver::iteration_started(int iteration) {
  {
    std::lock_guard lock(mutex_);
    iteration_ = iteration;
    started_ms_ = system_now_ms();
    accepted_.clear();
    started_ms_by_task_.clear();
  }
  recorder_.event(EventKind::iteration_started, iteration, "", std::nullopt,
                  "iteration " + std::to_string(iteration));
}

void RecordingObserver::plan_made(int iteration, const Plan& plan, const std::string& reply) {
  int64_t started_ms;
  {
    std::lock_guard lock(mutex_);
    started_ms = started_ms_;
  }
  recorder_.with_store([&](store::Store& s) {
    s.record_iteration_start(recorder_.run_id(), iteration, started_ms, reply);
  });
  std::vector<std::string> ids;
  for (const auto& t : plan.tasks) ids.push_back(t.id);
  recorder_.message(iteration, "", "plan: " + joined(ids, ", "));
}

void RecordingObserver::level_started(int iteration, std::size_t level,
                                      const std::vector<std::string>& task_ids) {
  recorder_.event(EventKind::level_started, iteration, "", std::nullopt,
                  "level " + std::to_string(level) + ": " + joined(task_ids, ", "));
}

store::TaskRecord RecordingObserver::task_record(int iteration, const loop::TaskJob& job) const {
  store::TaskRecord t;
  t.run_id = recorder_.run_id();
  t.iteration = iteration;
  t.task_id = job.task.id;
  t.kind = job.task.kind;
  t.instruction = job.task.instruction;
  t.deps = job.task.deps;
  t.core = std::string(to_string(spec_.core));
  t.mesh_x = spec_.mesh_x;
  t.mesh_y = spec_.mesh_y;
  for (const auto& [name, geometry] : job.caches)
    t.set_cache(name, geometry.size, geometry.associativity);
  t.rtl_defines = job.defines;
  t.network = job.task.network;
  t.extra_flags = extra_build_flags(spec_);
  std::lock_guard lock(mutex_);
  if (auto it = started_ms_by_task_.find(job.task.id); it != started_ms_by_task_.end())
    t.started_at_ms = it->second;
  return t;
}

store::TaskRecord RecordingObserver::task_record(int iteration, const loop::TaskJob& job,
                                                 const loop::TaskOutcome& outcome) const {
  store::TaskRecord t = task_record(iteration, job);
  t.checkout = outcome.checkout;
  t.rtl_edits = outcome.edits_diff;  // REQ-VER-13
  t.rtl_edits_hash = outcome.edits_hash;
  t.build_id = outcome.build_id;
  t.build_outcome = outcome.build_outcome();
  t.build_reused = outcome.reused;
  if (outcome.built) t.build_source = outcome.reused ? outcome.reused_from : "built";
  if (t.build_source.empty() && outcome.reused) t.build_source = "checkout";
  t.build_origin = outcome.build_origin;
  t.build_argv = outcome.build_argv;
  t.build_environment = environment_entries(outcome.build_environment);
  if (!outcome.build_id.empty()) {  // a build was tried: its figures, whatever came of it
    t.build_wall_s = outcome.build_figures.wall_s;
    t.build_cpu_s = outcome.build_figures.cpu_s;
    t.build_peak_rss_bytes = outcome.build_figures.peak_rss_bytes;
  }
  t.failure_reason = outcome.failure_reason;
  t.stage = outcome.passed ? TaskStage::passed : TaskStage::failed;
  t.passed = outcome.passed;
  t.finished_at_ms = system_now_ms();
  int64_t ordinal = 0;
  for (const auto& v : outcome.verdicts) t.results.push_back(workload_result(ordinal++, v));
  return t;
}

void RecordingObserver::task_waiting(int iteration, const loop::TaskJob& job,
                                     const std::string& why) {
  store::TaskRecord t = task_record(iteration, job);
  t.stage = TaskStage::waiting;
  t.waiting_for = why;
  recorder_.with_store([&](store::Store& s) { s.upsert_task(t); });
  recorder_.event(EventKind::task_stage, iteration, job.task.id, TaskStage::waiting, why);
}

void RecordingObserver::task_started(int iteration, const loop::TaskJob& job) {
  {
    std::lock_guard lock(mutex_);
    started_ms_by_task_[job.task.id] = system_now_ms();
  }
  // The row exists from the start, so `mace status` shows the task under way; its stage
  // follows the executor's (prompting, building, running).
  store::TaskRecord t = task_record(iteration, job);
  t.stage = TaskStage::pending;
  recorder_.with_store([&](store::Store& s) { s.upsert_task(t); });
}

void RecordingObserver::task_lost(int iteration, const loop::TaskJob& job,
                                  const loop::TaskOutcome& outcome, const std::string& next) {
  // The node and Slurm's reason are in what the Slurm runner said of the job.
  std::string what = job.narrowing.empty() ? "task " + job.task.id
                                           : "narrowing " + job.task.id + " (" + job.narrowing + ")";
  what += " lost to the infrastructure (" + std::string(to_string(outcome.failure_reason)) + ")";
  if (!outcome.checkout.empty()) what += " on " + outcome.checkout;
  if (!outcome.lost_detail.empty())
    what += ": " + outcome.lost_detail;
  else if (!outcome.evidence.empty())
    what += ": " + outcome.evidence.front();
  recorder_.message(iteration, job.task.id, what + "; " + next);
}

void RecordingObserver::task_finished(int iteration, const loop::TaskJob& job,
                                      const loop::TaskOutcome& outcome) {
  const store::TaskRecord t = task_record(iteration, job, outcome);
  {
    std::lock_guard lock(mutex_);
    for (const auto& v : outcome.verdicts)
      if (v.verdict == Verdict::pass && !v.run_dir.empty()) passing_run_dirs_.push_back(v.run_dir);
    if (outcome.passed && outcome.built && job.task.kind != TaskKind::unit_test)
      accepted_.push_back({job, outcome});
  }
  // The verdict events went out as each simulation ended (ProgressEvents).
  recorder_.with_store([&](store::Store& s) { s.upsert_task(t); });
  // A model store that cannot be read or written costs a build, never the task: said in
  // the run's log so whoever runs maced sees it.
  for (const auto& note : outcome.store_notes)
    recorder_.message(iteration, job.task.id, note);
  std::string message =
      outcome.passed ? "passed" : "failed: " + std::string(to_string(outcome.failure_reason));
  if (!outcome.passed && !outcome.evidence.empty()) message += ": " + outcome.evidence.front();
  recorder_.event(EventKind::task_stage, iteration, job.task.id, t.stage, message);
}

void RecordingObserver::iteration_finished(int iteration, bool passed, double cost_usd,
                                           double wall_s) {
  recorder_.with_store([&](store::Store& s) {
    s.record_iteration_end(recorder_.run_id(), iteration, system_now_ms(), cost_usd, wall_s, passed);
  });
  recorder_.event(EventKind::iteration_finished, iteration, "", std::nullopt,
                  std::string(passed ? "passed" : "failed") + " in " + os::duration_text(wall_s));
}

void RecordingObserver::note(const std::string& message) { recorder_.message(message); }

void RecordingObserver::narrowing_finished(int iteration, const loop::TaskJob& job,
                                           const loop::TaskOutcome& outcome) {
  const store::NarrowingBuildRecord b{recorder_.run_id(), iteration,        job.task.id,
                                      job.narrowing,      outcome.build_id, outcome.checkout,
                                      outcome.passed,     outcome.failure_reason,
                                      system_now_ms()};
  recorder_.with_store([&](store::Store& s) { s.record_narrowing_build(b); });
  recorder_.message(iteration, job.task.id,
                    "narrowing " + job.task.id + ": " + job.narrowing + ": " +
                        (outcome.passed ? "passed"
                                        : "failed (" + std::string(to_string(outcome.failure_reason)) +
                                              ")"));
}

void RecordingObserver::diagnosed(int iteration, const std::string& task_id, const Diagnosis& d) {
  recorder_.with_store([&](store::Store& s) {
    s.record_diagnosis(recorder_.run_id(), iteration, task_id, d.label, d.fix, d.source, d.evidence,
                       system_now_ms());
  });
  recorder_.message(iteration, task_id,
                    "diagnosis of " + task_id + " (" + std::string(to_string(d.source)) + "): " + d.label +
                        (d.fix.empty() ? "" : "; fix: " + d.fix));
}

void RecordingObserver::failures_recovered() {
  recorder_.with_store([&](store::Store& s) { s.mark_failures_recovered(recorder_.run_id()); });
}

void RecordingObserver::post_mortem_made(const PostMortem& pm) {
  recorder_.with_store([&](store::Store& s) {
    s.record_post_mortem(recorder_.run_id(),
                         {pm.assessment, pm.explanation, pm.next_steps, system_now_ms()});
  });
  recorder_.message("post-mortem: " + pm.assessment + ": " + pm.explanation);
}

}  // namespace mace::run

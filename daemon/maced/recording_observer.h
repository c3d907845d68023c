#pragma once
// What a run's loop reports, carried to the event-loop thread (kj::Executor::executeSync)
// and recorded there: events for `mace watch`, iterations, task rows, narrowing builds,
// diagnoses and the post-mortem (REQ-VER-13, 14, REQ-FAIL-8..10). The store keeps one
// writer, the event-loop thread, however many runs report at once.

#include <filesystem>
#include <string>
#include <vector>

#include <kj/async.h>

#include "core/run_spec.h"
#include "loop/run_loop.h"
#include "service/clock.h"
#include "service/run_service.h"

namespace mace {

class RecordingObserver final : public loop::LoopObserver {
 public:
  RecordingObserver(service::RunService& service, const kj::Executor& loop, std::string run_id,
                    const RunSpec& spec)
      : service_(service), loop_(loop), run_id_(std::move(run_id)), spec_(spec) {}

  void event(const std::string& kind, int iteration, const std::string& task_id,
             const std::string& stage, const std::string& message,
             const std::string& workload = "", const std::string& verdict = "") {
    store::EventRecord e;
    e.run_id = run_id_;
    e.kind = kind;
    e.iteration = iteration;
    e.task_id = task_id;
    e.stage = stage;
    e.message = message;
    e.workload = workload;
    e.verdict = verdict;
    loop_.executeSync([&] { service_.record_event(e); });
  }

  int current_iteration() const { return iteration_; }
  // Runs that passed in this run so far: references for comparing a failed transcript.
  std::vector<std::filesystem::path> passing_run_dirs() const { return passing_run_dirs_; }

  void iteration_started(int iteration) override {
    iteration_ = iteration;
    started_ms_ = system_now_ms();
    event("iteration_started", iteration, "", "", "iteration " + std::to_string(iteration));
  }

  void plan_made(int iteration, const Plan& plan, const std::string& reply) override {
    plan_ = plan;
    loop_.executeSync([&] {
      service_.store().record_iteration_start(run_id_, iteration, started_ms_, reply);
    });
    std::string ids;
    for (const auto& t : plan.tasks) ids += (ids.empty() ? "" : ", ") + t.id;
    event("message", iteration, "", "", "plan: " + ids);
  }

  void level_started(int iteration, std::size_t level,
                     const std::vector<std::string>& task_ids) override {
    std::string ids;
    for (const auto& id : task_ids) ids += (ids.empty() ? "" : ", ") + id;
    event("level_started", iteration, "", "", "level " + std::to_string(level) + ": " + ids);
  }

  void task_finished(int iteration, const loop::TaskJob& job,
                     const loop::TaskOutcome& outcome) override {
    store::TaskRecord t;
    t.run_id = run_id_;
    t.iteration = iteration;
    t.task_id = job.task.id;
    t.kind = job.task.kind;
    t.instruction = job.task.instruction;
    t.deps = job.task.deps;
    t.checkout = outcome.checkout;
    t.core = std::string(to_string(spec_.core));
    t.mesh_x = spec_.mesh_x;
    t.mesh_y = spec_.mesh_y;
    auto cache = [&](const char* name, int64_t& size, int64_t& assoc) {
      if (auto it = job.caches.find(name); it != job.caches.end()) {
        size = it->second.size;
        assoc = it->second.associativity;
      }
    };
    cache("l1i", t.l1i_size, t.l1i_assoc);
    cache("l1d", t.l1d_size, t.l1d_assoc);
    cache("l15", t.l15_size, t.l15_assoc);
    cache("l2", t.l2_size, t.l2_assoc);
    t.rtl_defines = job.defines;
    t.rtl_edits = outcome.edits_diff;  // REQ-VER-13
    t.rtl_edits_hash = outcome.edits_hash;
    if (spec_.coverage) t.extra_flags = {"-vlt_build_args=--coverage-line"};
    t.build_id = outcome.build_id;
    t.build_outcome = !outcome.built ? (outcome.build_id.empty() ? "" : "failed")
                      : outcome.reused ? "reused" : "succeeded";
    t.build_reused = outcome.reused;
    t.failure_reason = outcome.failure_reason;
    t.stage = outcome.passed ? "passed" : "failed";
    t.passed = outcome.passed;
    t.finished_at_ms = system_now_ms();
    int64_t ordinal = 0;
    for (const auto& v : outcome.verdicts) {
      t.results.push_back({ordinal++, v.workload, v.verdict, v.returncode, v.run_dir, v.wall_s});
      if (v.verdict == "pass" && !v.run_dir.empty()) passing_run_dirs_.push_back(v.run_dir);
    }
    loop_.executeSync([&] { service_.store().upsert_task(t); });
    for (const auto& v : outcome.verdicts)
      event("verdict", iteration, job.task.id, "", "", v.workload, v.verdict);
    std::string message = outcome.passed ? "passed" : "failed: " + outcome.failure_reason;
    if (!outcome.passed && !outcome.evidence.empty()) message += ": " + outcome.evidence.front();
    event("task_stage", iteration, job.task.id, outcome.passed ? "passed" : "failed", message);
  }

  void iteration_finished(int iteration, bool passed, double cost_usd, double wall_s) override {
    loop_.executeSync([&] {
      service_.store().record_iteration_end(run_id_, iteration, system_now_ms(), cost_usd, wall_s,
                                            passed);
    });
    event("iteration_finished", iteration, "", "",
          std::string(passed ? "passed" : "failed") + " in " + std::to_string(wall_s) + " s");
  }

  void note(const std::string& message) override { event("message", 0, "", "", message); }

  void narrowing_finished(int iteration, const loop::TaskJob& job,
                          const loop::TaskOutcome& outcome) override {
    store::NarrowingBuildRecord b{run_id_, iteration, job.task.id, job.narrowing,
                                  outcome.build_id, outcome.checkout, outcome.passed,
                                  outcome.failure_reason, system_now_ms()};
    loop_.executeSync([&] { service_.store().record_narrowing_build(b); });
    event("message", iteration, job.task.id, "",
          "narrowing " + job.task.id + ": " + job.narrowing + ": " +
              (outcome.passed ? "passed" : "failed (" + outcome.failure_reason + ")"));
  }

  void diagnosed(int iteration, const std::string& task_id, const Diagnosis& d) override {
    loop_.executeSync([&] {
      service_.store().record_diagnosis(run_id_, iteration, task_id, d.label, d.fix, d.source,
                                        d.evidence, system_now_ms());
    });
    event("message", iteration, task_id, "",
          "diagnosis of " + task_id + " (" + d.source + "): " + d.label +
              (d.fix.empty() ? "" : "; fix: " + d.fix));
  }

  void failures_recovered() override {
    loop_.executeSync([&] { service_.store().mark_failures_recovered(run_id_); });
  }

  void post_mortem_made(const PostMortem& pm) override {
    loop_.executeSync([&] {
      service_.store().record_post_mortem(
          run_id_, {pm.assessment, pm.explanation, pm.next_steps, system_now_ms()});
    });
    event("message", 0, "", "", "post-mortem: " + pm.assessment + ": " + pm.explanation);
  }

 private:
  service::RunService& service_;
  const kj::Executor& loop_;
  std::string run_id_;
  const RunSpec& spec_;
  int64_t started_ms_ = 0;
  int iteration_ = 0;
  Plan plan_;
  std::vector<std::filesystem::path> passing_run_dirs_;
};

}  // namespace mace

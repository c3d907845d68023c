#pragma once
// What a run's loop reports, recorded: events for `mace watch`, iterations, task rows,
// narrowing builds, diagnoses and the post-mortem (REQ-VER-13, 14, REQ-FAIL-8..10).

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/run_spec.h"
#include "loop/run_loop.h"
#include "run/run_recorder.h"

namespace mace::run {

class RecordingObserver final : public loop::LoopObserver {
 public:
  RecordingObserver(RunRecorder& recorder, const RunSpec& spec);

  // The iteration under way; the executor's threads and the LLM calls read it.
  int current_iteration() const;
  // Runs that passed in this run so far: references for comparing a failed transcript.
  std::vector<std::filesystem::path> passing_run_dirs() const;

  // A design the latest iteration accepted: a task of it that built a design and passed.
  struct AcceptedDesign {
    loop::TaskJob job;
    loop::TaskOutcome outcome;
  };
  // The designs of the latest iteration (of a passed run: the designs it accepted).
  std::vector<AcceptedDesign> accepted_designs() const;

  void iteration_started(int iteration) override;
  void plan_made(int iteration, const Plan& plan, const std::string& reply) override;
  void level_started(int iteration, std::size_t level,
                     const std::vector<std::string>& task_ids) override;
  void task_waiting(int iteration, const loop::TaskJob& job, const std::string& why) override;
  void task_started(int iteration, const loop::TaskJob& job) override;
  void task_finished(int iteration, const loop::TaskJob& job,
                     const loop::TaskOutcome& outcome) override;
  void task_lost(int iteration, const loop::TaskJob& job, const loop::TaskOutcome& outcome,
                 const std::string& next) override;
  void iteration_finished(int iteration, bool passed, double cost_usd, double wall_s) override;
  void note(const std::string& message) override;
  void narrowing_finished(int iteration, const loop::TaskJob& job,
                          const loop::TaskOutcome& outcome) override;
  void diagnosed(int iteration, const std::string& task_id, const Diagnosis& d) override;
  void failures_recovered() override;
  void post_mortem_made(const PostMortem& pm) override;

 private:
  // What the job says of its task, before it has an outcome.
  store::TaskRecord task_record(int iteration, const loop::TaskJob& job) const;
  store::TaskRecord task_record(int iteration, const loop::TaskJob& job,
                                const loop::TaskOutcome& outcome) const;

  RunRecorder& recorder_;
  const RunSpec& spec_;
  mutable std::mutex mutex_;  // the loop's thread writes, the executor's threads read
  int iteration_ = 0;
  int64_t started_ms_ = 0;
  std::vector<std::filesystem::path> passing_run_dirs_;
  std::vector<AcceptedDesign> accepted_;
  std::map<std::string, int64_t> started_ms_by_task_;  // this iteration's, by task id
};

}  // namespace mace::run

#include "run/eval_run.h"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "core/json_writer.h"
#include "openpiton/rtl_edits.h"
#include "openpiton/sims_command.h"
#include "openpiton/source_fingerprint.h"
#include "os/environment.h"
#include "run/mace_commit.h"

namespace mace::run {

std::optional<eval::JobInstructions> eval_job_of(RunRecorder& recorder) {
  auto record = recorder.with_store(
      [&](store::Store& store) { return store.find_eval_run(recorder.run_id()); });
  if (!record) return std::nullopt;
  auto instructions = eval::instructions_from_json(record->instructions_json);
  if (!instructions)
    throw std::runtime_error("the evaluation job's recorded instructions do not parse");
  return instructions;
}

void prepare_eval_checkouts(RunRecorder& recorder, const eval::JobInstructions& job,
                            const std::vector<openpiton::Checkout>& checkouts) {
  for (const auto& checkout : checkouts) {
    const std::string root = checkout.root().string();
    // REQ-EVAL-12: a fault or RTL edit a killed job left is not this job's.
    openpiton::RestoreReport leftovers = openpiton::restore_leftover_edits(checkout.root());
    for (const auto& file : leftovers.restored)
      recorder.message(root + ": restored " + file + " (left by an interrupted job)");
    for (const auto& file : leftovers.removed)
      recorder.message(root + ": removed " + file + " (created by an interrupted job)");
    if (!leftovers.ok()) {
      std::string why;
      for (const auto& e : leftovers.errors) why += (why.empty() ? "" : "; ") + e;
      throw std::runtime_error(root + ": cannot restore what an interrupted job left: " + why);
    }
    // A source fault that does not apply to this checkout would fail the build for a
    // reason that says nothing of the design: the job cannot run here, and says so.
    if (!job.fault_edits.empty()) {
      try {
        (void)openpiton::compute_edited_files(checkout.root(), fault_edit_set(job));
      } catch (const openpiton::EditError& e) {
        throw std::runtime_error("the fault " + job.fault + " does not apply to " + root + ": " +
                                 e.what());
      }
    }
    if (job.keep_models) continue;
    // REQ-EVAL-4: every job starts from no model MACE built, so none is reused.
    std::vector<std::string> removed = checkout.remove_mace_models();
    recorder.message(root + ": removed " + std::to_string(removed.size()) +
                     " mace_* model director" + (removed.size() == 1 ? "y" : "ies") +
                     " before the job");
  }
}

openpiton::EditSet fault_edit_set(const eval::JobInstructions& job) {
  openpiton::EditSet edits;
  for (const auto& e : job.fault_edits)
    edits.edits.push_back(openpiton::TextReplacement{e.path, e.old_text, e.new_text});
  return edits;
}

namespace {

// "hello pass, memstress maxcycles"
std::string verdicts_of(const std::vector<store::WorkloadResultRecord>& results) {
  std::string text;
  for (const auto& r : results)
    text += (text.empty() ? "" : ", ") + r.workload + " " + std::string(to_string(r.verdict));
  return text;
}

// What caught the fault in a failed task: its first gate workload that did not pass, or
// its build; "" when its failure says nothing of the design.
std::string caught_by(const store::TaskRecord& task) {
  for (const auto& r : task.results)
    if (r.verdict != Verdict::pass) return r.workload + " (verdict " + std::string(to_string(r.verdict)) + ")";
  if (says_nothing_about_the_design(task.failure_reason)) return "";
  if (task.build_outcome == BuildOutcome::failed || task.build_outcome == BuildOutcome::none)
    return "the build (" + std::string(to_string(task.failure_reason)) + ")";
  return "task " + task.task_id + " (" + std::string(to_string(task.failure_reason)) + ")";
}

}  // namespace

FaultCheckConclusion conclude_fault_check(const eval::JobInstructions& job, RunState state,
                                          const std::string& reason,
                                          const std::vector<store::TaskRecord>& tasks,
                                          const std::vector<store::EvalResimulationRecord>& resimulated) {
  const std::string fault = "the " + std::string(job.fault_kind ? eval::to_string(*job.fault_kind) : "") +
                            " fault " + job.fault;
  if (state == RunState::passed) {
    for (const auto& design : resimulated)
      for (const auto& r : design.results)
        if (r.verdict != Verdict::pass)
          return {RunState::failed,
                  "caught by " + r.workload + " (verdict " + std::string(to_string(r.verdict)) + "): " + fault +
                      " passed its build-only check, and its design " + design.build_id +
                      " failed when simulated",
                  RunOutcome::caught};
    std::string passed;
    for (const auto& task : tasks)
      if (task.passed && *task.passed && !task.results.empty()) passed = verdicts_of(task.results);
    for (const auto& design : resimulated) passed = verdicts_of(design.results);
    return {RunState::passed,
            "missed: " + fault + " passed every gate workload" + (passed.empty() ? "" : " (" + passed + ")"),
            RunOutcome::missed};
  }
  // A failed design task caught the fault, whether the run then ended failed or ran out of
  // iterations trying again.
  if (state == RunState::failed || state == RunState::budget_exceeded) {
    for (const auto& task : tasks) {
      if (!task.passed || *task.passed) continue;
      const std::string by = caught_by(task);
      if (by.empty()) break;
      return {RunState::failed, "caught by " + by + ": " + fault, RunOutcome::caught};
    }
  }
  return {state, reason, RunOutcome::none};
}

}  // namespace mace::run

#include "service/run_repro.h"

#include <algorithm>

#include "core/run_environment_record.h"
#include "service/service_error.h"

namespace mace::service {
namespace {

bool matches(const store::TaskRecord& task, const store::WorkloadResultRecord& r, const ReproQuery& q) {
  if (!q.task_id.empty() && task.task_id != q.task_id) return false;
  if (!q.workload.empty()) return r.workload == q.workload;
  return r.verdict != Verdict::pass;
}

std::string named(const ReproQuery& q) {
  std::string words;
  words += q.workload.empty() ? "a simulation that did not pass" : "a simulation of " + q.workload;
  if (!q.task_id.empty()) words += " in task " + q.task_id;
  if (q.iteration > 0) words += " in iteration " + std::to_string(q.iteration);
  return words;
}

}  // namespace

ReproFacts repro_facts(const store::Store& store, const store::RunRecord& run, const ReproQuery& query) {
  std::vector<store::TaskRecord> tasks = store.tasks(run.id);
  // Newest iteration first; within one, plan order.
  std::stable_sort(tasks.begin(), tasks.end(),
                   [](const store::TaskRecord& a, const store::TaskRecord& b) { return a.iteration > b.iteration; });
  for (const auto& task : tasks) {
    if (query.iteration > 0 && task.iteration != query.iteration) continue;
    for (const auto& r : task.results) {
      if (!matches(task, r, query)) continue;
      if (r.argv.empty() || task.build_argv.empty())
        throw RequestError(RequestErrorKind::not_found, {query.workload.empty() ? "runId" : "workload",
                            "the simulation of " + r.workload + " in task " + task.task_id + " of run " + run.id +
                                " has no recorded command line (it was recorded before MACE kept them, or sims "
                                "never started for it), so it cannot be reproduced"});
      ReproFacts facts;
      facts.run_id = run.id;
      facts.iteration = task.iteration;
      facts.task_id = task.task_id;
      facts.workload = r.workload;
      facts.checkout = task.checkout;
      facts.build_id = task.build_id;
      facts.build_argv = task.build_argv;
      facts.build_environment = task.build_environment;
      facts.rtl_edits = task.rtl_edits;
      facts.sim_argv = r.argv;
      facts.sim_environment = r.environment;
      facts.run_dir = r.run_dir;
      facts.inputs = r.inputs;
      facts.inputs_note = r.inputs_note;
      facts.verdict = r.verdict;
      facts.error_line = r.error_line;
      facts.verdict_time = r.verdict_time;
      facts.cycles = r.cycles;
      const RunEnvironment env = read_run_environment(store.run_environment(run.id));
      facts.mace_version = env.mace_version;
      facts.mace_commit = env.mace_commit;
      facts.host = env.host;
      if (const RunEnvironment::Checkout* checkout = env.checkout(facts.checkout)) {
        facts.checkout_commit = checkout->commit;
        facts.source_fingerprint = checkout->source_fingerprint;
        facts.verilator = checkout->verilator;
      }
      return facts;
    }
  }
  const char* field = !query.workload.empty() ? "workload" : !query.task_id.empty() ? "taskId" : "runId";
  throw RequestError(RequestErrorKind::not_found, {field, "run " + run.id + " has no recorded " + named(query) +
                                 (query.workload.empty() ? " (name one with --workload)" : "")});
}

}  // namespace mace::service

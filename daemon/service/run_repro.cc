#include "service/run_repro.h"

#include <simdjson.h>

#include <algorithm>

#include "service/service_error.h"

namespace mace::service {
namespace {

std::string field_of(simdjson::dom::element e, const char* key) {
  std::string_view v;
  return e[key].get_string().get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

// What the run's environment says of MACE, the host and the checkout the task ran on.
void add_environment(ReproFacts& facts, const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element env;
  if (json.empty() || parser.parse(json).get(env) != simdjson::SUCCESS) return;
  facts.mace_version = field_of(env, "mace_version");
  facts.mace_commit = field_of(env, "mace_commit");
  facts.host = field_of(env, "host");
  simdjson::dom::array checkouts;
  if (env["checkouts"].get_array().get(checkouts) != simdjson::SUCCESS) return;
  for (simdjson::dom::element c : checkouts) {
    if (field_of(c, "path") != facts.checkout) continue;
    facts.checkout_commit = field_of(c, "commit");
    facts.source_fingerprint = field_of(c, "source_fingerprint");
    facts.verilator = field_of(c, "verilator");
  }
}

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
        throw RequestError({query.workload.empty() ? "runId" : "workload",
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
      add_environment(facts, store.run_environment(run.id));
      return facts;
    }
  }
  const char* field = !query.workload.empty() ? "workload" : !query.task_id.empty() ? "taskId" : "runId";
  throw RequestError({field, "run " + run.id + " has no recorded " + named(query) +
                                 (query.workload.empty() ? " (name one with --workload)" : "")});
}

}  // namespace mace::service

#include "eval/results.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "core/csv_field.h"
#include "core/json_writer.h"

namespace mace::eval {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

bool job_finished(const JobOutcome& job) { return job.job_state != EvalJobState::pending; }

bool ResimulatedDesign::passed() const {
  if (verdicts.empty()) return false;
  for (const auto& [workload, verdict] : verdicts)
    if (verdict != "pass") return false;
  return true;
}

bool attempts_objective(const JobOutcome& job) {
  return !(job.method == EvalMethod::mace && job.planner == "direct");
}

std::string method_label(const JobOutcome& job) {
  const std::string method(to_string(job.method));
  return attempts_objective(job) ? method : method + " (direct)";
}

bool job_succeeded(const JobOutcome& job) {
  if (job.job_state != EvalJobState::done) return false;
  const bool simulated_designs_pass = std::all_of(
      job.resimulated.begin(), job.resimulated.end(), [](const auto& d) { return d.passed(); });
  if (job.method == EvalMethod::fault_check) return job.outcome == "caught";
  if (is_codesign(job.method)) return job.feasible_designs > 0;
  return job.run_state == "passed" && simulated_designs_pass;
}

std::vector<ResultRow> result_rows(const BatchView& batch) {
  std::map<std::tuple<std::string, std::string, std::string>, ResultRow> rows;
  for (const auto& job : batch.jobs) {
    auto& row = rows[{job.task_id, method_label(job), job.fault}];
    row.task_id = job.task_id;
    row.method = method_label(job);
    row.fault = job.fault;
    row.objective_attempted = attempts_objective(job);
    if (!job_finished(job)) continue;
    ++row.runs;
    if (job_succeeded(job)) ++row.successes;
    row.mean_iterations += static_cast<double>(job.iterations);
    row.total_cost_usd += job.cost_usd;
    row.mean_wall_s += job.wall_s;
    row.designs += job.designs;
    row.wall_s.push_back(job.wall_s);
  }
  std::vector<ResultRow> out;
  for (auto& [key, row] : rows) {
    if (row.runs > 0) {
      const double n = static_cast<double>(row.runs);
      row.success_rate = static_cast<double>(row.successes) / n;
      row.mean_iterations /= n;
      row.mean_cost_usd = row.total_cost_usd / n;
      row.mean_wall_s /= n;
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<MethodProgress> progress(const BatchView& batch) {
  std::map<std::string, MethodProgress> by_method;
  for (const auto& job : batch.jobs) {
    auto& p = by_method[method_label(job)];
    p.method = method_label(job);
    ++p.total;
    if (job_finished(job)) ++p.done;
  }
  std::vector<MethodProgress> out;
  for (auto& [m, p] : by_method) out.push_back(p);
  return out;
}

namespace {

constexpr const char* kDirectNote =
    "mace (direct): the direct planner built each task's core and mesh with OpenPiton's "
    "defaults and ran its gate workloads; it did not try the objective, so these count runs "
    "whose gates passed, not successes at the objective";

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string render_status_text(const BatchView& batch) {
  int64_t done = 0, total = 0;
  for (const auto& p : progress(batch)) {
    done += p.done;
    total += p.total;
  }
  std::string out = "batch " + batch.id + " (suite " + batch.suite + "): " + std::string(to_string(batch.state)) + ", " +
                    std::to_string(done) + "/" + std::to_string(total) + " jobs done\n";
  for (const auto& p : progress(batch))
    out += "  " + pad(p.method, 16) + std::to_string(p.done) + "/" + std::to_string(p.total) + "\n";
  for (const auto& job : batch.jobs) {
    if (job.job_state != EvalJobState::pending || job.run_id.empty()) continue;
    out += "  now: job " + std::to_string(job.position) + " " + std::string(to_string(job.method)) + " " + job.task_id +
           (job.fault.empty() ? "" : " fault " + job.fault) + " repeat " +
           std::to_string(job.repeat) + ", run " + job.run_id + " " + job.run_state + "\n";
    break;
  }
  return out;
}

std::string render_results_text(const BatchView& batch) {
  std::string out = pad("task", 20) + pad("method", 16) + pad("fault", 20) + pad("success", 12) +
                    pad("iters", 8) + pad("cost $", 10) + pad("wall s", 10) + "designs\n";
  bool any_direct = false;
  for (const auto& r : result_rows(batch)) {
    const std::string count = std::to_string(r.successes) + "/" + std::to_string(r.runs);
    any_direct = any_direct || !r.objective_attempted;
    out += pad(r.task_id, 20) + pad(r.method, 16) + pad(r.fault.empty() ? "-" : r.fault, 20) +
           pad(r.objective_attempted ? count : "gates " + count + "*", 12) +
           pad(fixed(r.mean_iterations, 1), 8) + pad(fixed(r.mean_cost_usd, 4), 10) +
           pad(fixed(r.mean_wall_s, 1), 10) + std::to_string(r.designs) + "\n";
  }
  if (any_direct) out += std::string("* ") + kDirectNote + "\n";
  // What each finished job's designs were and did: configuration, verdicts and cycles.
  bool heading = false;
  for (const auto& job : batch.jobs) {
    if (job.design_results.empty()) continue;
    if (!heading) out += "\ndesigns (configuration, cache area per tile, and verdict and simulated cycles per gate workload)\n";
    heading = true;
    out += "  job " + std::to_string(job.position) + " " + method_label(job) + " " + job.task_id +
           (job.fault.empty() ? "" : " fault " + job.fault) + " repeat " + std::to_string(job.repeat) +
           ", run " + job.run_id + "\n";
    for (const auto& d : job.design_results) {
      out += "    iter" + std::to_string(d.iteration) + " " + d.task_id + ": " + d.configuration + "; area " +
             fixed(d.area, 1) + "\n     ";
      for (const auto& r : d.results)
        out += " " + r.workload + " " + r.verdict + (r.cycles ? " " + std::to_string(*r.cycles) + " cycles" : "");
      if (d.results.empty()) out += " not simulated";
      out += "\n";
    }
  }
  return out;
}

std::string render_results_json(const BatchView& batch) {
  JsonWriter w(true);
  w.begin_object();
  w.field("batch_id", batch.id);
  w.field("suite", batch.suite);
  w.field("state", to_string(batch.state));
  w.field("submitted_at_ms", batch.submitted_at_ms);
  w.field("finished_at_ms", batch.finished_at_ms);
  w.key("request").raw(batch.request_json.empty() ? "{}" : batch.request_json);
  w.key("progress").begin_array();
  for (const auto& p : progress(batch)) {
    w.begin_object().field("method", p.method).field("done", p.done).field("total", p.total);
    w.end_object();
  }
  w.end_array();
  w.key("results").begin_array();
  for (const auto& r : result_rows(batch)) {
    w.begin_object();
    w.field("task", r.task_id).field("method", r.method).field("fault", r.fault);
    w.field("objective_attempted", r.objective_attempted);
    w.field("runs", r.runs).field("successes", r.successes).key("success_rate");
    r.objective_attempted ? w.value(r.success_rate) : w.null();
    w.field("mean_iterations", r.mean_iterations).field("mean_cost_usd", r.mean_cost_usd);
    w.field("total_cost_usd", r.total_cost_usd).field("mean_wall_s", r.mean_wall_s);
    w.field("designs", r.designs);
    w.end_object();
  }
  w.end_array();
  w.key("jobs").begin_array();
  for (const auto& j : batch.jobs) {
    w.begin_object();
    w.field("position", j.position).field("method", to_string(j.method)).field("task", j.task_id);
    w.field("fault", j.fault).field("repeat", j.repeat).field("seed", j.seed);
    w.field("state", to_string(j.job_state)).field("attempts", j.attempts).field("run_id", j.run_id);
    w.field("run_state", j.run_state).field("iterations", j.iterations);
    w.field("cost_usd", j.cost_usd).field("wall_s", j.wall_s).field("designs", j.designs);
    w.field("feasible_designs", j.feasible_designs);
    w.field("planner", j.planner).field("outcome", j.outcome);
    w.field("objective_attempted", attempts_objective(j));
    w.key("resimulated").begin_array();
    for (const auto& d : j.resimulated) {
      w.begin_object().field("task", d.task_id).field("build_id", d.build_id).key("verdicts").begin_object();
      for (const auto& [workload, verdict] : d.verdicts) w.field(workload, verdict);
      w.end_object().key("cycles").begin_object();
      for (std::size_t i = 0; i < d.verdicts.size(); ++i) {
        w.key(d.verdicts[i].first);
        i < d.cycles.size() && d.cycles[i] ? w.value(*d.cycles[i]) : w.null();
      }
      w.end_object().end_object();
    }
    w.end_array();
    w.key("designs_simulated").begin_array();
    for (const auto& d : j.design_results) {
      w.begin_object().field("task", d.task_id).field("iteration", d.iteration);
      w.field("build_id", d.build_id).field("passed", d.passed);
      w.field("configuration", d.configuration).field("default_configuration", d.default_configuration);
      w.field("area", d.area);
      w.key("results").begin_array();
      for (const auto& r : d.results) {
        w.begin_object().field("workload", r.workload).field("verdict", r.verdict).key("cycles");
        r.cycles ? w.value(*r.cycles) : w.null();
        w.end_object();
      }
      w.end_array().end_object();
    }
    w.end_array();
    w.key("verdicts").begin_array();
    for (const auto& t : j.verdicts) {
      w.begin_object().field("iteration", t.iteration).field("task", t.task_id).key("verdicts").begin_object();
      for (const auto& [workload, verdict] : t.verdicts) w.field(workload, verdict);
      w.end_object().key("cycles").begin_object();
      for (std::size_t i = 0; i < t.verdicts.size(); ++i) {
        w.key(t.verdicts[i].first);
        i < t.cycles.size() && t.cycles[i] ? w.value(*t.cycles[i]) : w.null();
      }
      w.end_object().end_object();
    }
    w.end_array();
    w.field("caught_by", j.caught_by);
    w.key("environment").raw(j.env_json.empty() ? "null" : j.env_json);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take() + "\n";
}

std::string render_results_csv(const BatchView& batch) {
  std::string out =
      "task,method,fault,runs,successes,success_rate,mean_iterations,mean_cost_usd,"
      "total_cost_usd,mean_wall_s,designs,objective_attempted\r\n";
  for (const auto& r : result_rows(batch)) {
    out += csv_field(r.task_id) + "," + csv_field(r.method) + "," + csv_field(r.fault) + "," +
           std::to_string(r.runs) + "," + std::to_string(r.successes) + "," +
           (r.objective_attempted ? fixed(r.success_rate, 4) : "") + "," + fixed(r.mean_iterations, 3) + "," +
           fixed(r.mean_cost_usd, 6) + "," + fixed(r.total_cost_usd, 6) + "," +
           fixed(r.mean_wall_s, 3) + "," + std::to_string(r.designs) + "," +
           (r.objective_attempted ? "true" : "false") + "\r\n";
  }
  return out;
}

}  // namespace mace::eval

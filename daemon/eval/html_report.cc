#include "eval/html_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/html_text.h"
#include "core/pareto.h"

namespace mace::eval {
namespace {

std::string escaped(const std::string& s) { return html_escaped(s); }

struct MethodSummary {
  int64_t runs = 0;
  int64_t successes = 0;
  double cost = 0;
  std::vector<double> wall_s;
};

std::map<std::string, MethodSummary> by_method(const BatchView& batch) {
  std::map<std::string, MethodSummary> out;
  for (const auto& job : batch.jobs) {
    auto& m = out[method_label(job)];
    if (!job_finished(job)) continue;
    ++m.runs;
    if (job_succeeded(job)) ++m.successes;
    m.cost += job.cost_usd;
    m.wall_s.push_back(job.wall_s);
  }
  return out;
}

constexpr int kWidth = 520;
constexpr int kBarHeight = 26;
constexpr int kLabelWidth = 140;

// A horizontal bar chart, one bar per method; `value` in [0, max].
std::string bar_chart(const std::string& id, const std::string& title,
                      const std::vector<std::pair<std::string, double>>& bars, double max,
                      const std::string& unit, int decimals) {
  const int height = 30 + kBarHeight * static_cast<int>(bars.size()) + 10;
  std::string svg = "<svg id=\"" + id + "\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(kWidth) + "\" height=\"" + std::to_string(height) +
                    "\" role=\"img\" aria-label=\"" + escaped(title) + "\">";
  svg += "<text x=\"4\" y=\"18\" font-weight=\"bold\">" + escaped(title) + "</text>";
  const double span = kWidth - kLabelWidth - 90;
  int y = 30;
  for (const auto& [label, value] : bars) {
    const double w = max > 0 ? span * std::clamp(value / max, 0.0, 1.0) : 0;
    svg += "<text x=\"4\" y=\"" + std::to_string(y + 17) + "\">" + escaped(label) + "</text>";
    svg += "<rect class=\"bar\" x=\"" + std::to_string(kLabelWidth) + "\" y=\"" + std::to_string(y + 3) +
           "\" width=\"" + fixed(w, 1) + "\" height=\"" + std::to_string(kBarHeight - 6) +
           "\" fill=\"#4a7bb7\"/>";
    svg += "<text x=\"" + fixed(kLabelWidth + w + 6, 1) + "\" y=\"" + std::to_string(y + 17) + "\">" +
           fixed(value, decimals) + escaped(unit) + "</text>";
    y += kBarHeight;
  }
  return svg + "</svg>\n";
}

// One row of dots per method: each finished run's wall time on a shared axis.
std::string wall_time_plot(const std::map<std::string, MethodSummary>& methods) {
  double max = 0;
  for (const auto& [name, m] : methods)
    for (double w : m.wall_s) max = std::max(max, w);
  const int height = 50 + kBarHeight * static_cast<int>(methods.size());
  std::string svg = "<svg id=\"plot-wall\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(kWidth) + "\" height=\"" + std::to_string(height) +
                    "\" role=\"img\" aria-label=\"wall time per run\">";
  svg += "<text x=\"4\" y=\"18\" font-weight=\"bold\">Wall time per run (s)</text>";
  const double span = kWidth - kLabelWidth - 30;
  int y = 30;
  for (const auto& [name, m] : methods) {
    svg += "<text x=\"4\" y=\"" + std::to_string(y + 17) + "\">" + escaped(name) + "</text>";
    svg += "<line x1=\"" + std::to_string(kLabelWidth) + "\" x2=\"" + fixed(kLabelWidth + span, 1) +
           "\" y1=\"" + std::to_string(y + 13) + "\" y2=\"" + std::to_string(y + 13) +
           "\" stroke=\"#ccc\"/>";
    for (double w : m.wall_s) {
      const double x = kLabelWidth + (max > 0 ? span * w / max : 0);
      svg += "<circle class=\"dot\" cx=\"" + fixed(x, 1) + "\" cy=\"" + std::to_string(y + 13) +
             "\" r=\"4\" fill=\"#c0504d\" fill-opacity=\"0.7\"><title>" + fixed(w, 1) +
             " s</title></circle>";
    }
    y += kBarHeight;
  }
  svg += "<text x=\"" + std::to_string(kLabelWidth) + "\" y=\"" + std::to_string(y + 14) + "\">0</text>";
  svg += "<text x=\"" + fixed(kLabelWidth + span - 40, 1) + "\" y=\"" + std::to_string(y + 14) + "\">" +
         fixed(max, 1) + " s</text>";
  return svg + "</svg>\n";
}

// `chart`, unless every value of `bars` is zero: then `sentence` instead.
std::string chart_or_sentence(const std::string& chart, const std::vector<std::pair<std::string, double>>& bars,
                              const std::string& sentence) {
  const bool any = std::any_of(bars.begin(), bars.end(), [](const auto& b) { return b.second != 0; });
  return any ? chart : "<p class=\"no-plot\">" + escaped(sentence) + "</p>\n";
}

// One row per job, in the batch's order: its run, method, task, repeat, how it ended, its
// last iteration's verdicts with their cycles and, for a fault check that caught its fault, what caught it.
std::string job_table(const BatchView& batch) {
  std::string html =
      "<h2>Jobs</h2>\n<table id=\"jobs\"><thead><tr><th>run</th><th>method</th><th>task</th><th>fault</th>"
      "<th>repeat</th><th>state</th><th>verdicts</th><th>caught by</th></tr></thead><tbody>\n";
  for (const auto& j : batch.jobs) {
    std::string verdicts;
    for (const auto& t : j.verdicts) {
      std::string line;
      for (std::size_t i = 0; i < t.verdicts.size(); ++i) {
        const auto& [workload, verdict] = t.verdicts[i];
        line += (line.empty() ? "" : ", ") + escaped(workload) + " <span class=\"" + escaped(verdict) + "\">" +
                escaped(verdict) + "</span>";
        if (i < t.cycles.size() && t.cycles[i]) line += " " + grouped_digits(*t.cycles[i]) + " cycles";
      }
      verdicts += (verdicts.empty() ? "" : "<br>") +
                  (j.verdicts.size() > 1 ? escaped(t.task_id) + ": " : std::string()) + line;
    }
    const std::string state = !j.outcome.empty()     ? j.outcome
                              : !j.run_state.empty() ? j.run_state
                                                     : std::string(to_string(j.job_state));
    html += "<tr class=\"job\"><td>" + escaped(j.run_id.empty() ? "-" : j.run_id) + "</td><td>" +
            escaped(method_label(j)) + "</td><td>" + escaped(j.task_id) + "</td><td>" +
            escaped(j.fault.empty() ? "-" : j.fault) + "</td><td>" + std::to_string(j.repeat) + "</td><td>" +
            escaped(state) + "</td><td>" + (verdicts.empty() ? "-" : verdicts) + "</td><td>" +
            escaped(j.caught_by.empty() ? "-" : j.caught_by) + "</td></tr>\n";
  }
  return html + "</tbody></table>\n";
}

// The feasible designs of the batch's co-design searches, per gate workload in the order
// first met: each design that passed with its area and that workload's cycles.
std::vector<std::pair<std::string, std::vector<ParetoPoint>>> codesign_points(const BatchView& batch) {
  std::vector<std::pair<std::string, std::vector<ParetoPoint>>> out;
  for (const auto& job : batch.jobs) {
    if (!is_codesign(job.method)) continue;
    for (const auto& design : job.design_results) {
      if (!design.passed) continue;
      for (const auto& r : design.results) {
        if (!r.cycles || r.verdict != "pass") continue;
        auto at = std::find_if(out.begin(), out.end(), [&](const auto& w) { return w.first == r.workload; });
        if (at == out.end()) at = out.insert(out.end(), {r.workload, {}});
        at->second.push_back({"job " + std::to_string(job.position) + " iter" + std::to_string(design.iteration) +
                                  " " + design.task_id,
                              design.configuration, design.area, *r.cycles});
      }
    }
  }
  return out;
}

// The co-design section: nothing for a batch without a search; a sentence for searches
// that found no feasible design with cycles.
std::string codesign_section(const BatchView& batch) {
  const bool searched =
      std::any_of(batch.jobs.begin(), batch.jobs.end(), [](const JobOutcome& j) { return is_codesign(j.method); });
  if (!searched) return "";
  std::string html =
      "<h2>Co-design: area against cycles</h2>\n<p>Each feasible design of the co-design searches (every gate "
      "workload passed), its caches' area per tile in the area model's units against each gate workload's "
      "simulated cycles. Filled: the Pareto front, the designs no other design beats in area without losing "
      "in cycles; hollow: the rest.</p>\n";
  const auto workloads = codesign_points(batch);
  if (workloads.empty())
    return html + "<p class=\"no-plot\">No co-design search has a feasible design with cycles yet.</p>\n";
  for (std::size_t i = 0; i < workloads.size(); ++i) html += pareto_chart_html(i, workloads[i].first, workloads[i].second);
  return html;
}

}  // namespace

std::string render_html_report(const BatchView& batch) {
  auto methods = by_method(batch);
  std::vector<std::pair<std::string, double>> success, cost;
  double max_cost = 0;
  for (const auto& [name, m] : methods) {
    // The direct planner's runs did not try the objective: no success rate of theirs is drawn.
    if (name.ends_with(" (direct)")) continue;
    success.push_back({name, m.runs ? 100.0 * static_cast<double>(m.successes) / static_cast<double>(m.runs) : 0});
    const double mean_cost = m.runs ? m.cost / static_cast<double>(m.runs) : 0;
    cost.push_back({name, mean_cost});
    max_cost = std::max(max_cost, mean_cost);
  }
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
      "<title>MACE evaluation " + escaped(batch.id) + "</title><style>"
      "body{font-family:sans-serif;margin:2em;color:#222}"
      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:4px 8px;text-align:left}"
      "th{background:#eee}.plot{display:block;margin:1em 0;font-size:13px}"
      ".pass{color:#176317}.fail,.timeout,.maxcycles,.none{color:#a11}"
      "</style></head><body>\n";
  html += "<h1>MACE evaluation batch " + escaped(batch.id) + "</h1>\n";
  html += "<p>Suite <b>" + escaped(batch.suite) + "</b>, state <b>" + escaped(std::string(to_string(batch.state))) + "</b>, " +
          std::to_string(batch.jobs.size()) + " jobs. For a fault check, success means the fault was caught. "
          "<i>mace (direct)</i>: the direct planner built each task's core and mesh with OpenPiton's defaults "
          "and ran its gate workloads; it did not try the objective, so its count is of gate passes, "
          "not successes at the objective, and it has no success rate.</p>\n";
  html += "<table id=\"results\"><thead><tr><th>task</th><th>method</th><th>fault</th><th>success</th>"
          "<th>success rate</th><th>mean iterations</th><th>mean cost ($)</th><th>mean wall (s)</th>"
          "<th>designs</th></tr></thead><tbody>\n";
  for (const auto& r : result_rows(batch)) {
    html += "<tr><td>" + escaped(r.task_id) + "</td><td>" + escaped(r.method) + "</td><td>" +
            escaped(r.fault.empty() ? "-" : r.fault) + "</td><td>" + (r.objective_attempted ? "" : "gates ") +
            std::to_string(r.successes) + "/" + std::to_string(r.runs) + "</td><td>" +
            (r.objective_attempted ? fixed(100 * r.success_rate, 0) + "%" : std::string("n/a")) + "</td><td>" +
            fixed(r.mean_iterations, 1) + "</td><td>" + fixed(r.mean_cost_usd, 4) + "</td><td>" +
            fixed(r.mean_wall_s, 1) + "</td><td>" + std::to_string(r.designs) + "</td></tr>\n";
  }
  html += "</tbody></table>\n";
  html += job_table(batch);
  // A chart whose every value is zero says nothing a sentence would not.
  html += chart_or_sentence(bar_chart("plot-success", "Success rate per method", success, 100, "%", 0), success,
                            "No method succeeded in any run: every success rate is 0%.");
  html += chart_or_sentence(bar_chart("plot-cost", "Mean LLM cost per run ($)", cost, max_cost, "", 4), cost,
                            "No run cost anything: no job called an LLM (or none reported a cost).");
  bool any_wall = false;
  for (const auto& [name, m] : methods)
    for (double w : m.wall_s) any_wall = any_wall || w > 0;
  html += any_wall ? wall_time_plot(methods) : "<p class=\"no-plot\">No run has finished yet: no wall time to plot.</p>\n";
  html += codesign_section(batch);
  html += "</body></html>\n";
  return html;
}

}  // namespace mace::eval

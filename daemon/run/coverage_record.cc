#include "run/coverage_record.h"

#include <cstdio>

namespace mace::run {
namespace {

store::CoverageCountsRecord counts_record(const openpiton::ModuleCoverage& m) {
  return {m.module, m.lines_covered, m.lines_total, m.points_covered, m.points_total};
}

std::string percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "-";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return text;
}

}  // namespace

std::string coverage_line(const openpiton::CoverageResult& coverage) {
  if (!coverage.merged) return "no coverage: " + coverage.error;
  const auto& t = coverage.summary.total;
  return "lines " + std::to_string(t.lines_covered) + " of " + std::to_string(t.lines_total) + " (" +
         percent(t.lines_covered, t.lines_total) + ") over " + std::to_string(coverage.runs_merged) +
         " workload" + (coverage.runs_merged == 1 ? "" : "s");
}

void record_coverage(RunRecorder& recorder, LogKeeper& logs, const executor::TaskCallSite& site,
                     const openpiton::CoverageResult& coverage, int64_t now_ms) {
  const LogKeeper::KeptCoverage kept = logs.keep_coverage(site, coverage);
  store::TaskCoverageRecord record;
  record.run_id = recorder.run_id();
  record.iteration = site.iteration;
  record.task_id = site.task_id;
  record.workloads = static_cast<int64_t>(coverage.runs_merged);
  record.error = coverage.merged ? "" : coverage.error;
  if (coverage.merged) {
    record.data_path = kept.data_path;
    record.annotated_dir = kept.annotated_dir;
    record.data_file_id = kept.data_file_id;
    record.total = counts_record(coverage.summary.total);
    for (const auto& m : coverage.summary.modules) record.modules.push_back(counts_record(m));
  }
  record.created_at_ms = now_ms;
  recorder.with_store([&](store::Store& s) { s.record_task_coverage(record); });
  std::string line = "coverage " + coverage_line(coverage);
  if (coverage.merged && !coverage.runs_without_data.empty())
    line += "; " + std::to_string(coverage.runs_without_data.size()) +
            " simulation(s) wrote no coverage.dat";
  recorder.message(site.iteration, site.task_id, line);
}

}  // namespace mace::run

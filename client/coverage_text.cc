#include "coverage_text.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "capnp_text.h"

namespace mace::client {

namespace {

void write_counts(JsonWriter& w, api::ModuleCoverage::Reader m) {
  w.field("lines_covered", m.getLinesCovered()).field("lines_total", m.getLinesTotal());
  w.field("points_covered", m.getPointsCovered()).field("points_total", m.getPointsTotal());
}

// "812 of 1040 (78.1%)"
std::string covered_text(uint64_t part, uint64_t whole) {
  std::string s = std::to_string(part) + " of " + std::to_string(whole);
  if (whole == 0) return s;
  char pct[24];
  std::snprintf(pct, sizeof pct, " (%.1f%%)", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return s + pct;
}

}  // namespace

void write_json(JsonWriter& w, api::TaskCoverage::Reader c) {
  w.begin_object();
  w.field("iteration", c.getIteration()).field("task_id", text(c.getTaskId()));
  w.field("workloads", c.getWorkloads()).field("error", text(c.getError()));
  write_counts(w, c.getTotal());
  w.key("modules").begin_array();
  for (auto m : c.getModules()) {
    w.begin_object().field("module", text(m.getModule()));
    write_counts(w, m);
    w.end_object();
  }
  w.end_array();
  w.field("data_path", text(c.getDataPath())).field("annotated_dir", text(c.getAnnotatedDir()));
  w.field("data_file_id", c.getDataFileId());
  w.end_object();
}


std::string human_coverage(api::TaskCoverage::Reader c) {
  std::ostringstream out;
  out << "  iter" << c.getIteration() << " " << text(c.getTaskId()) << ": ";
  if (c.getError().size()) {
    out << "none: " << text(c.getError()) << "\n";
    return out.str();
  }
  out << "lines " << covered_text(c.getTotal().getLinesCovered(), c.getTotal().getLinesTotal())
      << " over " << c.getWorkloads() << " workload" << (c.getWorkloads() == 1 ? "" : "s") << "\n";
  std::size_t width = 0;
  for (auto m : c.getModules()) width = std::max<std::size_t>(width, m.getModule().size());
  for (auto m : c.getModules())
    out << "    " << text(m.getModule()) << std::string(width - m.getModule().size() + 2, ' ')
        << "lines " << covered_text(m.getLinesCovered(), m.getLinesTotal()) << "\n";
  out << "    merged:    " << text(c.getDataPath()) << "\n";
  out << "    annotated: " << text(c.getAnnotatedDir()) << "\n";
  return out.str();
}

}  // namespace mace::client

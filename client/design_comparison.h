#pragma once
// Designs side by side (`mace compare`): how their configurations differ, and for each
// gate workload each design's verdict and cycles with the change against the first.
// Plain data in, text, JSON or CSV out; the command (compare_command.cc) fills it from
// maced's answers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/design_configuration.h"
#include "core/tile_figures.h"

namespace mace::client {

struct ComparedResult {
  std::string workload;
  std::string verdict;                // none | pass | fail | timeout | maxcycles
  std::optional<int64_t> cycles;      // none when the transcript gave none
  std::optional<int64_t> verdict_time;
  double wall_s = 0;
  std::vector<TileFigures> tiles;  // in a run with monitors; empty otherwise
};

struct ComparedDesign {
  std::string run_id;
  std::string task_id;
  int64_t iteration = 0;
  std::string run_state;
  std::optional<DesignConfiguration> configuration;  // none for a task without one
  std::string build;  // its figures in words (build_figures_text); "" when not measured
  // The same as numbers, none where not measured.
  std::optional<double> build_wall_s;
  std::optional<double> build_cpu_s;
  std::optional<int64_t> build_peak_rss_bytes;
  // Its caches' area per tile in the area model's units (core/cache_area.h); none without
  // a configuration.
  std::optional<double> area;
  std::vector<std::string> gate_workloads;  // the run's, in order
  std::vector<ComparedResult> results;      // as simulated, in order
};

struct Comparison {
  std::vector<ComparedDesign> designs;
  // Items whose values are not the same in every design that has a configuration.
  std::vector<ConfigurationDifference> differences;
  // Every design's gate workloads, in the order they first appear.
  std::vector<std::string> workloads;
};

Comparison compare_designs(std::vector<ComparedDesign> designs);

// The change of `value` against `base`, in percent; none unless both are known and base
// is not zero.
std::optional<double> change_percent(std::optional<int64_t> base, std::optional<int64_t> value);

// A design's result for a workload; none when it did not simulate it.
const ComparedResult* result_of(const ComparedDesign& design, const std::string& workload);

// "RUN:TASK" as people name it (a design's label in every output).
std::string design_label(const ComparedDesign& design);

std::string comparison_text(const Comparison& comparison);
std::string comparison_json(const Comparison& comparison);
// One row per design and workload: run_id, task_id, iteration, workload, verdict, cycles,
// change_percent, area, then one column per differing configuration item.
std::string comparison_csv(const Comparison& comparison);

}  // namespace mace::client

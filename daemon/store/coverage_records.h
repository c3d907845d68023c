#pragma once
// A task's line coverage as the store keeps it (store/coverage_records.cc).

#include <cstdint>
#include <string>
#include <vector>

namespace mace::store {

// Line coverage of one part of a task's design (openpiton/coverage.h): source lines and
// Verilator's coverage points, covered of total.
struct CoverageCountsRecord {
  std::string module;  // a top-level module of the design; "" for the whole design
  int64_t lines_covered = 0;
  int64_t lines_total = 0;
  int64_t points_covered = 0;
  int64_t points_total = 0;
  bool operator==(const CoverageCountsRecord&) const = default;
};

// A task's coverage merged over its workloads (a spec with coverage, REQ-EXEC-6).
struct TaskCoverageRecord {
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  int64_t workloads = 0;  // simulations whose coverage was merged
  std::string error;      // why there is none; "" when merged
  // Where the merged coverage.dat and the annotated source directory are kept with the
  // run's evidence (maced's host); where they were made, when they could not be kept.
  std::string data_path;
  std::string annotated_dir;
  int64_t data_file_id = 0;  // the merged data's log_files row; 0: none
  CoverageCountsRecord total;
  std::vector<CoverageCountsRecord> modules;  // by module
  int64_t created_at_ms = 0;
  bool operator==(const TaskCoverageRecord&) const = default;
};

}  // namespace mace::store

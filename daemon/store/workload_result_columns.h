#pragma once
// The columns a simulated workload takes in the store (task_results and
// eval_resimulations alike), kWorkloadResultColumns in that order from `first`. For the
// files that implement Store.

#include <string>
#include <string_view>
#include <vector>

#include "core/enum_text.h"
#include "store/sqlite.h"
#include "store/stored_word.h"
#include "store/workload_result_record.h"

namespace mace::store {

inline constexpr const char* kWorkloadResultColumns =
    "ordinal, workload, verdict, returncode, run_dir, wall_s, verdict_time, cycles";
inline constexpr int kWorkloadResultColumnCount = 8;

// ", ?first, ?first+1, ..." for `count` parameters.
inline std::string numbered_parameters(int first, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += ", ?" + std::to_string(first + i);
  return out;
}

// "a, b, c" as {"a", "b", "c"}.
inline std::vector<std::string_view> split_columns(std::string_view columns) {
  std::vector<std::string_view> out;
  while (!columns.empty()) {
    const std::size_t comma = columns.find(", ");
    out.push_back(columns.substr(0, comma));
    columns = comma == std::string_view::npos ? std::string_view() : columns.substr(comma + 2);
  }
  return out;
}

inline Statement& bind_workload_result(Statement& stmt, int first, const WorkloadResultRecord& r) {
  return stmt.bind(first, r.ordinal)
      .bind(first + 1, r.workload)
      .bind(first + 2, to_string(r.verdict))
      .bind(first + 3, r.returncode)
      .bind(first + 4, r.run_dir)
      .bind(first + 5, r.wall_s)
      .bind(first + 6, r.verdict_time)
      .bind(first + 7, r.cycles);
}

inline WorkloadResultRecord read_workload_result(const Database& db, const Statement& stmt, int first) {
  WorkloadResultRecord r;
  r.ordinal = stmt.int64(first);
  r.workload = stmt.text(first + 1);
  r.verdict = parse_word<Verdict>(db, "verdict", stmt.text(first + 2));
  r.returncode = stmt.optional_int64(first + 3);
  r.run_dir = stmt.text(first + 4);
  r.wall_s = stmt.real(first + 5);
  r.verdict_time = stmt.optional_int64(first + 6);
  r.cycles = stmt.optional_int64(first + 7);
  return r;
}

}  // namespace mace::store

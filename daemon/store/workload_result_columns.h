#pragma once
// The columns a simulated workload takes in the store (task_results and
// eval_resimulations alike), in that order from `first`: ordinal, workload, verdict,
// returncode, run_dir, wall_s, verdict_time, cycles, error_line, excerpt. For the files
// that implement Store; the one list of them, so a new column is added here once.

#include <string>
#include <string_view>

#include "core/enum_text.h"
#include "store/sqlite.h"
#include "store/stored_word.h"
#include "store/workload_result_record.h"

namespace mace::store {

inline constexpr const char* kWorkloadResultColumns[] = {
    "ordinal", "workload", "verdict", "returncode", "run_dir", "wall_s",
    "verdict_time", "cycles", "error_line", "excerpt"};
inline constexpr int kWorkloadResultColumnCount =
    static_cast<int>(sizeof(kWorkloadResultColumns) / sizeof(kWorkloadResultColumns[0]));

// "r.ordinal, r.workload, ..." for `prefix` "r.".
inline std::string workload_result_column_list(std::string_view prefix = "") {
  std::string out;
  for (const char* c : kWorkloadResultColumns) {
    if (!out.empty()) out += ", ";
    out += std::string(prefix) + c;
  }
  return out;
}

// "?first, ?first+1, ..." for the columns' values.
inline std::string workload_result_placeholders(int first) {
  std::string out;
  for (int i = 0; i < kWorkloadResultColumnCount; ++i) {
    if (!out.empty()) out += ", ";
    out += "?" + std::to_string(first + i);
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
      .bind(first + 7, r.cycles)
      .bind(first + 8, r.error_line)
      .bind(first + 9, r.excerpt);
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
  r.error_line = stmt.text(first + 8);
  r.excerpt = stmt.text(first + 9);
  return r;
}

}  // namespace mace::store

#pragma once
// The six columns a simulated workload takes in the store (task_results and
// eval_resimulations alike): ordinal, workload, verdict, returncode, run_dir, wall_s, in
// that order from `first`. For the files that implement Store.

#include "core/enum_text.h"
#include "store/sqlite.h"
#include "store/stored_word.h"
#include "store/workload_result_record.h"

namespace mace::store {

inline Statement& bind_workload_result(Statement& stmt, int first, const WorkloadResultRecord& r) {
  return stmt.bind(first, r.ordinal)
      .bind(first + 1, r.workload)
      .bind(first + 2, to_string(r.verdict))
      .bind(first + 3, r.returncode)
      .bind(first + 4, r.run_dir)
      .bind(first + 5, r.wall_s);
}

inline WorkloadResultRecord read_workload_result(const Database& db, const Statement& stmt, int first) {
  WorkloadResultRecord r;
  r.ordinal = stmt.int64(first);
  r.workload = stmt.text(first + 1);
  r.verdict = parse_word<Verdict>(db, "verdict", stmt.text(first + 2));
  r.returncode = stmt.optional_int64(first + 3);
  r.run_dir = stmt.text(first + 4);
  r.wall_s = stmt.real(first + 5);
  return r;
}

}  // namespace mace::store

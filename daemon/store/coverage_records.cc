// Each task's line coverage merged over its workloads (migration 16), with its counts for
// the whole design and each of its top-level modules.

#include <map>
#include <tuple>

#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {

void Store::record_task_coverage(const TaskCoverageRecord& c) {
  Transaction txn(*db_);
  for (const char* table : {"task_coverage", "task_coverage_modules"})
    db_->prepare(std::string("DELETE FROM ") + table +
                 " WHERE run_id = ?1 AND iteration = ?2 AND task_id = ?3")
        .bind(1, c.run_id)
        .bind(2, c.iteration)
        .bind(3, c.task_id)
        .run();
  db_->prepare(R"sql(
INSERT INTO task_coverage (run_id, iteration, task_id, workloads, error, data_path, annotated_dir,
                           data_file_id, created_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
)sql")
      .bind(1, c.run_id)
      .bind(2, c.iteration)
      .bind(3, c.task_id)
      .bind(4, c.workloads)
      .bind(5, c.error)
      .bind(6, c.data_path)
      .bind(7, c.annotated_dir)
      .bind(8, c.data_file_id)
      .bind(9, c.created_at_ms)
      .run();
  auto insert = db_->prepare(R"sql(
INSERT INTO task_coverage_modules (run_id, iteration, task_id, module, lines_covered, lines_total,
                                   points_covered, points_total)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
)sql");
  auto add = [&](const CoverageCountsRecord& m) {
    insert.bind(1, c.run_id)
        .bind(2, c.iteration)
        .bind(3, c.task_id)
        .bind(4, m.module)
        .bind(5, m.lines_covered)
        .bind(6, m.lines_total)
        .bind(7, m.points_covered)
        .bind(8, m.points_total);
    insert.run();
    insert.reset();
  };
  if (c.error.empty()) {
    add(CoverageCountsRecord{"", c.total.lines_covered, c.total.lines_total, c.total.points_covered,
                             c.total.points_total});
    for (const auto& m : c.modules)
      if (!m.module.empty()) add(m);
  }
  txn.commit();
}

std::vector<TaskCoverageRecord> Store::task_coverage(const std::string& run_id) const {
  std::vector<TaskCoverageRecord> out;
  std::map<std::tuple<int64_t, std::string>, size_t> index;
  auto tasks = db_->prepare(R"sql(
SELECT iteration, task_id, workloads, error, data_path, annotated_dir, data_file_id, created_at_ms
FROM task_coverage WHERE run_id = ?1 ORDER BY iteration, created_at_ms, task_id
)sql");
  tasks.bind(1, run_id);
  while (tasks.step()) {
    TaskCoverageRecord c;
    c.run_id = run_id;
    c.iteration = tasks.int64(0);
    c.task_id = tasks.text(1);
    c.workloads = tasks.int64(2);
    c.error = tasks.text(3);
    c.data_path = tasks.text(4);
    c.annotated_dir = tasks.text(5);
    c.data_file_id = tasks.int64(6);
    c.created_at_ms = tasks.int64(7);
    index[{c.iteration, c.task_id}] = out.size();
    out.push_back(std::move(c));
  }
  auto modules = db_->prepare(R"sql(
SELECT iteration, task_id, module, lines_covered, lines_total, points_covered, points_total
FROM task_coverage_modules WHERE run_id = ?1 ORDER BY iteration, task_id, module
)sql");
  modules.bind(1, run_id);
  while (modules.step()) {
    auto it = index.find({modules.int64(0), modules.text(1)});
    if (it == index.end()) continue;
    CoverageCountsRecord m{modules.text(2), modules.int64(3), modules.int64(4), modules.int64(5),
                           modules.int64(6)};
    TaskCoverageRecord& c = out[it->second];
    if (m.module.empty())
      c.total = std::move(m);
    else
      c.modules.push_back(std::move(m));
  }
  return out;
}

}  // namespace mace::store

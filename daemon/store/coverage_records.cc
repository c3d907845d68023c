// Each task's line coverage merged over its workloads (migration 16), with its counts for
// the whole design and each of its top-level modules.

#include <map>
#include <tuple>

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {
namespace {

// The task a coverage row is of: the first columns of both tables.
const auto kCoverageKeyColumns =
    columns(column("run_id", &TaskCoverageRecord::run_id), column("iteration", &TaskCoverageRecord::iteration),
            column("task_id", &TaskCoverageRecord::task_id));
const auto kCoverageColumns = columns(
    column("workloads", &TaskCoverageRecord::workloads), column("error", &TaskCoverageRecord::error),
    column("data_path", &TaskCoverageRecord::data_path),
    column("annotated_dir", &TaskCoverageRecord::annotated_dir),
    column("data_file_id", &TaskCoverageRecord::data_file_id),
    column("created_at_ms", &TaskCoverageRecord::created_at_ms));
// task_coverage_modules: the whole design's counts under module "", then each module's.
const auto kModuleColumns = columns(
    column("module", &CoverageCountsRecord::module), column("lines_covered", &CoverageCountsRecord::lines_covered),
    column("lines_total", &CoverageCountsRecord::lines_total),
    column("points_covered", &CoverageCountsRecord::points_covered),
    column("points_total", &CoverageCountsRecord::points_total));

constexpr int kKeys = kCoverageKeyColumns.count;

}  // namespace

void Store::record_task_coverage(const TaskCoverageRecord& c) {
  Transaction txn(*db_);
  for (const char* table : {"task_coverage", "task_coverage_modules"}) {
    auto remove = db_->prepare(std::string("DELETE FROM ") + table +
                               " WHERE run_id = ?1 AND iteration = ?2 AND task_id = ?3");
    kCoverageKeyColumns.bind(remove, 1, c).run();
  }
  auto task = db_->prepare("INSERT INTO task_coverage (" + kCoverageKeyColumns.names() + ", " +
                           kCoverageColumns.names() + ") VALUES (" + kCoverageKeyColumns.parameters() +
                           ", " + kCoverageColumns.parameters(kKeys + 1) + ")");
  kCoverageColumns.bind(kCoverageKeyColumns.bind(task, 1, c), kKeys + 1, c).run();
  auto insert = db_->prepare("INSERT INTO task_coverage_modules (" + kCoverageKeyColumns.names() + ", " +
                             kModuleColumns.names() + ") VALUES (" + kCoverageKeyColumns.parameters() +
                             ", " + kModuleColumns.parameters(kKeys + 1) + ")");
  auto add = [&](const CoverageCountsRecord& m) {
    kModuleColumns.bind(kCoverageKeyColumns.bind(insert, 1, c), kKeys + 1, m).run();
    insert.reset();
  };
  if (c.error.empty()) {
    CoverageCountsRecord whole = c.total;
    whole.module = "";
    add(whole);
    for (const auto& m : c.modules)
      if (!m.module.empty()) add(m);
  }
  txn.commit();
}

std::vector<TaskCoverageRecord> Store::task_coverage(const std::string& run_id) const {
  std::vector<TaskCoverageRecord> out;
  std::map<std::tuple<int64_t, std::string>, size_t> index;
  auto tasks = db_->prepare("SELECT " + kCoverageKeyColumns.names() + ", " + kCoverageColumns.names() +
                            " FROM task_coverage WHERE run_id = ?1 ORDER BY iteration, created_at_ms, task_id");
  tasks.bind(1, run_id);
  while (tasks.step()) {
    TaskCoverageRecord c = kCoverageKeyColumns.read(*db_, tasks);
    kCoverageColumns.read(*db_, tasks, kKeys, c);
    index[{c.iteration, c.task_id}] = out.size();
    out.push_back(std::move(c));
  }
  auto modules = db_->prepare("SELECT iteration, task_id, " + kModuleColumns.names() +
                              " FROM task_coverage_modules WHERE run_id = ?1 ORDER BY iteration, task_id, module");
  modules.bind(1, run_id);
  while (modules.step()) {
    auto it = index.find({modules.int64(0), modules.text(1)});
    if (it == index.end()) continue;
    CoverageCountsRecord m = kModuleColumns.read(*db_, modules, 2);
    TaskCoverageRecord& c = out[it->second];
    if (m.module.empty())
      c.total = std::move(m);
    else
      c.modules.push_back(std::move(m));
  }
  return out;
}

}  // namespace mace::store

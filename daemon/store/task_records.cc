// Iterations and their tasks with each task's gate workload results (migration 1 and
// later): upserted as the loop goes, read back per run.
#include <algorithm>
#include <stdexcept>

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_values.h"
#include "store/workload_result_columns.h"

namespace mace::store {
namespace {

// An iteration as read back; its start and end are each written by an upsert of their own
// (record_iteration_start, record_iteration_end), NULL until then and read as 0.
const auto kIterationColumns = columns(
    column("run_id", &IterationRecord::run_id), column("iteration", &IterationRecord::iteration),
    column("started_at_ms", &IterationRecord::started_at_ms),
    column("finished_at_ms", &IterationRecord::finished_at_ms), column("cost_usd", &IterationRecord::cost_usd),
    column("wall_s", &IterationRecord::wall_s), column("passed", &IterationRecord::passed),
    column("plan_text", &IterationRecord::plan_text));

// The columns of tasks that a TaskRecord sets; the first three are its key.
const auto kTaskColumns = columns(
    column("run_id", &TaskRecord::run_id), column("iteration", &TaskRecord::iteration),
    column("task_id", &TaskRecord::task_id), column("kind", &TaskRecord::kind),
    column("instruction", &TaskRecord::instruction), column("deps_json", &TaskRecord::deps, json_list),
    column("checkout", &TaskRecord::checkout, null_when_none),
    column("core", &TaskRecord::core, null_when_none),
    column("mesh_x", &TaskRecord::mesh_x, null_when_none),
    column("mesh_y", &TaskRecord::mesh_y, null_when_none),
    column("network", &TaskRecord::network, null_when_none),
    column("l1i_size", &TaskRecord::l1i_size, null_when_none),
    column("l1i_assoc", &TaskRecord::l1i_assoc, null_when_none),
    column("l1d_size", &TaskRecord::l1d_size, null_when_none),
    column("l1d_assoc", &TaskRecord::l1d_assoc, null_when_none),
    column("l15_size", &TaskRecord::l15_size, null_when_none),
    column("l15_assoc", &TaskRecord::l15_assoc, null_when_none),
    column("l2_size", &TaskRecord::l2_size, null_when_none),
    column("l2_assoc", &TaskRecord::l2_assoc, null_when_none),
    column("rtl_defines", &TaskRecord::rtl_defines, sorted_words),
    column("rtl_edits", &TaskRecord::rtl_edits), column("rtl_edits_hash", &TaskRecord::rtl_edits_hash),
    column("extra_flags", &TaskRecord::extra_flags, words),
    column("build_id", &TaskRecord::build_id, null_when_none),
    column("build_outcome", &TaskRecord::build_outcome), column("build_reused", &TaskRecord::build_reused),
    column("failure_reason", &TaskRecord::failure_reason), column("stage", &TaskRecord::stage),
    column("passed", &TaskRecord::passed),
    column("started_at_ms", &TaskRecord::started_at_ms, null_when_none),
    column("finished_at_ms", &TaskRecord::finished_at_ms, null_when_none),
    column("build_source", &TaskRecord::build_source), column("build_origin", &TaskRecord::build_origin),
    column("waiting_for", &TaskRecord::waiting_for), column("build_wall_s", &TaskRecord::build_wall_s),
    column("build_cpu_s", &TaskRecord::build_cpu_s),
    column("build_peak_rss_bytes", &TaskRecord::build_peak_rss_bytes),
    column("build_argv_json", &TaskRecord::build_argv, json_list),
    column("build_environment_json", &TaskRecord::build_environment, json_list));

const std::string kUpsertTask = "INSERT INTO tasks (" + kTaskColumns.names() + ") VALUES (" +
                                kTaskColumns.parameters() +
                                ") ON CONFLICT (run_id, iteration, task_id) DO UPDATE SET " +
                                kTaskColumns.updates_from_excluded(3);

// Every task of a run with its results, one row per result (or one with NULL result
// columns for a task without results): t.id, then kTaskColumns, then the result's.
const std::string kSelectTasks = "SELECT t.id, " + kTaskColumns.names("t") + ", " +
                                 kWorkloadResultColumns.names("r") + R"sql(
FROM tasks t LEFT JOIN task_results r ON r.task_row = t.id
WHERE t.run_id = ?1 ORDER BY t.iteration, t.id, r.ordinal)sql";

// An iteration's start and its end, each written by an upsert of its own.
const auto kIterationStartColumns =
    columns(column("run_id", &IterationRecord::run_id), column("iteration", &IterationRecord::iteration),
            column("started_at_ms", &IterationRecord::started_at_ms, null_when_none),
            column("plan_text", &IterationRecord::plan_text));
const auto kIterationEndColumns =
    columns(column("run_id", &IterationRecord::run_id), column("iteration", &IterationRecord::iteration),
            column("finished_at_ms", &IterationRecord::finished_at_ms, null_when_none),
            column("cost_usd", &IterationRecord::cost_usd), column("wall_s", &IterationRecord::wall_s),
            column("passed", &IterationRecord::passed));

template <typename Listed>
std::string upsert_iteration_sql(const Listed& list) {
  return "INSERT INTO iterations (" + list.names() + ") VALUES (" + list.parameters() +
         ") ON CONFLICT (run_id, iteration) DO UPDATE SET " + list.updates_from_excluded(2);
}

}  // namespace

void Store::record_iteration_start(const std::string& run_id, int64_t iteration,
                                   int64_t started_at_ms, const std::string& plan_text) {
  auto stmt = db_->prepare(upsert_iteration_sql(kIterationStartColumns));
  kIterationStartColumns
      .bind(stmt, 1, {.run_id = run_id, .iteration = iteration, .started_at_ms = started_at_ms,
                      .plan_text = plan_text})
      .run();
}

void Store::record_iteration_end(const std::string& run_id, int64_t iteration,
                                 int64_t finished_at_ms, double cost_usd, double wall_s,
                                 bool passed) {
  auto stmt = db_->prepare(upsert_iteration_sql(kIterationEndColumns));
  kIterationEndColumns
      .bind(stmt, 1, {.run_id = run_id, .iteration = iteration, .finished_at_ms = finished_at_ms,
                      .cost_usd = cost_usd, .wall_s = wall_s, .passed = passed})
      .run();
}

std::vector<IterationRecord> Store::iterations(const std::string& run_id) const {
  auto stmt = db_->prepare(kIterationColumns.select_sql("iterations", "WHERE run_id = ?1 ORDER BY iteration"));
  return kIterationColumns.read_all(*db_, stmt.bind(1, run_id));
}

int64_t Store::upsert_task(const TaskRecord& t) {
  Transaction txn(*db_);
  auto upsert = db_->prepare(kUpsertTask);
  kTaskColumns.bind(upsert, 1, t);
  upsert.run();

  // last_insert_rowid is not set when the upsert updated, so look the row up.
  auto find = db_->prepare(
      "SELECT id FROM tasks WHERE run_id = ?1 AND iteration = ?2 AND task_id = ?3");
  find.bind(1, t.run_id).bind(2, t.iteration).bind(3, t.task_id);
  if (!find.step())
    throw std::runtime_error(db_->path().string() + ": task " + t.task_id +
                             " vanished after upsert");
  int64_t row = find.int64(0);

  db_->prepare("DELETE FROM task_results WHERE task_row = ?1").bind(1, row).run();
  auto insert = db_->prepare("INSERT INTO task_results (task_row, " + kWorkloadResultColumns.names() +
                             ") VALUES (?1, " + kWorkloadResultColumns.parameters(2) + ")");
  for (auto& r : t.results) {
    kWorkloadResultColumns.bind(insert.bind(1, row), 2, r);
    insert.run();
    insert.reset();
  }
  txn.commit();
  return row;
}

namespace {

std::pair<int64_t*, int64_t*> cache_columns(TaskRecord& t, std::string_view name) {
  if (name == "l1i") return {&t.l1i_size, &t.l1i_assoc};
  if (name == "l1d") return {&t.l1d_size, &t.l1d_assoc};
  if (name == "l15") return {&t.l15_size, &t.l15_assoc};
  if (name == "l2") return {&t.l2_size, &t.l2_assoc};
  throw std::invalid_argument("no cache named \"" + std::string(name) + "\"");
}

}  // namespace

std::pair<int64_t, int64_t> TaskRecord::cache(std::string_view name) const {
  auto [size, associativity] = cache_columns(const_cast<TaskRecord&>(*this), name);
  return {*size, *associativity};
}

void TaskRecord::set_cache(std::string_view name, int64_t size, int64_t associativity) {
  auto columns = cache_columns(*this, name);
  *columns.first = size;
  *columns.second = associativity;
}

std::vector<TaskRecord> Store::tasks(const std::string& run_id) const {
  auto stmt = db_->prepare(kSelectTasks);
  stmt.bind(1, run_id);
  std::vector<TaskRecord> out;
  constexpr int r0 = 1 + kTaskColumns.count;  // the first result column
  while (stmt.step()) {
    int64_t row = stmt.int64(0);
    if (out.empty() || out.back().row_id != row) {
      TaskRecord t;
      try {
        kTaskColumns.read(*db_, stmt, 1, t);
      } catch (const std::runtime_error& e) {  // name the task whose value cannot be read
        throw std::runtime_error(std::string(e.what()) + " (task " + stmt.text(1) + "/" +
                                 stmt.text(3) + ")");
      }
      t.row_id = row;
      out.push_back(std::move(t));
    }
    if (stmt.is_null(r0)) continue;  // a task without results
    out.back().results.push_back(kWorkloadResultColumns.read(*db_, stmt, r0));
  }
  return out;
}

}  // namespace mace::store

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

// The columns of tasks that a TaskRecord sets, in bind order (?1, ?2, ...); the first
// three are its key.
constexpr const char* kTaskColumns[] = {
    "run_id",      "iteration",  "task_id",        "kind",         "instruction",
    "deps_json",   "checkout",   "core",           "mesh_x",       "mesh_y",
    "network",     "l1i_size",   "l1i_assoc",      "l1d_size",     "l1d_assoc",
    "l15_size",    "l15_assoc",  "l2_size",        "l2_assoc",     "rtl_defines",
    "rtl_edits",   "rtl_edits_hash", "extra_flags", "build_id",    "build_outcome",
    "build_reused", "failure_reason", "stage",      "passed",       "started_at_ms",
    "finished_at_ms", "build_source", "build_origin", "waiting_for", "build_wall_s",
    "build_cpu_s", "build_peak_rss_bytes",
};
constexpr int kTaskKeyColumns = 3;

std::string upsert_task_sql() {
  std::string columns, values, updates;
  int index = 1;
  for (const char* c : kTaskColumns) {
    if (index > 1) {
      columns += ", ";
      values += ", ";
    }
    columns += c;
    values += "?" + std::to_string(index);
    if (index > kTaskKeyColumns) {
      if (!updates.empty()) updates += ", ";
      updates += std::string(c) + " = excluded." + c;
    }
    ++index;
  }
  return "INSERT INTO tasks (" + columns + ") VALUES (" + values +
         ") ON CONFLICT (run_id, iteration, task_id) DO UPDATE SET " + updates;
}

// Every task of a run with its results, one row per result (or one with NULL result
// columns for a task without results): t.id, then kTaskColumns, then the result's.
std::string select_tasks_sql() {
  std::string sql = "SELECT t.id";
  for (const char* c : kTaskColumns) sql += std::string(", t.") + c;
  sql += ", " + workload_result_column_list("r.") + R"sql(
FROM tasks t LEFT JOIN task_results r ON r.task_row = t.id
WHERE t.run_id = ?1 ORDER BY t.iteration, t.id, r.ordinal)sql";
  return sql;
}

constexpr int kTaskColumnCount = static_cast<int>(sizeof(kTaskColumns) / sizeof(kTaskColumns[0]));

}  // namespace

void Store::record_iteration_start(const std::string& run_id, int64_t iteration,
                                   int64_t started_at_ms, const std::string& plan_text) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO iterations (run_id, iteration, started_at_ms, plan_text) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (run_id, iteration) DO UPDATE SET
  started_at_ms = excluded.started_at_ms, plan_text = excluded.plan_text
)sql");
  stmt.bind(1, run_id).bind(2, iteration).bind(3, unless_zero(started_at_ms)).bind(4, plan_text);
  stmt.run();
}

void Store::record_iteration_end(const std::string& run_id, int64_t iteration,
                                 int64_t finished_at_ms, double cost_usd, double wall_s,
                                 bool passed) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO iterations (run_id, iteration, finished_at_ms, cost_usd, wall_s, passed)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (run_id, iteration) DO UPDATE SET
  finished_at_ms = excluded.finished_at_ms, cost_usd = excluded.cost_usd,
  wall_s = excluded.wall_s, passed = excluded.passed
)sql");
  stmt.bind(1, run_id)
      .bind(2, iteration)
      .bind(3, unless_zero(finished_at_ms))
      .bind(4, cost_usd)
      .bind(5, wall_s)
      .bind(6, passed);
  stmt.run();
}

std::vector<IterationRecord> Store::iterations(const std::string& run_id) const {
  auto stmt = db_->prepare("SELECT " + kIterationColumns.names() +
                           " FROM iterations WHERE run_id = ?1 ORDER BY iteration");
  stmt.bind(1, run_id);
  std::vector<IterationRecord> out;
  while (stmt.step()) out.push_back(kIterationColumns.read(*db_, stmt));
  return out;
}

int64_t Store::upsert_task(const TaskRecord& t) {
  // Before the transaction, so a bad list throws before anything is written.
  std::vector<std::string> defines = t.rtl_defines;
  std::sort(defines.begin(), defines.end());
  std::string rtl_defines = join_words("rtl_defines", defines);
  std::string extra_flags = join_words("extra_flags", t.extra_flags);

  Transaction txn(*db_);
  auto upsert = db_->prepare(upsert_task_sql());
  upsert.bind(1, t.run_id)
      .bind(2, t.iteration)
      .bind(3, t.task_id)
      .bind(4, to_string(t.kind))
      .bind(5, t.instruction)
      .bind(6, strings_to_json(t.deps))
      .bind(7, unless_empty(t.checkout))
      .bind(8, unless_empty(t.core))
      .bind(9, unless_zero(t.mesh_x))
      .bind(10, unless_zero(t.mesh_y))
      .bind(11, unless_empty(t.network))
      .bind(12, unless_zero(t.l1i_size))
      .bind(13, unless_zero(t.l1i_assoc))
      .bind(14, unless_zero(t.l1d_size))
      .bind(15, unless_zero(t.l1d_assoc))
      .bind(16, unless_zero(t.l15_size))
      .bind(17, unless_zero(t.l15_assoc))
      .bind(18, unless_zero(t.l2_size))
      .bind(19, unless_zero(t.l2_assoc))
      .bind(20, rtl_defines)
      .bind(21, t.rtl_edits)
      .bind(22, t.rtl_edits_hash)
      .bind(23, extra_flags)
      .bind(24, unless_empty(t.build_id))
      .bind(25, to_string(t.build_outcome))
      .bind(26, t.build_reused)
      .bind(27, to_string(t.failure_reason))
      .bind(28, to_string(t.stage))
      .bind(29, t.passed)
      .bind(30, unless_zero(t.started_at_ms))
      .bind(31, unless_zero(t.finished_at_ms))
      .bind(32, t.build_source)
      .bind(33, t.build_origin)
      .bind(34, t.waiting_for)
      .bind(35, t.build_wall_s)
      .bind(36, t.build_cpu_s)
      .bind(37, t.build_peak_rss_bytes);
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
  auto insert = db_->prepare("INSERT INTO task_results (task_row, " + workload_result_column_list() +
                             ") VALUES (?1, " + workload_result_placeholders(2) + ")");
  for (auto& r : t.results) {
    bind_workload_result(insert.bind(1, row), 2, r);
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
  auto stmt = db_->prepare(select_tasks_sql());
  stmt.bind(1, run_id);
  std::vector<TaskRecord> out;
  constexpr int r0 = 1 + kTaskColumnCount;  // the first result column
  while (stmt.step()) {
    int64_t row = stmt.int64(0);
    if (out.empty() || out.back().row_id != row) {
      TaskRecord t;
      t.row_id = row;
      t.run_id = stmt.text(1);
      t.iteration = stmt.int64(2);
      t.task_id = stmt.text(3);
      t.kind = parse_word<TaskKind>(*db_, "task kind", stmt.text(4));
      t.instruction = stmt.text(5);
      t.deps = strings_from_json(
          *db_, "task " + t.run_id + "/" + t.task_id + ": deps_json", stmt.text(6));
      t.checkout = stmt.text(7);
      t.core = stmt.text(8);
      t.mesh_x = stmt.int64(9);
      t.mesh_y = stmt.int64(10);
      t.network = stmt.text(11);
      t.l1i_size = stmt.int64(12);
      t.l1i_assoc = stmt.int64(13);
      t.l1d_size = stmt.int64(14);
      t.l1d_assoc = stmt.int64(15);
      t.l15_size = stmt.int64(16);
      t.l15_assoc = stmt.int64(17);
      t.l2_size = stmt.int64(18);
      t.l2_assoc = stmt.int64(19);
      t.rtl_defines = split_words(stmt.text(20));
      t.rtl_edits = stmt.text(21);
      t.rtl_edits_hash = stmt.text(22);
      t.extra_flags = split_words(stmt.text(23));
      t.build_id = stmt.text(24);
      t.build_outcome = parse_word<BuildOutcome>(*db_, "build outcome", stmt.text(25));
      t.build_reused = stmt.int64(26) != 0;
      t.failure_reason = parse_word<FailureReason>(*db_, "failure reason", stmt.text(27));
      t.stage = parse_word<TaskStage>(*db_, "task stage", stmt.text(28));
      if (!stmt.is_null(29)) t.passed = stmt.int64(29) != 0;
      t.started_at_ms = stmt.int64(30);
      t.finished_at_ms = stmt.int64(31);
      t.build_source = stmt.text(32);
      t.build_origin = stmt.text(33);
      t.waiting_for = stmt.text(34);
      t.build_wall_s = stmt.optional_real(35);
      t.build_cpu_s = stmt.optional_real(36);
      t.build_peak_rss_bytes = stmt.optional_int64(37);
      out.push_back(std::move(t));
    }
    if (stmt.is_null(r0)) continue;  // a task without results
    out.back().results.push_back(read_workload_result(*db_, stmt, r0));
  }
  return out;
}

}  // namespace mace::store

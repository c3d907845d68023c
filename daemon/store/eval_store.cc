// Evaluation batches, jobs, runs and re-simulations (migrations 9 and 11).
#include <algorithm>

#include "store/sqlite.h"
#include "store/store.h"
#include "store/workload_result_columns.h"

namespace mace::store {
namespace {

constexpr const char* kBatchColumns =
    "id, suite_name, suite_json, request_json, submitted_by_uid, submitted_at_ms, state, "
    "finished_at_ms";

EvalBatchRecord read_batch(const Statement& s) {
  EvalBatchRecord b;
  b.id = s.text(0);
  b.suite_name = s.text(1);
  b.suite_json = s.text(2);
  b.request_json = s.text(3);
  b.submitted_by_uid = static_cast<uint32_t>(s.int64(4));
  b.submitted_at_ms = s.int64(5);
  b.state = s.text(6);
  b.finished_at_ms = s.int64(7);
  return b;
}

constexpr const char* kRunColumns =
    "run_id, batch_id, position, method, task_id, fault, repeat, seed, instructions_json, env_json";

EvalRunRecord read_eval_run(const Statement& s) {
  return {{s.text(1), s.int64(2), s.text(3), s.text(4), s.text(5), s.int64(6), s.int64(7)},
          s.text(0), s.text(8), s.text(9)};
}

}  // namespace

void Store::insert_eval_batch(const EvalBatchRecord& batch, const std::vector<EvalJobRecord>& jobs) {
  Transaction txn(*db_);
  auto stmt = db_->prepare(
      "INSERT INTO eval_batches (id, suite_name, suite_json, request_json, submitted_by_uid, "
      "submitted_at_ms, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  stmt.bind(1, batch.id)
      .bind(2, batch.suite_name)
      .bind(3, batch.suite_json)
      .bind(4, batch.request_json)
      .bind(5, batch.submitted_by_uid)
      .bind(6, batch.submitted_at_ms)
      .bind(7, batch.state);
  stmt.run();
  auto job_stmt = db_->prepare(
      "INSERT INTO eval_jobs (batch_id, position, method, task_id, fault, repeat, seed) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  for (const auto& job : jobs) {
    job_stmt.reset();
    job_stmt.bind(1, batch.id)
        .bind(2, job.position)
        .bind(3, job.method)
        .bind(4, job.task_id)
        .bind(5, job.fault)
        .bind(6, job.repeat)
        .bind(7, job.seed);
    job_stmt.run();
  }
  txn.commit();
}

std::optional<EvalBatchRecord> Store::find_eval_batch(const std::string& id) const {
  auto stmt = db_->prepare(std::string("SELECT ") + kBatchColumns + " FROM eval_batches WHERE id = ?1");
  stmt.bind(1, id);
  if (!stmt.step()) return std::nullopt;
  return read_batch(stmt);
}

std::vector<EvalBatchRecord> Store::eval_batches(const std::vector<std::string>& states) const {
  auto stmt = db_->prepare(std::string("SELECT ") + kBatchColumns +
                           " FROM eval_batches ORDER BY submitted_at_ms DESC, id DESC");
  std::vector<EvalBatchRecord> out;
  while (stmt.step()) {
    auto b = read_batch(stmt);
    if (states.empty() || std::find(states.begin(), states.end(), b.state) != states.end())
      out.push_back(std::move(b));
  }
  return out;
}

int64_t Store::count_pending_eval_jobs(uint32_t uid) const {
  auto stmt = db_->prepare(R"sql(
SELECT count(*) FROM eval_jobs j JOIN eval_batches b ON b.id = j.batch_id
WHERE b.submitted_by_uid = ?1 AND b.state = 'running' AND j.state = 'pending'
)sql");
  stmt.bind(1, uid);
  stmt.step();
  return stmt.int64(0);
}

std::vector<EvalJobRecord> Store::eval_jobs(const std::string& batch_id) const {
  auto stmt = db_->prepare(R"sql(
SELECT j.batch_id, j.position, j.method, j.task_id, j.fault, j.repeat, j.seed, j.state, j.attempts,
       coalesce((SELECT r.run_id FROM eval_runs r WHERE r.batch_id = j.batch_id AND
                 r.position = j.position ORDER BY r.rowid DESC LIMIT 1), '')
FROM eval_jobs j WHERE j.batch_id = ?1 ORDER BY j.position
)sql");
  stmt.bind(1, batch_id);
  std::vector<EvalJobRecord> out;
  while (stmt.step())
    out.push_back({{stmt.text(0), stmt.int64(1), stmt.text(2), stmt.text(3), stmt.text(4),
                    stmt.int64(5), stmt.int64(6)},
                   stmt.text(7), stmt.int64(8), stmt.text(9)});
  return out;
}

void Store::set_eval_job_state(const std::string& batch_id, int64_t position, const std::string& state) {
  auto stmt = db_->prepare("UPDATE eval_jobs SET state = ?3 WHERE batch_id = ?1 AND position = ?2");
  stmt.bind(1, batch_id).bind(2, position).bind(3, state);
  stmt.run();
}

void Store::set_eval_batch_state(const std::string& batch_id, const std::string& state, int64_t now_ms) {
  auto stmt = db_->prepare(
      "UPDATE eval_batches SET state = ?2, finished_at_ms = CASE WHEN ?2 = 'running' THEN 0 "
      "ELSE ?3 END WHERE id = ?1");
  stmt.bind(1, batch_id).bind(2, state).bind(3, now_ms);
  stmt.run();
}

void Store::insert_eval_run(const EvalRunRecord& run) {
  Transaction txn(*db_);
  auto stmt = db_->prepare(std::string("INSERT INTO eval_runs (") + kRunColumns +
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  stmt.bind(1, run.run_id)
      .bind(2, run.batch_id)
      .bind(3, run.position)
      .bind(4, run.method)
      .bind(5, run.task_id)
      .bind(6, run.fault)
      .bind(7, run.repeat)
      .bind(8, run.seed)
      .bind(9, run.instructions_json)
      .bind(10, run.env_json);
  stmt.run();
  auto count = db_->prepare(
      "UPDATE eval_jobs SET attempts = attempts + 1 WHERE batch_id = ?1 AND position = ?2");
  count.bind(1, run.batch_id).bind(2, run.position);
  count.run();
  txn.commit();
}

std::optional<EvalRunRecord> Store::find_eval_run(const std::string& run_id) const {
  auto stmt = db_->prepare(std::string("SELECT ") + kRunColumns + " FROM eval_runs WHERE run_id = ?1");
  stmt.bind(1, run_id);
  if (!stmt.step()) return std::nullopt;
  return read_eval_run(stmt);
}

std::vector<EvalRunRecord> Store::eval_runs(const std::string& batch_id) const {
  auto stmt = db_->prepare(std::string("SELECT ") + kRunColumns +
                           " FROM eval_runs WHERE batch_id = ?1 ORDER BY position, rowid");
  stmt.bind(1, batch_id);
  std::vector<EvalRunRecord> out;
  while (stmt.step()) out.push_back(read_eval_run(stmt));
  return out;
}

void Store::set_eval_run_env(const std::string& run_id, const std::string& env_json) {
  auto stmt = db_->prepare("UPDATE eval_runs SET env_json = ?2 WHERE run_id = ?1");
  stmt.bind(1, run_id).bind(2, env_json);
  stmt.run();
}

void Store::set_eval_resimulations(const std::string& run_id,
                                   const std::vector<EvalResimulationRecord>& designs) {
  Transaction txn(*db_);
  auto clear = db_->prepare("DELETE FROM eval_resimulations WHERE run_id = ?1");
  clear.bind(1, run_id);
  clear.run();
  auto insert = db_->prepare("INSERT INTO eval_resimulations (run_id, task_id, build_id, " +
                             workload_result_column_list() + ") VALUES (?1, ?2, ?3, " +
                             workload_result_placeholders(4) + ")");
  for (const auto& design : designs) {
    for (const auto& r : design.results) {
      bind_workload_result(insert.bind(1, run_id).bind(2, design.task_id).bind(3, design.build_id), 4, r);
      insert.run();
      insert.reset();
    }
  }
  txn.commit();
}

std::vector<EvalResimulationRecord> Store::eval_resimulations(const std::string& run_id) const {
  auto stmt = db_->prepare("SELECT task_id, build_id, " + workload_result_column_list() +
                           " FROM eval_resimulations WHERE run_id = ?1 ORDER BY task_id, ordinal");
  stmt.bind(1, run_id);
  std::vector<EvalResimulationRecord> out;
  while (stmt.step()) {
    if (out.empty() || out.back().task_id != stmt.text(0)) out.push_back({stmt.text(0), stmt.text(1), {}});
    out.back().results.push_back(read_workload_result(*db_, stmt, 2));
  }
  return out;
}

}  // namespace mace::store

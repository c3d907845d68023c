// Evaluation batches, jobs, runs and re-simulations (migrations 9 and 11).
#include <algorithm>

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "store/workload_result_columns.h"

namespace mace::store {
namespace {

const auto kBatchColumns = columns(
    column("id", &EvalBatchRecord::id), column("suite_name", &EvalBatchRecord::suite_name),
    column("suite_json", &EvalBatchRecord::suite_json), column("request_json", &EvalBatchRecord::request_json),
    column("submitted_by_uid", &EvalBatchRecord::submitted_by_uid),
    column("submitted_at_ms", &EvalBatchRecord::submitted_at_ms), column("state", &EvalBatchRecord::state),
    column("finished_at_ms", &EvalBatchRecord::finished_at_ms));

// What a job is, in eval_jobs and in every eval_runs row it made.
const auto kJobKeyColumns = columns(
    column("batch_id", &EvalJobKey::batch_id), column("position", &EvalJobKey::position),
    column("method", &EvalJobKey::method), column("task_id", &EvalJobKey::task_id),
    column("fault", &EvalJobKey::fault), column("repeat", &EvalJobKey::repeat), column("seed", &EvalJobKey::seed));
const auto kJobColumns = columns(column("state", &EvalJobRecord::state), column("attempts", &EvalJobRecord::attempts));
const auto kRunColumns =
    columns(column("run_id", &EvalRunRecord::run_id), column("instructions_json", &EvalRunRecord::instructions_json),
            column("env_json", &EvalRunRecord::env_json));

std::string select_runs(const std::string& rest) {
  return "SELECT " + kJobKeyColumns.names() + ", " + kRunColumns.names() + " FROM eval_runs " + rest;
}

EvalRunRecord read_eval_run(const Database& db, const Statement& stmt) {
  EvalRunRecord run;
  kJobKeyColumns.read(db, stmt, 0, run);
  kRunColumns.read(db, stmt, kJobKeyColumns.count, run);
  return run;
}

}  // namespace

void Store::insert_eval_batch(const EvalBatchRecord& batch, const std::vector<EvalJobRecord>& jobs) {
  Transaction txn(*db_);
  auto stmt = db_->prepare(kBatchColumns.insert_sql("eval_batches"));
  kBatchColumns.bind(stmt, 1, batch).run();
  auto job_stmt = db_->prepare("INSERT INTO eval_jobs (" + kJobKeyColumns.names() + ", " + kJobColumns.names() +
                               ") VALUES (" + kJobKeyColumns.parameters() + ", " +
                               kJobColumns.parameters(kJobKeyColumns.count + 1) + ")");
  for (EvalJobRecord job : jobs) {
    job.batch_id = batch.id;
    job_stmt.reset();
    kJobKeyColumns.bind(job_stmt, 1, job);
    kJobColumns.bind(job_stmt, kJobKeyColumns.count + 1, job).run();
  }
  txn.commit();
}

std::optional<EvalBatchRecord> Store::find_eval_batch(const std::string& id) const {
  auto stmt = db_->prepare(kBatchColumns.select_sql("eval_batches", "WHERE id = ?1"));
  return kBatchColumns.read_first(*db_, stmt.bind(1, id));
}

std::vector<EvalBatchRecord> Store::eval_batches(const std::vector<EvalBatchState>& states) const {
  auto stmt = db_->prepare(kBatchColumns.select_sql("eval_batches", "ORDER BY submitted_at_ms DESC, id DESC"));
  std::vector<EvalBatchRecord> out = kBatchColumns.read_all(*db_, stmt);
  std::erase_if(out, [&](const EvalBatchRecord& b) {
    return !states.empty() && std::find(states.begin(), states.end(), b.state) == states.end();
  });
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
  // Each job with its latest run, "" before the first.
  auto stmt = db_->prepare("SELECT " + kJobKeyColumns.names("j") + ", " + kJobColumns.names("j") +
                           ", coalesce((SELECT r.run_id FROM eval_runs r WHERE r.batch_id = j.batch_id AND "
                           "r.position = j.position ORDER BY r.rowid DESC LIMIT 1), '') "
                           "FROM eval_jobs j WHERE j.batch_id = ?1 ORDER BY j.position");
  stmt.bind(1, batch_id);
  std::vector<EvalJobRecord> out;
  while (stmt.step()) {
    EvalJobRecord& job = out.emplace_back();
    kJobKeyColumns.read(*db_, stmt, 0, job);
    kJobColumns.read(*db_, stmt, kJobKeyColumns.count, job);
    job.run_id = stmt.text(kJobKeyColumns.count + kJobColumns.count);
  }
  return out;
}

void Store::set_eval_job_state(const std::string& batch_id, int64_t position, EvalJobState state) {
  auto stmt = db_->prepare("UPDATE eval_jobs SET state = ?3 WHERE batch_id = ?1 AND position = ?2");
  stmt.bind(1, batch_id).bind(2, position).bind(3, to_string(state));
  stmt.run();
}

void Store::set_eval_batch_state(const std::string& batch_id, EvalBatchState state, int64_t now_ms) {
  auto stmt = db_->prepare(
      "UPDATE eval_batches SET state = ?2, finished_at_ms = CASE WHEN ?2 = 'running' THEN 0 "
      "ELSE ?3 END WHERE id = ?1");
  stmt.bind(1, batch_id).bind(2, to_string(state)).bind(3, now_ms);
  stmt.run();
}

void Store::insert_eval_run(const EvalRunRecord& run) {
  Transaction txn(*db_);
  auto stmt = db_->prepare("INSERT INTO eval_runs (" + kJobKeyColumns.names() + ", " + kRunColumns.names() +
                           ") VALUES (" + kJobKeyColumns.parameters() + ", " +
                           kRunColumns.parameters(kJobKeyColumns.count + 1) + ")");
  kJobKeyColumns.bind(stmt, 1, run);
  kRunColumns.bind(stmt, kJobKeyColumns.count + 1, run).run();
  auto count = db_->prepare(
      "UPDATE eval_jobs SET attempts = attempts + 1 WHERE batch_id = ?1 AND position = ?2");
  count.bind(1, run.batch_id).bind(2, run.position);
  count.run();
  txn.commit();
}

std::optional<EvalRunRecord> Store::find_eval_run(const std::string& run_id) const {
  auto stmt = db_->prepare(select_runs("WHERE run_id = ?1"));
  stmt.bind(1, run_id);
  if (!stmt.step()) return std::nullopt;
  return read_eval_run(*db_, stmt);
}

std::vector<EvalRunRecord> Store::eval_runs(const std::string& batch_id) const {
  auto stmt = db_->prepare(select_runs("WHERE batch_id = ?1 ORDER BY position, rowid"));
  stmt.bind(1, batch_id);
  std::vector<EvalRunRecord> out;
  while (stmt.step()) out.push_back(read_eval_run(*db_, stmt));
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
                             kWorkloadResultColumns.names() + ") VALUES (?1, ?2, ?3, " +
                             kWorkloadResultColumns.parameters(4) + ")");
  for (const auto& design : designs) {
    for (const auto& r : design.results) {
      kWorkloadResultColumns.bind(insert.bind(1, run_id).bind(2, design.task_id).bind(3, design.build_id), 4, r);
      insert.run();
      insert.reset();
    }
  }
  txn.commit();
}

std::vector<EvalResimulationRecord> Store::eval_resimulations(const std::string& run_id) const {
  auto stmt = db_->prepare("SELECT task_id, build_id, " + kWorkloadResultColumns.names() +
                           " FROM eval_resimulations WHERE run_id = ?1 ORDER BY task_id, ordinal");
  stmt.bind(1, run_id);
  std::vector<EvalResimulationRecord> out;
  while (stmt.step()) {
    if (out.empty() || out.back().task_id != stmt.text(0)) out.push_back({stmt.text(0), stmt.text(1), {}});
    out.back().results.push_back(kWorkloadResultColumns.read(*db_, stmt, 2));
  }
  return out;
}

}  // namespace mace::store

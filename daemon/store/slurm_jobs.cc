// The Slurm jobs maced submitted (migration 7): recorded before they are waited on, ended
// when seen to end, and read back at start to cancel what a maced that died left.

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {
namespace {

// What a submit records, and what its end adds.
const auto kSubmittedColumns = columns(
    column("job_id", &SlurmJobRecord::job_id), column("comment", &SlurmJobRecord::comment),
    column("run_id", &SlurmJobRecord::run_id), column("name", &SlurmJobRecord::name),
    column("node", &SlurmJobRecord::node), column("checkout", &SlurmJobRecord::checkout),
    column("purpose", &SlurmJobRecord::purpose),
    column("submitted_at_ms", &SlurmJobRecord::submitted_at_ms));
const auto kEndColumns = columns(column("ended_at_ms", &SlurmJobRecord::ended_at_ms),
                                 column("state", &SlurmJobRecord::state),
                                 column("detail", &SlurmJobRecord::detail));

std::vector<SlurmJobRecord> read_jobs(const Database& db, Statement& stmt) {
  std::vector<SlurmJobRecord> jobs;
  while (stmt.step()) {
    SlurmJobRecord& job = jobs.emplace_back();
    kSubmittedColumns.read(db, stmt, 0, job);
    kEndColumns.read(db, stmt, kSubmittedColumns.count, job);  // NULL until it ended: 0, ""
  }
  return jobs;
}

std::string select_jobs(const std::string& rest) {
  return "SELECT " + kSubmittedColumns.names() + ", " + kEndColumns.names() + " FROM slurm_jobs " + rest;
}

}  // namespace

void Store::record_slurm_job(const SlurmJobRecord& job) {
  auto stmt = db_->prepare(kSubmittedColumns.insert_sql("slurm_jobs", "INSERT OR IGNORE"));
  kSubmittedColumns.bind(stmt, 1, job).run();
}

bool Store::end_slurm_job(const std::string& job_id, const std::string& comment,
                          int64_t ended_at_ms, const std::string& state,
                          const std::string& detail) {
  auto stmt = db_->prepare("UPDATE slurm_jobs SET " + kEndColumns.assignments(3) +
                           " WHERE job_id = ?1 AND comment = ?2");
  SlurmJobRecord ended;
  ended.ended_at_ms = ended_at_ms;
  ended.state = state;
  ended.detail = detail;
  kEndColumns.bind(stmt.bind(1, job_id).bind(2, comment), 3, ended).run();
  return db_->changes() > 0;
}

std::vector<SlurmJobRecord> Store::unended_slurm_jobs() const {
  auto stmt = db_->prepare(select_jobs("WHERE ended_at_ms IS NULL ORDER BY submitted_at_ms, job_id"));
  return read_jobs(*db_, stmt);
}

std::vector<SlurmJobRecord> Store::slurm_jobs(const std::string& run_id) const {
  auto stmt = db_->prepare(select_jobs("WHERE run_id = ?1 ORDER BY submitted_at_ms, job_id"));
  stmt.bind(1, run_id);
  return read_jobs(*db_, stmt);
}

}  // namespace mace::store

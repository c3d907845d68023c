// The Slurm jobs maced submitted (migration 7): recorded before they are waited on, ended
// when seen to end, and read back at start to cancel what a maced that died left.

#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {
namespace {

constexpr const char* kColumns =
    "job_id, comment, run_id, name, node, checkout, purpose, submitted_at_ms, "
    "coalesce(ended_at_ms, 0), state, detail";

std::vector<SlurmJobRecord> read_jobs(Statement& stmt) {
  std::vector<SlurmJobRecord> jobs;
  while (stmt.step()) {
    jobs.push_back({stmt.text(0), stmt.text(1), stmt.text(2), stmt.text(3), stmt.text(4),
                    stmt.text(5), stmt.text(6), stmt.int64(7), stmt.int64(8), stmt.text(9),
                    stmt.text(10)});
  }
  return jobs;
}

}  // namespace

void Store::record_slurm_job(const SlurmJobRecord& job) {
  auto stmt = db_->prepare(R"sql(
INSERT OR IGNORE INTO slurm_jobs (job_id, comment, run_id, name, node, checkout, purpose,
                                  submitted_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
)sql");
  stmt.bind(1, job.job_id)
      .bind(2, job.comment)
      .bind(3, job.run_id)
      .bind(4, job.name)
      .bind(5, job.node)
      .bind(6, job.checkout)
      .bind(7, job.purpose)
      .bind(8, job.submitted_at_ms);
  stmt.run();
}

bool Store::end_slurm_job(const std::string& job_id, const std::string& comment,
                          int64_t ended_at_ms, const std::string& state,
                          const std::string& detail) {
  auto stmt = db_->prepare(R"sql(
UPDATE slurm_jobs SET ended_at_ms = ?3, state = ?4, detail = ?5
WHERE job_id = ?1 AND comment = ?2
)sql");
  stmt.bind(1, job_id).bind(2, comment).bind(3, ended_at_ms).bind(4, state).bind(5, detail);
  stmt.run();
  return db_->changes() > 0;
}

std::vector<SlurmJobRecord> Store::unended_slurm_jobs() const {
  auto stmt = db_->prepare(
      std::string("SELECT ") + kColumns +
      " FROM slurm_jobs WHERE ended_at_ms IS NULL ORDER BY submitted_at_ms, job_id");
  return read_jobs(stmt);
}

std::vector<SlurmJobRecord> Store::slurm_jobs(const std::string& run_id) const {
  auto stmt = db_->prepare(
      std::string("SELECT ") + kColumns +
      " FROM slurm_jobs WHERE run_id = ?1 ORDER BY submitted_at_ms, job_id");
  stmt.bind(1, run_id);
  return read_jobs(stmt);
}

}  // namespace mace::store

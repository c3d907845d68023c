// What migrations 8 and 12 keep of each run's logs: where each build's transcript and each
// simulation's sim.log is written, its copy in the run's evidence (`mace logs`), and what
// the retention rule removed.

#include <vector>

#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_word.h"

namespace mace::store {
namespace {

constexpr const char* kSelectLogFile = R"sql(
SELECT id, run_id, iteration, task_id, narrowing, workload, path, created_at_ms, kind,
       source_path, kept_at_ms, original_bytes, stored_bytes, cut_head_bytes, cut_tail_bytes,
       compressed, keep_error, removed_at_ms, removed_reason
FROM log_files
)sql";

LogFileRecord read_log_file(const Statement& s) {
  LogFileRecord f;
  f.id = s.int64(0);
  f.run_id = s.text(1);
  f.iteration = s.int64(2);
  f.task_id = s.text(3);
  f.narrowing = s.text(4);
  f.workload = s.text(5);
  f.path = s.text(6);
  f.created_at_ms = s.int64(7);
  f.kind = s.text(8);
  f.source_path = s.text(9);
  f.kept_at_ms = s.int64(10);
  f.original_bytes = s.int64(11);
  f.stored_bytes = s.int64(12);
  f.cut_head_bytes = s.int64(13);
  f.cut_tail_bytes = s.int64(14);
  f.compressed = s.int64(15) != 0;
  f.keep_error = s.text(16);
  f.removed_at_ms = s.int64(17);
  f.removed_reason = s.text(18);
  return f;
}

}  // namespace

int64_t Store::record_log_file(const LogFileRecord& f) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO log_files (run_id, iteration, task_id, narrowing, workload, path, created_at_ms,
                       kind, source_path)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
)sql");
  stmt.bind(1, f.run_id)
      .bind(2, f.iteration)
      .bind(3, f.task_id)
      .bind(4, f.narrowing)
      .bind(5, f.workload)
      .bind(6, f.path)
      .bind(7, f.created_at_ms)
      .bind(8, f.kind)
      .bind(9, f.source_path.empty() ? f.path : f.source_path);
  stmt.run();
  return db_->last_insert_rowid();
}

void Store::keep_log_file(int64_t id, const KeptLogRecord& k) {
  auto stmt = db_->prepare(R"sql(
UPDATE log_files SET path = ?2, kept_at_ms = ?3, original_bytes = ?4, stored_bytes = ?5,
  cut_head_bytes = ?6, cut_tail_bytes = ?7, compressed = ?8, keep_error = ''
WHERE id = ?1
)sql");
  stmt.bind(1, id)
      .bind(2, k.path)
      .bind(3, k.kept_at_ms)
      .bind(4, k.original_bytes)
      .bind(5, k.stored_bytes)
      .bind(6, k.cut_head_bytes)
      .bind(7, k.cut_tail_bytes)
      .bind(8, k.compressed);
  stmt.run();
}

void Store::log_file_not_kept(int64_t id, const std::string& why) {
  auto stmt = db_->prepare("UPDATE log_files SET keep_error = ?2 WHERE id = ?1");
  stmt.bind(1, id).bind(2, why);
  stmt.run();
}

std::optional<LogFileRecord> Store::find_log_file(const std::string& run_id, int64_t iteration,
                                                  const std::string& task_id,
                                                  const std::string& workload) const {
  auto stmt = db_->prepare(std::string(kSelectLogFile) + R"sql(
WHERE run_id = ?1 AND (?2 = 0 OR iteration = ?2) AND (?3 = '' OR task_id = ?3)
  AND workload = ?4 AND narrowing = '' AND kind IN ('build_log', 'sim_log')
ORDER BY id DESC LIMIT 1
)sql");
  stmt.bind(1, run_id).bind(2, iteration).bind(3, task_id).bind(4, workload);
  if (!stmt.step()) return std::nullopt;
  return read_log_file(stmt);
}

std::optional<LogFileRecord> Store::find_log_file(int64_t id) const {
  auto stmt = db_->prepare(std::string(kSelectLogFile) + "WHERE id = ?1");
  stmt.bind(1, id);
  if (!stmt.step()) return std::nullopt;
  return read_log_file(stmt);
}

std::vector<LogFileRecord> Store::log_files(const std::string& run_id) const {
  auto stmt = db_->prepare(std::string(kSelectLogFile) + "WHERE run_id = ?1 ORDER BY id");
  stmt.bind(1, run_id);
  std::vector<LogFileRecord> out;
  while (stmt.step()) out.push_back(read_log_file(stmt));
  return out;
}

std::vector<RunEvidenceRecord> Store::evidence_by_run() const {
  auto stmt = db_->prepare(R"sql(
SELECT l.run_id, r.state, coalesce(r.finished_at_ms, 0), total(l.stored_bytes)
FROM log_files l JOIN runs r ON r.id = l.run_id
WHERE l.kept_at_ms IS NOT NULL AND l.removed_at_ms IS NULL
GROUP BY l.run_id
)sql");
  std::vector<RunEvidenceRecord> out;
  while (stmt.step())
    out.push_back({stmt.text(0), parse_word<RunState>(*db_, "run state", stmt.text(1)),
                   stmt.int64(2), static_cast<int64_t>(stmt.real(3))});
  return out;
}

int64_t Store::mark_evidence_removed(const std::string& run_id, int64_t at_ms,
                                     const std::string& reason) {
  auto stmt = db_->prepare(R"sql(
UPDATE log_files SET removed_at_ms = ?2, removed_reason = ?3
WHERE run_id = ?1 AND kept_at_ms IS NOT NULL AND removed_at_ms IS NULL
)sql");
  stmt.bind(1, run_id).bind(2, at_ms).bind(3, reason);
  stmt.run();
  return db_->changes();
}

}  // namespace mace::store

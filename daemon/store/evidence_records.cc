// What migrations 8 and 12 keep of each run's logs: where each build's transcript and each
// simulation's sim.log is written, its copy in the run's evidence (`mace logs`), and what
// the retention rule removed.

#include <vector>

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_word.h"

namespace mace::store {
namespace {

// What is known when a log is first written.
const auto kWrittenColumns = columns(
    column("run_id", &LogFileRecord::run_id), column("iteration", &LogFileRecord::iteration),
    column("task_id", &LogFileRecord::task_id), column("narrowing", &LogFileRecord::narrowing),
    column("workload", &LogFileRecord::workload), column("path", &LogFileRecord::path),
    column("created_at_ms", &LogFileRecord::created_at_ms), column("kind", &LogFileRecord::kind),
    column("source_path", &LogFileRecord::source_path));
// What keeping its copy in the run's evidence adds.
const auto kKeptColumns = columns(
    column("path", &KeptLogRecord::path), column("kept_at_ms", &KeptLogRecord::kept_at_ms),
    column("original_bytes", &KeptLogRecord::original_bytes),
    column("stored_bytes", &KeptLogRecord::stored_bytes),
    column("cut_head_bytes", &KeptLogRecord::cut_head_bytes),
    column("cut_tail_bytes", &KeptLogRecord::cut_tail_bytes), column("compressed", &KeptLogRecord::compressed));
// The whole row as read back.
const auto kLogFileColumns = columns(
    column("id", &LogFileRecord::id), column("run_id", &LogFileRecord::run_id),
    column("iteration", &LogFileRecord::iteration), column("task_id", &LogFileRecord::task_id),
    column("narrowing", &LogFileRecord::narrowing), column("workload", &LogFileRecord::workload),
    column("path", &LogFileRecord::path), column("created_at_ms", &LogFileRecord::created_at_ms),
    column("kind", &LogFileRecord::kind), column("source_path", &LogFileRecord::source_path),
    column("kept_at_ms", &LogFileRecord::kept_at_ms), column("original_bytes", &LogFileRecord::original_bytes),
    column("stored_bytes", &LogFileRecord::stored_bytes),
    column("cut_head_bytes", &LogFileRecord::cut_head_bytes),
    column("cut_tail_bytes", &LogFileRecord::cut_tail_bytes), column("compressed", &LogFileRecord::compressed),
    column("keep_error", &LogFileRecord::keep_error), column("removed_at_ms", &LogFileRecord::removed_at_ms),
    column("removed_reason", &LogFileRecord::removed_reason));

}  // namespace

int64_t Store::record_log_file(const LogFileRecord& f) {
  LogFileRecord written = f;
  if (written.source_path.empty()) written.source_path = written.path;
  auto stmt = db_->prepare(kWrittenColumns.insert_sql("log_files"));
  kWrittenColumns.bind(stmt, 1, written).run();
  return db_->last_insert_rowid();
}

void Store::keep_log_file(int64_t id, const KeptLogRecord& k) {
  auto stmt = db_->prepare("UPDATE log_files SET " + kKeptColumns.assignments(2) +
                           ", keep_error = '' WHERE id = ?1");
  kKeptColumns.bind(stmt.bind(1, id), 2, k).run();
}

void Store::log_file_not_kept(int64_t id, const std::string& why) {
  auto stmt = db_->prepare("UPDATE log_files SET keep_error = ?2 WHERE id = ?1");
  stmt.bind(1, id).bind(2, why);
  stmt.run();
}

std::optional<LogFileRecord> Store::find_log_file(const std::string& run_id, int64_t iteration,
                                                  const std::string& task_id,
                                                  const std::string& workload) const {
  auto stmt = db_->prepare(kLogFileColumns.select_sql("log_files", R"sql(
WHERE run_id = ?1 AND (?2 = 0 OR iteration = ?2) AND (?3 = '' OR task_id = ?3)
  AND workload = ?4 AND narrowing = '' AND kind IN ('build_log', 'sim_log')
ORDER BY id DESC LIMIT 1
)sql"));
  return kLogFileColumns.read_first(*db_, stmt.bind(1, run_id).bind(2, iteration).bind(3, task_id).bind(4, workload));
}

std::optional<LogFileRecord> Store::find_log_file(int64_t id) const {
  auto stmt = db_->prepare(kLogFileColumns.select_sql("log_files", "WHERE id = ?1"));
  return kLogFileColumns.read_first(*db_, stmt.bind(1, id));
}

std::vector<LogFileRecord> Store::log_files(const std::string& run_id) const {
  auto stmt = db_->prepare(kLogFileColumns.select_sql("log_files", "WHERE run_id = ?1 ORDER BY id"));
  return kLogFileColumns.read_all(*db_, stmt.bind(1, run_id));
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

std::vector<std::string> Store::kept_file_paths() const {
  auto stmt = db_->prepare(
      "SELECT path FROM log_files WHERE kept_at_ms IS NOT NULL AND removed_at_ms IS NULL ORDER BY id");
  std::vector<std::string> paths;
  while (stmt.step()) paths.push_back(stmt.text(0));
  return paths;
}

int64_t Store::move_evidence_root(const std::string& from, const std::string& to) {
  // `from` + '/' as a prefix, compared as bytes (LIKE would read '_' and '%' in it).
  const std::string prefix = from + "/";
  int64_t changed = 0;
  Transaction txn(*db_);
  for (const char* sql : {
           "UPDATE log_files SET path = ?2 || substr(path, ?3) WHERE substr(path, 1, ?4) = ?1",
           "UPDATE task_coverage SET data_path = ?2 || substr(data_path, ?3) WHERE substr(data_path, 1, ?4) = ?1",
           "UPDATE task_coverage SET annotated_dir = ?2 || substr(annotated_dir, ?3) "
           "WHERE substr(annotated_dir, 1, ?4) = ?1",
       }) {
    auto stmt = db_->prepare(sql);
    const auto length = static_cast<int64_t>(prefix.size());
    stmt.bind(1, prefix).bind(2, to + "/").bind(3, length + 1).bind(4, length);
    stmt.run();
    changed += db_->changes();
  }
  txn.commit();
  return changed;
}

}  // namespace mace::store

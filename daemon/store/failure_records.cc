// What failure analysis leaves of a run (migration 2 and the first schema): each diagnosis,
// each narrowing rebuild, and the post-mortem.

#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_word.h"

namespace mace::store {

void Store::record_diagnosis(const std::string& run_id, int64_t iteration,
                             const std::string& task_id, const std::string& label,
                             const std::string& fix, DiagnosisSource source,
                             const std::string& evidence, int64_t created_at_ms) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO diagnoses (run_id, iteration, task_id, label, fix, source, evidence, created_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
)sql");
  stmt.bind(1, run_id)
      .bind(2, iteration)
      .bind(3, task_id)
      .bind(4, label)
      .bind(5, fix)
      .bind(6, to_string(source))
      .bind(7, evidence)
      .bind(8, created_at_ms);
  stmt.run();
}

int64_t Store::mark_failures_recovered(const std::string& run_id) {
  auto stmt =
      db_->prepare("UPDATE diagnoses SET recovered = 1 WHERE run_id = ?1 AND recovered = 0");
  stmt.bind(1, run_id);
  stmt.run();
  return db_->changes();
}

std::vector<DiagnosisRecord> Store::diagnoses(const std::string& run_id) const {
  auto stmt = db_->prepare(R"sql(
SELECT iteration, task_id, label, fix, source, evidence, recovered, created_at_ms
FROM diagnoses WHERE run_id = ?1 ORDER BY id
)sql");
  stmt.bind(1, run_id);
  std::vector<DiagnosisRecord> out;
  while (stmt.step()) {
    out.push_back({stmt.int64(0), stmt.text(1), stmt.text(2), stmt.text(3),
                   parse_word<DiagnosisSource>(*db_, "diagnoses.source", stmt.text(4)),
                   stmt.text(5), stmt.int64(6) != 0, stmt.int64(7)});
  }
  return out;
}

void Store::record_narrowing_build(const NarrowingBuildRecord& b) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO narrowing_builds (run_id, iteration, task_id, undone, build_id, checkout, passed,
                              failure_reason, created_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
)sql");
  stmt.bind(1, b.run_id)
      .bind(2, b.iteration)
      .bind(3, b.task_id)
      .bind(4, b.undone)
      .bind(5, b.build_id)
      .bind(6, b.checkout)
      .bind(7, static_cast<int64_t>(b.passed))
      .bind(8, to_string(b.failure_reason))
      .bind(9, b.created_at_ms);
  stmt.run();
}

std::vector<NarrowingBuildRecord> Store::narrowing_builds(const std::string& run_id) const {
  auto stmt = db_->prepare(R"sql(
SELECT iteration, task_id, undone, build_id, checkout, passed, failure_reason, created_at_ms
FROM narrowing_builds WHERE run_id = ?1 ORDER BY id
)sql");
  stmt.bind(1, run_id);
  std::vector<NarrowingBuildRecord> out;
  while (stmt.step()) {
    out.push_back({run_id, stmt.int64(0), stmt.text(1), stmt.text(2), stmt.text(3),
                   stmt.text(4), stmt.int64(5) != 0,
                   parse_word<FailureReason>(*db_, "failure reason", stmt.text(6)),
                   stmt.int64(7)});
  }
  return out;
}

void Store::record_post_mortem(const std::string& run_id, const PostMortemRecord& pm) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO postmortems (run_id, assessment, explanation, next_steps, created_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5)
)sql");
  stmt.bind(1, run_id)
      .bind(2, pm.assessment)
      .bind(3, pm.explanation)
      .bind(4, pm.next_steps)
      .bind(5, pm.created_at_ms);
  stmt.run();
}

std::optional<PostMortemRecord> Store::post_mortem(const std::string& run_id) const {
  auto stmt = db_->prepare(
      "SELECT assessment, explanation, next_steps, created_at_ms FROM postmortems WHERE run_id = ?1");
  stmt.bind(1, run_id);
  if (!stmt.step()) return std::nullopt;
  return PostMortemRecord{stmt.text(0), stmt.text(1), stmt.text(2), stmt.int64(3)};
}

}  // namespace mace::store

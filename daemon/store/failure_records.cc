// What failure analysis leaves of a run (migration 2 and the first schema): each diagnosis,
// each narrowing rebuild, and the post-mortem.

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_word.h"

namespace mace::store {
namespace {

const auto kDiagnosisColumns = columns(
    column("iteration", &DiagnosisRecord::iteration), column("task_id", &DiagnosisRecord::task_id),
    column("label", &DiagnosisRecord::label), column("fix", &DiagnosisRecord::fix),
    column("source", &DiagnosisRecord::source), column("evidence", &DiagnosisRecord::evidence),
    column("recovered", &DiagnosisRecord::recovered),
    column("created_at_ms", &DiagnosisRecord::created_at_ms));

const auto kNarrowingColumns = columns(
    column("run_id", &NarrowingBuildRecord::run_id), column("iteration", &NarrowingBuildRecord::iteration),
    column("task_id", &NarrowingBuildRecord::task_id), column("undone", &NarrowingBuildRecord::undone),
    column("build_id", &NarrowingBuildRecord::build_id),
    column("checkout", &NarrowingBuildRecord::checkout), column("passed", &NarrowingBuildRecord::passed),
    column("failure_reason", &NarrowingBuildRecord::failure_reason),
    column("created_at_ms", &NarrowingBuildRecord::created_at_ms));

const auto kPostMortemColumns = columns(
    column("assessment", &PostMortemRecord::assessment),
    column("explanation", &PostMortemRecord::explanation),
    column("next_steps", &PostMortemRecord::next_steps),
    column("created_at_ms", &PostMortemRecord::created_at_ms));

// "INSERT INTO table (run_id, <columns>) VALUES (?1, ?2, ...)": a record of a run.
template <typename Columns>
std::string insert_of_run(const char* table, const Columns& list) {
  return std::string("INSERT INTO ") + table + " (run_id, " + list.names() + ") VALUES (?1, " +
         list.parameters(2) + ")";
}

}  // namespace

void Store::record_diagnosis(const std::string& run_id, int64_t iteration,
                             const std::string& task_id, const std::string& label,
                             const std::string& fix, DiagnosisSource source,
                             const std::string& evidence, int64_t created_at_ms) {
  auto stmt = db_->prepare(insert_of_run("diagnoses", kDiagnosisColumns));
  stmt.bind(1, run_id);
  kDiagnosisColumns.bind(stmt, 2, {iteration, task_id, label, fix, source, evidence, false, created_at_ms});
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
  auto stmt = db_->prepare(kDiagnosisColumns.select_sql("diagnoses", "WHERE run_id = ?1 ORDER BY id"));
  return kDiagnosisColumns.read_all(*db_, stmt.bind(1, run_id));
}

void Store::record_narrowing_build(const NarrowingBuildRecord& b) {
  auto stmt = db_->prepare(kNarrowingColumns.insert_sql("narrowing_builds"));
  kNarrowingColumns.bind(stmt, 1, b).run();
}

std::vector<NarrowingBuildRecord> Store::narrowing_builds(const std::string& run_id) const {
  auto stmt = db_->prepare(kNarrowingColumns.select_sql("narrowing_builds", "WHERE run_id = ?1 ORDER BY id"));
  return kNarrowingColumns.read_all(*db_, stmt.bind(1, run_id));
}

void Store::record_post_mortem(const std::string& run_id, const PostMortemRecord& pm) {
  auto stmt = db_->prepare(insert_of_run("postmortems", kPostMortemColumns));
  stmt.bind(1, run_id);
  kPostMortemColumns.bind(stmt, 2, pm).run();
}

std::optional<PostMortemRecord> Store::post_mortem(const std::string& run_id) const {
  auto stmt = db_->prepare(kPostMortemColumns.select_sql("postmortems", "WHERE run_id = ?1"));
  return kPostMortemColumns.read_first(*db_, stmt.bind(1, run_id));
}

}  // namespace mace::store

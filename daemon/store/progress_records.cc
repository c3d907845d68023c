// What migrations 8 and 13 keep of work under way: how long models took to build, by core
// and mesh and by build ID (what a running build is compared with to say how long it has
// left, and what orders a level's tasks), how long simulations took, and why a task waits.
// Where each log is written and kept is in evidence_records.cc.

#include <algorithm>
#include <vector>

#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {
namespace {

// The median: one build slowed by a busy machine should not move the estimate.
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

void Store::record_build_time(const BuildTimeRecord& b) {
  static const auto kBuildTimeColumns = columns(
      column("run_id", &BuildTimeRecord::run_id), column("build_id", &BuildTimeRecord::build_id),
      column("core", &BuildTimeRecord::core), column("mesh_x", &BuildTimeRecord::mesh_x),
      column("mesh_y", &BuildTimeRecord::mesh_y), column("wall_s", &BuildTimeRecord::wall_s),
      column("objects", &BuildTimeRecord::objects),
      column("finished_at_ms", &BuildTimeRecord::finished_at_ms));
  auto stmt = db_->prepare(kBuildTimeColumns.insert_sql("build_times"));
  kBuildTimeColumns.bind(stmt, 1, b).run();
}

std::optional<double> Store::typical_build_seconds(const std::string& core, int64_t mesh_x,
                                                   int64_t mesh_y, int last) const {
  auto stmt = db_->prepare(R"sql(
SELECT wall_s FROM build_times WHERE core = ?1 AND mesh_x = ?2 AND mesh_y = ?3
ORDER BY finished_at_ms DESC, id DESC LIMIT ?4
)sql");
  stmt.bind(1, core).bind(2, mesh_x).bind(3, mesh_y).bind(4, int64_t{std::max(last, 1)});
  std::vector<double> seconds;
  while (stmt.step()) seconds.push_back(stmt.real(0));
  if (seconds.empty()) return std::nullopt;
  return median(std::move(seconds));
}

std::optional<double> Store::last_build_seconds(const std::string& build_id) const {
  auto stmt = db_->prepare(R"sql(
SELECT wall_s FROM build_times WHERE build_id = ?1 ORDER BY finished_at_ms DESC, id DESC LIMIT 1
)sql");
  stmt.bind(1, build_id);
  if (!stmt.step()) return std::nullopt;
  return stmt.real(0);
}

std::optional<double> Store::typical_simulation_seconds(const std::string& core, int64_t mesh_x,
                                                        int64_t mesh_y, const std::string& workload,
                                                        int last) const {
  auto stmt = db_->prepare(R"sql(
SELECT r.wall_s FROM task_results r JOIN tasks t ON t.id = r.task_row
WHERE t.core = ?1 AND t.mesh_x = ?2 AND t.mesh_y = ?3 AND r.workload = ?4 AND r.wall_s > 0
ORDER BY t.finished_at_ms DESC, t.id DESC LIMIT ?5
)sql");
  stmt.bind(1, core).bind(2, mesh_x).bind(3, mesh_y).bind(4, workload).bind(5, int64_t{std::max(last, 1)});
  std::vector<double> seconds;
  while (stmt.step()) seconds.push_back(stmt.real(0));
  if (seconds.empty()) return std::nullopt;
  return median(std::move(seconds));
}

void Store::set_task_stage(const std::string& run_id, int64_t iteration, const std::string& task_id,
                           TaskStage stage, const std::string& waiting_for) {
  db_->prepare(R"sql(
UPDATE tasks SET stage = ?4, waiting_for = ?5 WHERE run_id = ?1 AND iteration = ?2 AND task_id = ?3
)sql")
      .bind(1, run_id)
      .bind(2, iteration)
      .bind(3, task_id)
      .bind(4, to_string(stage))
      .bind(5, waiting_for)
      .run();
}

}  // namespace mace::store

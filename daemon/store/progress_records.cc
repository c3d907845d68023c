// What migration 8 keeps of work under way: how long models took to build, by core and
// mesh (what a running build is compared with to say how long it has left), and where
// each build's transcript and each simulation's sim.log is written (`mace logs`).

#include <algorithm>
#include <vector>

#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {

void Store::record_build_time(const BuildTimeRecord& b) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO build_times (run_id, build_id, core, mesh_x, mesh_y, wall_s, objects, finished_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
)sql");
  stmt.bind(1, b.run_id)
      .bind(2, b.build_id)
      .bind(3, b.core)
      .bind(4, b.mesh_x)
      .bind(5, b.mesh_y)
      .bind(6, b.wall_s)
      .bind(7, b.objects)
      .bind(8, b.finished_at_ms);
  stmt.run();
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
  // The median: one build slowed by a busy machine should not move the estimate.
  std::sort(seconds.begin(), seconds.end());
  const std::size_t mid = seconds.size() / 2;
  return seconds.size() % 2 ? seconds[mid] : (seconds[mid - 1] + seconds[mid]) / 2;
}


void Store::record_log_file(const LogFileRecord& f) {
  auto stmt = db_->prepare(R"sql(
INSERT INTO log_files (run_id, iteration, task_id, narrowing, workload, path, created_at_ms)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
)sql");
  stmt.bind(1, f.run_id)
      .bind(2, f.iteration)
      .bind(3, f.task_id)
      .bind(4, f.narrowing)
      .bind(5, f.workload)
      .bind(6, f.path)
      .bind(7, f.created_at_ms);
  stmt.run();
}

std::optional<LogFileRecord> Store::find_log_file(const std::string& run_id, int64_t iteration,
                                                  const std::string& task_id,
                                                  const std::string& workload) const {
  auto stmt = db_->prepare(R"sql(
SELECT run_id, iteration, task_id, narrowing, workload, path, created_at_ms FROM log_files
WHERE run_id = ?1 AND (?2 = 0 OR iteration = ?2) AND (?3 = '' OR task_id = ?3)
  AND workload = ?4 AND narrowing = ''
ORDER BY id DESC LIMIT 1
)sql");
  stmt.bind(1, run_id).bind(2, iteration).bind(3, task_id).bind(4, workload);
  if (!stmt.step()) return std::nullopt;
  return LogFileRecord{stmt.text(0),  stmt.int64(1), stmt.text(2), stmt.text(3),
                       stmt.text(4),  stmt.text(5),  stmt.int64(6)};
}

}  // namespace mace::store

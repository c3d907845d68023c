// What migration 8 keeps of work under way: how long models took to build, by core and
// mesh (what a running build is compared with to say how long it has left). Where each
// log is written and kept is in evidence_records.cc.

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

}  // namespace mace::store

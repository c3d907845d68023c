// A run's events in order (migration 1 and later): appended with the next sequence
// number, read back after one.
#include "store/columns.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace mace::store {
namespace {

// A state is NULL in an event without one; a stage or verdict is "".
const auto kEventColumns = columns(
    column("run_id", &EventRecord::run_id), column("seq", &EventRecord::seq),
    column("at_ms", &EventRecord::at_ms), column("kind", &EventRecord::kind),
    column("state", &EventRecord::state, null_when_none), column("iteration", &EventRecord::iteration),
    column("task_id", &EventRecord::task_id), column("stage", &EventRecord::stage),
    column("workload", &EventRecord::workload), column("verdict", &EventRecord::verdict),
    column("message", &EventRecord::message), column("objects_done", &EventRecord::objects_done),
    column("objects_total", &EventRecord::objects_total), column("elapsed_ms", &EventRecord::elapsed_ms),
    column("estimate_left_ms", &EventRecord::estimate_left_ms),
    column("verdict_time", &EventRecord::verdict_time), column("cycles", &EventRecord::cycles));

}  // namespace

int64_t Store::append_event(EventRecord event) {
  // The max and the insert share the write lock, so two writers can neither take the
  // same seq nor leave a gap.
  Transaction txn(*db_);
  auto next = db_->prepare("SELECT coalesce(max(seq), 0) + 1 FROM events WHERE run_id = ?1");
  next.bind(1, event.run_id);
  next.step();
  event.seq = next.int64(0);

  auto insert = db_->prepare(kEventColumns.insert_sql("events"));
  kEventColumns.bind(insert, 1, event).run();
  txn.commit();
  return event.seq;
}

std::vector<EventRecord> Store::events_after(const std::string& run_id, int64_t after_seq,
                                             int64_t limit) const {
  auto stmt = db_->prepare(kEventColumns.select_sql("events", "WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"));
  // A negative LIMIT is SQLite's "no limit".
  return kEventColumns.read_all(
      *db_, stmt.bind(1, run_id).bind(2, after_seq).bind(3, limit > 0 ? limit : int64_t{-1}));
}

}  // namespace mace::store

// A run's events in order (migration 1 and later): appended with the next sequence
// number, read back after one.
#include "store/sqlite.h"
#include "store/store.h"
#include "store/stored_values.h"

namespace mace::store {

int64_t Store::append_event(EventRecord event) {
  // The max and the insert share the write lock, so two writers can neither take the
  // same seq nor leave a gap.
  Transaction txn(*db_);
  auto next = db_->prepare("SELECT coalesce(max(seq), 0) + 1 FROM events WHERE run_id = ?1");
  next.bind(1, event.run_id);
  next.step();
  event.seq = next.int64(0);

  auto insert = db_->prepare(R"sql(
INSERT INTO events (run_id, seq, at_ms, kind, state, iteration, task_id, stage, workload,
                    verdict, message, objects_done, objects_total, elapsed_ms, estimate_left_ms,
                    verdict_time, cycles)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
)sql");
  std::optional<std::string_view> state;
  if (event.state) state = to_string(*event.state);
  insert.bind(1, event.run_id)
      .bind(2, event.seq)
      .bind(3, event.at_ms)
      .bind(4, to_string(event.kind))
      .bind(5, state)
      .bind(6, event.iteration)
      .bind(7, event.task_id)
      .bind(8, optional_word(event.stage))
      .bind(9, event.workload)
      .bind(10, optional_word(event.verdict))
      .bind(11, event.message)
      .bind(12, event.objects_done)
      .bind(13, event.objects_total)
      .bind(14, event.elapsed_ms)
      .bind(15, event.estimate_left_ms)
      .bind(16, event.verdict_time)
      .bind(17, event.cycles);
  insert.run();
  txn.commit();
  return event.seq;
}

std::vector<EventRecord> Store::events_after(const std::string& run_id, int64_t after_seq,
                                             int64_t limit) const {
  auto stmt = db_->prepare(R"sql(
SELECT run_id, seq, at_ms, kind, state, iteration, task_id, stage, workload, verdict, message,
       objects_done, objects_total, elapsed_ms, estimate_left_ms, verdict_time, cycles
FROM events WHERE run_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3
)sql");
  // A negative LIMIT is SQLite's "no limit".
  stmt.bind(1, run_id).bind(2, after_seq).bind(3, limit > 0 ? limit : int64_t{-1});
  std::vector<EventRecord> out;
  while (stmt.step()) {
    EventRecord e;
    e.run_id = stmt.text(0);
    e.seq = stmt.int64(1);
    e.at_ms = stmt.int64(2);
    e.kind = parse_word<EventKind>(*db_, "event kind", stmt.text(3));
    if (!stmt.is_null(4)) e.state = parse_state(*db_, stmt.text(4));
    e.iteration = stmt.int64(5);
    e.task_id = stmt.text(6);
    e.stage = parse_optional_word<TaskStage>(*db_, "task stage", stmt.text(7));
    e.workload = stmt.text(8);
    e.verdict = parse_optional_word<Verdict>(*db_, "verdict", stmt.text(9));
    e.message = stmt.text(10);
    e.objects_done = stmt.int64(11);
    e.objects_total = stmt.int64(12);
    e.elapsed_ms = stmt.int64(13);
    e.estimate_left_ms = stmt.int64(14);
    e.verdict_time = stmt.optional_int64(15);
    e.cycles = stmt.optional_int64(16);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace mace::store

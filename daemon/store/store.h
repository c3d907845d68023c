#pragma once
// The SQLite store: `<state-dir>/mace.db`, the one record of every run (REQ-VER-13,
// REQ-BUD-12). WAL mode, foreign keys, a busy timeout, and a schema version with
// forward migrations (see migrations.cc).
//
// One Store object is one connection and is used from one thread at a time. Readers in
// other threads or processes open their own Store on the same file; WAL lets them read
// while a writer writes.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/run_state.h"

namespace mace::store {

class Database;  // sqlite.h

struct RunRecord {
  std::string id;
  RunState state = RunState::queued;
  std::string reason;
  std::string spec_json;  // the normalised spec
  std::string core;
  int mesh_x = 1;
  int mesh_y = 1;
  std::string objective;
  std::vector<std::string> workloads;
  std::string backend;
  std::string model;
  int64_t max_iterations = 0;
  double max_usd = 0;
  int64_t max_wall_s = 0;
  uint32_t submitted_by_uid = 0;
  int64_t submitted_at_ms = 0;
  int64_t started_at_ms = 0;   // 0: not started
  int64_t finished_at_ms = 0;  // 0: not finished
  std::string replay_of;       // the original run when this run is a replay
  // Derived from other tables when read:
  int64_t iterations = 0;
  double cost_usd = 0;
};

struct RunFilter {
  std::vector<RunState> states;           // empty: any
  std::optional<uint32_t> submitted_by_uid;
  int64_t limit = 100;                    // newest first; 0: no limit
};

// A progress event as stored; `kind`, `stage` and `verdict` use the snake_case names of
// the schema's enums.
struct EventRecord {
  std::string run_id;
  int64_t seq = 0;  // assigned by append_event: 1, 2, ... per run
  int64_t at_ms = 0;
  std::string kind;
  std::optional<RunState> state;
  int64_t iteration = 0;
  std::string task_id;
  std::string stage;
  std::string workload;
  std::string verdict;
  std::string message;
};

// One LLM call as REQ-BUD-12 asks it recorded: phase, tokens, cost, wall time, success and
// the reply's text. Its cost counts towards the run's max_usd (REQ-BUD-5).
struct LlmCallRecord {
  int64_t id = 0;  // assigned by record_llm_call
  std::string run_id;
  int64_t iteration = 0;   // 0: outside any iteration (a post-mortem, say)
  std::string phase;       // planning, task, diagnosis, post_mortem
  std::string task_id;
  std::string backend;
  std::string model;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t thinking_tokens = 0;
  double cost_usd = 0;
  double wall_s = 0;
  bool success = false;
  std::string error_class;  // "" on success
  std::string reply_text;
  int64_t created_at_ms = 0;
};

// The five metrics of REQ-VER-15, each read from the run's recorded rows.
struct RunMetrics {
  // Task rows of the run, in any iteration, that passed (tasks.passed = 1). A task
  // retried in a later iteration counts once per iteration it passed in.
  int64_t successful_tasks = 0;
  // Iteration rows of the run: every iteration that started, passed or not.
  int64_t iterations = 0;
  // Diagnoses of the run marked recovered (REQ-FAIL-9): failures a later pass fixed.
  int64_t failures_recovered = 0;
  // From started_at to finished_at, or to now while the run is unfinished; 0 for a run
  // that never started (still queued, or refused before starting).
  double execution_time_s = 0;
  // The sum of the cost of every LLM call the run made (llm_calls.cost_usd), planning,
  // task, diagnosis and post-mortem alike.
  double compute_cost_usd = 0;
};

class Store {
 public:
  // Opens (creating when absent) and migrates the database at `path`. Throws
  // std::runtime_error naming the file and SQLite's message on failure.
  static std::unique_ptr<Store> open(const std::filesystem::path& path);
  ~Store();

  int schema_version() const;

  void insert_run(const RunRecord& run);
  std::optional<RunRecord> find_run(const std::string& id) const;
  // Newest first.
  std::vector<RunRecord> list_runs(const RunFilter& filter) const;
  // Runs in any of `states`, oldest first (for restart recovery and the queue). Unlike a
  // RunFilter, no states means no runs.
  std::vector<RunRecord> runs_in_states(const std::vector<RunState>& states) const;

  // Sets state and reason; stamps started_at when entering running and finished_at when
  // entering a final state, each only when not already stamped, so a run requeued after a
  // restart keeps its first start. Returns false when the run does not exist.
  bool set_run_state(const std::string& id, RunState state, const std::string& reason,
                     int64_t now_ms);

  // Appends an event with the run's next seq, which it returns.
  int64_t append_event(EventRecord event);
  // Events with seq > after_seq, oldest first; limit 0: all.
  std::vector<EventRecord> events_after(const std::string& run_id, int64_t after_seq,
                                        int64_t limit = 0) const;

  // All zero for a run that does not exist.
  int64_t record_llm_call(const LlmCallRecord& call);
  // Oldest first.
  std::vector<LlmCallRecord> llm_calls(const std::string& run_id) const;

  RunMetrics metrics(const std::string& run_id) const;
  // The same, with `now_ms` as the end of a run still unfinished.
  RunMetrics metrics(const std::string& run_id, int64_t now_ms) const;

  // The connection, for recording the tables that have no method here (iterations,
  // tasks, task_results, diagnoses, postmortems, llm_calls; see migrations.cc).
  Database& database();

 private:
  explicit Store(std::unique_ptr<Database> db);
  std::unique_ptr<Database> db_;
};

}  // namespace mace::store

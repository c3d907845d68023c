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
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis_source.h"
#include "core/plan_checks.h"
#include "core/run_outcome.h"
#include "core/run_state.h"
#include "core/task_stage.h"
#include "store/call_cache_records.h"
#include "store/coverage_records.h"
#include "store/waveform_records.h"
#include "store/eval_records.h"
#include "store/event_records.h"
#include "store/evidence_records.h"
#include "store/failure_records.h"
#include "store/llm_call_records.h"
#include "store/progress_records.h"
#include "store/run_records.h"
#include "store/slurm_jobs.h"
#include "store/task_records.h"

namespace mace::store {

class Database;  // sqlite.h

class Store {
 public:
  // Opens (creating when absent) and migrates the database at `path`. Throws
  // std::runtime_error naming the file and SQLite's message on failure.
  static std::unique_ptr<Store> open(const std::filesystem::path& path);
  ~Store();

  int schema_version() const;

  void insert_run(const RunRecord& run);
  std::optional<RunRecord> find_run(const std::string& id) const;
  // Newest first, each without its spec (spec_json empty): a listing shows none, and
  // reading a thousand would cost a thousand quarter-MiB reads.
  std::vector<RunRecord> list_runs(const RunFilter& filter) const;
  // The same a run at a time, so a page that is full stops reading: the IDs of the runs
  // `filter` selects, newest first, read from the indexes alone; then `each` called with the
  // summary of each of `ids` in turn (one skipped when it was deleted meanwhile) until it
  // returns false.
  std::vector<std::string> list_run_ids(const RunFilter& filter) const;
  void each_run_summary(const std::vector<std::string>& ids,
                        const std::function<bool(RunRecord)>& each) const;
  // How many queued runs were submitted before `run_id` (IDs sort by submission time):
  // where a queued run stands, counted on the (state, id) index.
  int64_t count_queued_before(const std::string& run_id) const;

  // What the scheduler needs of each queued run, oldest first: not the spec, not the
  // objective, which may be large and are read again for every start.
  struct QueuedRun {
    std::string id;
    uint32_t submitted_by_uid = 0;
    int64_t checkouts_wanted = 0;
  };
  std::vector<QueuedRun> queued_runs() const;
  // How many runs are in each state: one counting query (maced's status line).
  std::map<RunState, int64_t> count_runs_by_state() const;
  // How many runs `uid` has queued: one counting query on the uid index (a submit checks
  // the per-user queue limit with it).
  int64_t count_queued_runs(uint32_t uid) const;
  // Runs in any of `states`, oldest first (for restart recovery and the queue). Unlike a
  // RunFilter, no states means no runs.
  std::vector<RunRecord> runs_in_states(const std::vector<RunState>& states) const;

  // Sets state and reason; stamps started_at when entering running and finished_at when
  // entering a final state, each only when not already stamped, so a run requeued after a
  // restart keeps its first start. Returns false when the run does not exist.
  bool set_run_state(const std::string& id, RunState state, const std::string& reason,
                     int64_t now_ms);

  // What the run ran in, as JSON (run/run_environment.h), set when it starts; "" before,
  // and for runs recorded before MACE kept it.
  void set_run_environment(const std::string& id, const std::string& environment_json);
  std::string run_environment(const std::string& id) const;

  // Who planned the run, and a fault check's conclusion (core/run_outcome.h).
  void set_run_planner(const std::string& id, PlannerKind planner);
  void set_run_outcome(const std::string& id, RunOutcome outcome);
  // The run's default caches (RunRecord::default_caches). Throws std::invalid_argument for
  // a cache name that cannot be stored (empty, or holding ':' or a blank).
  void set_run_default_caches(const std::string& id, const CacheGeometry& caches);

  // Appends an event with the run's next seq, which it returns.
  int64_t append_event(EventRecord event);
  // Events with seq > after_seq, oldest first; limit 0: all.
  std::vector<EventRecord> events_after(const std::string& run_id, int64_t after_seq,
                                        int64_t limit = 0) const;

  // All zero for a run that does not exist.
  int64_t record_llm_call(const LlmCallRecord& call);
  // Oldest first; from the one at index `offset`, at most `limit` of them (0: all).
  std::vector<LlmCallRecord> llm_calls(const std::string& run_id, int64_t offset = 0,
                                       int64_t limit = 0) const;

  // REQ-VER-13, REQ-BUD-6: iterations. record_iteration_start inserts the iteration's row,
  // or, for an iteration already recorded, replaces its start and plan. record_iteration_end
  // sets the end, cost, wall time and outcome, inserting the row (with no start) when the
  // start was never recorded, so every iteration that ran is counted. Both throw for an
  // unknown run.
  void record_iteration_start(const std::string& run_id, int64_t iteration,
                              int64_t started_at_ms, const std::string& plan_text);
  void record_iteration_end(const std::string& run_id, int64_t iteration, int64_t finished_at_ms,
                            double cost_usd, double wall_s, bool passed);
  // By iteration.
  std::vector<IterationRecord> iterations(const std::string& run_id) const;

  // REQ-VER-13: inserts the task, or updates every column of the row already recorded for
  // (run_id, iteration, task_id), and replaces its workload results with `task.results`,
  // all in one transaction (a savepoint inside a caller's). Returns the row id, which an
  // update keeps. Throws for an unknown run, duplicate result ordinals, or a define or flag
  // that cannot be stored space-separated; nothing is then written.
  int64_t upsert_task(const TaskRecord& task);
  // The run's tasks by iteration, then in the order first recorded, each with its
  // results by ordinal; read in one statement, so from one snapshot.
  std::vector<TaskRecord> tasks(const std::string& run_id) const;

  // REQ-FAIL-8: records one diagnosis of a failed task; an unknown run throws.
  void record_diagnosis(const std::string& run_id, int64_t iteration, const std::string& task_id,
                        const std::string& label, const std::string& fix,
                        DiagnosisSource source, const std::string& evidence,
                        int64_t created_at_ms);
  // REQ-FAIL-9: when a run passes after failures, marks every diagnosis of the run
  // recovered; they then count as RunMetrics::failures_recovered. Returns how many were
  // newly marked, so calling it again returns 0.
  int64_t mark_failures_recovered(const std::string& run_id);
  // Oldest first.
  std::vector<DiagnosisRecord> diagnoses(const std::string& run_id) const;

  void record_narrowing_build(const NarrowingBuildRecord& build);
  // Oldest first.
  std::vector<NarrowingBuildRecord> narrowing_builds(const std::string& run_id) const;

  // At most one per run: a second throws (the schema's primary key), as does an
  // assessment outside the three.
  void record_post_mortem(const std::string& run_id, const PostMortemRecord& post_mortem);
  std::optional<PostMortemRecord> post_mortem(const std::string& run_id) const;

  // REQ-REPLAY-2: stores (or replaces) the entry of its tag. Throws for an unknown run.
  void put_cache_entry(const CacheEntryRecord& entry);
  // REQ-REPLAY-3/4: the entry of a tag, if any.
  std::optional<CacheEntryRecord> find_cache_entry(const std::string& tag) const;
  // The run's entries, by tag.
  std::vector<CacheEntryRecord> cache_entries(const std::string& run_id) const;

  RunMetrics metrics(const std::string& run_id) const;

  // Slurm jobs (store/slurm_jobs.cc). Recording one twice keeps the first.
  void record_slurm_job(const SlurmJobRecord& job);
  // Marks the job ended; false when no such job is recorded.
  bool end_slurm_job(const std::string& job_id, const std::string& comment, int64_t ended_at_ms,
                     const std::string& state, const std::string& detail);
  // Jobs not seen to end, oldest first: what a maced that died may have left.
  std::vector<SlurmJobRecord> unended_slurm_jobs() const;
  std::vector<SlurmJobRecord> slurm_jobs(const std::string& run_id) const;
  // How long models took to build (store/progress_records.cc): the source of a running
  // build's estimate. Only builds that ran and succeeded are worth recording.
  void record_build_time(const BuildTimeRecord& build);
  // The median wall time of the last `last` recorded builds of that core and mesh;
  // nullopt when none is recorded.
  std::optional<double> typical_build_seconds(const std::string& core, int64_t mesh_x,
                                              int64_t mesh_y, int last = 5) const;
  // How long the last recorded build of model `build_id` took; nullopt when none is.
  std::optional<double> last_build_seconds(const std::string& build_id) const;
  // The median wall time of the last `last` simulations of `workload` on a model of that
  // core and mesh (tasks' recorded results); nullopt when none is recorded.
  std::optional<double> typical_simulation_seconds(const std::string& core, int64_t mesh_x,
                                                   int64_t mesh_y, const std::string& workload,
                                                   int last = 5) const;
  // The stage of a recorded task, and why it waits; nothing when it has no row yet.
  void set_task_stage(const std::string& run_id, int64_t iteration, const std::string& task_id,
                      TaskStage stage, const std::string& waiting_for);
  // A task's coverage (store/coverage_records.cc): recorded once its workloads ran,
  // replacing what the task had; the run's, by iteration then task.
  void record_task_coverage(const TaskCoverageRecord& coverage);
  std::vector<TaskCoverageRecord> task_coverage(const std::string& run_id) const;
  // The waveform of a failed task's deciding workload, or why there is none (replaces the
  // task's earlier row); the run's, by iteration and task.
  void record_waveform(const WaveformRecord& waveform);
  std::vector<WaveformRecord> waveforms(const std::string& run_id) const;
  // Log files (store/evidence_records.cc). record_log_file records where one is being
  // written and returns its id; once its copy is in the run's evidence, keep_log_file
  // points the row at it, or log_file_not_kept says why it is not.
  int64_t record_log_file(const LogFileRecord& file);
  void keep_log_file(int64_t id, const KeptLogRecord& kept);
  void log_file_not_kept(int64_t id, const std::string& why);
  // The newest log of the run's task's own (not a narrowing rebuild's) for `workload`
  // ("" the build log); iteration 0: any iteration; task_id "": any task. Removed ones
  // too: they say when and why.
  std::optional<LogFileRecord> find_log_file(const std::string& run_id, int64_t iteration,
                                             const std::string& task_id,
                                             const std::string& workload) const;
  std::optional<LogFileRecord> find_log_file(int64_t id) const;
  // Every log file of the run, oldest first.
  std::vector<LogFileRecord> log_files(const std::string& run_id) const;
  // What each run's kept, not removed, files take on disk.
  std::vector<RunEvidenceRecord> evidence_by_run() const;
  // Marks every kept file of the run removed, at `at_ms`, for `reason`; returns how many.
  int64_t mark_evidence_removed(const std::string& run_id, int64_t at_ms, const std::string& reason);
  // Where every kept, not removed, file is (a backup copies them).
  std::vector<std::string> kept_file_paths() const;
  // Every stored path to a kept file (logs, coverage) that is under `from` moves under `to`
  // (a restore into another evidence root); returns how many rows changed.
  int64_t move_evidence_root(const std::string& from, const std::string& to);
  // The same, with `now_ms` as the end of a run still unfinished.
  RunMetrics metrics(const std::string& run_id, int64_t now_ms) const;

  // Evaluation batches (eval_store.cc). insert_eval_batch writes the batch and its jobs.
  void insert_eval_batch(const EvalBatchRecord& batch, const std::vector<EvalJobRecord>& jobs);
  std::optional<EvalBatchRecord> find_eval_batch(const std::string& id) const;
  // Newest first.
  std::vector<EvalBatchRecord> eval_batches(const std::vector<EvalBatchState>& states) const;
  // In run order, each with its latest run.
  std::vector<EvalJobRecord> eval_jobs(const std::string& batch_id) const;
  // How many jobs of `uid`'s running batches are still pending (a batch submit checks the
  // per-user limit with it); a cancelled batch's are not.
  int64_t count_pending_eval_jobs(uint32_t uid) const;
  void set_eval_job_state(const std::string& batch_id, int64_t position, EvalJobState state);
  void set_eval_batch_state(const std::string& batch_id, EvalBatchState state, int64_t now_ms);
  // Records a run made for a job and counts the attempt; in the caller's transaction with
  // the run's own insert, so a job never has a run the store does not tie to it.
  void insert_eval_run(const EvalRunRecord& run);
  std::optional<EvalRunRecord> find_eval_run(const std::string& run_id) const;
  std::vector<EvalRunRecord> eval_runs(const std::string& batch_id) const;
  void set_eval_run_env(const std::string& run_id, const std::string& env_json);
  // REQ-EVAL-7: the verdicts of the designs a build-only run accepted, simulated after it
  // passed; all of a run's in one transaction, which replaces any it had.
  void set_eval_resimulations(const std::string& run_id, const std::vector<EvalResimulationRecord>& designs);
  std::vector<EvalResimulationRecord> eval_resimulations(const std::string& run_id) const;

  // The connection, for the tables that have no method here (postmortems; see
  // migrations.cc) and for callers' own transactions.
  Database& database();

 private:
  explicit Store(std::unique_ptr<Database> db);
  std::unique_ptr<Database> db_;
};

}  // namespace mace::store

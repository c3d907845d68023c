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

#include "core/build_outcome.h"
#include "core/cost_source.h"
#include "core/diagnosis_source.h"
#include "core/event_kind.h"
#include "core/failure_reason.h"
#include "core/llm_error_class.h"
#include "core/llm_phase.h"
#include "core/plan_checks.h"
#include "core/run_outcome.h"
#include "core/run_state.h"
#include "core/task_kind.h"
#include "core/task_stage.h"
#include "core/verdict.h"
#include "store/eval_records.h"
#include "store/workload_result_record.h"

namespace mace::store {

class Database;  // sqlite.h

struct RunRecord {
  std::string id;
  RunState state = RunState::queued;
  std::string reason;
  std::string spec_json;  // the normalised spec (kept in run_specs, migration 14)
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
  int64_t replay_until = 0;    // a replay's last iteration (`--until`); 0: the whole run
  int64_t checkouts_wanted = 0;  // the spec's `checkouts`; 0: all maced grants
  // Who planned it; unset until its planning starts (core/run_outcome.h).
  std::optional<PlannerKind> planner;
  RunOutcome outcome = RunOutcome::none;  // a fault check's caught or missed
  // The caches a build gets where its task sets none, read from the run's checkout when
  // its loop started (OpenPiton's defaults); empty before then.
  CacheGeometry default_caches = {};
  // Derived from other tables when read:
  int64_t iterations = 0;
  double cost_usd = 0;
};

struct RunFilter {
  std::vector<RunState> states;           // empty: any
  std::optional<uint32_t> submitted_by_uid;
  int64_t limit = 100;                    // newest first; 0: no limit
  std::string before;                     // only runs whose ID sorts before it; "": any
};

// A progress event as stored (its words as their to_string names).
struct EventRecord {
  std::string run_id = {};
  int64_t seq = 0;  // assigned by append_event: 1, 2, ... per run
  int64_t at_ms = 0;
  EventKind kind = EventKind::message;
  std::optional<RunState> state = {};
  int64_t iteration = 0;
  std::string task_id = {};
  std::optional<TaskStage> stage = {};
  std::string workload = {};
  std::optional<Verdict> verdict = {};
  std::string message = {};
  // build_progress only (0 and -1 otherwise): see schema/mace.capnp Event.
  int64_t objects_done = 0;
  int64_t objects_total = 0;
  int64_t elapsed_ms = 0;
  int64_t estimate_left_ms = -1;
  // verdict only: the verdict line's simulation time and clock cycles; none when the
  // transcript gave none.
  std::optional<int64_t> verdict_time = {};
  std::optional<int64_t> cycles = {};
};

// One LLM call as REQ-BUD-12 asks it recorded: phase, tokens, cost, wall time, success and
// the reply's text. Its cost counts towards the run's max_usd (REQ-BUD-5).
struct LlmCallRecord {
  int64_t id = 0;  // assigned by record_llm_call
  std::string run_id;
  int64_t iteration = 0;   // 0: outside any iteration (a post-mortem, say)
  LlmPhase phase = LlmPhase::planning;
  std::string task_id;
  std::string backend;
  std::string model;
  int64_t input_tokens = 0;   // uncached input
  int64_t output_tokens = 0;  // thinking apart
  int64_t thinking_tokens = 0;
  double cost_usd = 0;        // what counted toward max_usd
  double wall_s = 0;
  bool success = false;
  LlmErrorClass error_class = LlmErrorClass::none;  // none on success
  std::string reply_text;
  int64_t created_at_ms = 0;
  std::string prompt_text = {};  // what the call asked (the system instruction aside)
  int64_t cache_read_tokens = 0;   // input served from the vendor's prompt cache
  int64_t cache_write_tokens = 0;  // input written to it
  // Where cost_usd came from: reported (the vendor's), priced (tokens × the price table),
  // estimated (maced's flat llm.unreported_cost), unknown (nothing to count: 0 was
  // counted); none for calls recorded before MACE kept it.
  std::optional<CostSource> cost_source = {};
};

// One iteration of a run (REQ-VER-13), with its cost and wall time (REQ-BUD-6). A time of
// 0 means the moment has not come (NULL in the schema).
struct IterationRecord {
  std::string run_id = {};
  int64_t iteration = 0;
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;
  double cost_usd = 0;
  double wall_s = 0;
  bool passed = false;
  std::string plan_text = {};  // the plan as the planner wrote it
};


// One task of an iteration with its whole build configuration (REQ-VER-13). As in
// RunRecord, 0 and "" stand for NULL in the schema: a cache size or associativity of 0
// means the core's default, an empty build_id no build yet, a time of 0 not yet.
struct TaskRecord {
  int64_t row_id = 0;  // tasks.id; assigned by upsert_task, ignored by it
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;  // the planner's id, unique in its iteration
  TaskKind kind = TaskKind::config;
  std::string instruction;
  std::vector<std::string> deps;  // task ids; stored as a JSON array
  std::string checkout;
  std::string core;
  int64_t mesh_x = 0;
  int64_t mesh_y = 0;
  std::string network;
  int64_t l1i_size = 0;
  int64_t l1i_assoc = 0;
  int64_t l1d_size = 0;
  int64_t l1d_assoc = 0;
  int64_t l15_size = 0;
  int64_t l15_assoc = 0;
  int64_t l2_size = 0;
  int64_t l2_assoc = 0;
  // Stored space-separated, so no element may be empty or hold whitespace (upsert_task
  // throws std::invalid_argument). rtl_defines is stored sorted and reads back sorted;
  // extra_flags keeps its order.
  std::vector<std::string> rtl_defines;
  std::string rtl_edits;  // unified diff
  std::string rtl_edits_hash;
  std::vector<std::string> extra_flags;
  std::string build_id;
  BuildOutcome build_outcome = BuildOutcome::none;
  bool build_reused = false;
  // How the task got its model: "built" (sims ran), "checkout" (an earlier
  // build in the same checkout), "store" (the model store); "" when there was no model.
  std::string build_source;
  // For "store": the entry and where and when the model was built.
  std::string build_origin;
  FailureReason failure_reason = FailureReason::none;
  TaskStage stage = TaskStage::pending;
  std::string waiting_for;  // why a `waiting` task waits; "" otherwise
  // What its build cost (loop::BuildFigures): none where nothing was built or tried, or,
  // for CPU time and peak memory, where sims did not run on maced's machine.
  std::optional<double> build_wall_s;
  std::optional<double> build_cpu_s;
  std::optional<int64_t> build_peak_rss_bytes;
  std::optional<bool> passed;     // none until the task ends
  int64_t started_at_ms = 0;
  int64_t finished_at_ms = 0;
  std::vector<WorkloadResultRecord> results;  // by ordinal

  // The cache columns by the loop's cache names (core/plan.h kCacheNames: "l1i", "l1d",
  // "l15", "l2"): {size, associativity}, 0 for the core's default. Throws
  // std::invalid_argument for another name.
  std::pair<int64_t, int64_t> cache(std::string_view name) const;
  void set_cache(std::string_view name, int64_t size, int64_t associativity);
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

// A diagnosis as recorded (REQ-FAIL-8).
struct DiagnosisRecord {
  int64_t iteration = 0;
  std::string task_id;
  std::string label;
  std::string fix;
  DiagnosisSource source = DiagnosisSource::fallback;
  std::string evidence;
  bool recovered = false;
  int64_t created_at_ms = 0;
};

// A model that was built (not reused), and how long that took.
struct BuildTimeRecord {
  std::string run_id;
  std::string build_id;
  std::string core;
  int64_t mesh_x = 1;
  int64_t mesh_y = 1;
  double wall_s = 0;
  int64_t objects = 0;  // C++ objects compiled; 0: not known
  int64_t finished_at_ms = 0;
};

// A build's transcript (workload "") or a simulation's sim.log: where it is written, and
// its copy in the run's evidence once its build or simulation has ended (migration 12).
struct LogFileRecord {
  int64_t id = 0;  // assigned by record_log_file
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  std::string narrowing;
  std::string workload;
  // The kept copy once kept; until then where it is written (source_path).
  std::string path;
  int64_t created_at_ms = 0;
  std::string kind;         // the evidence kind: build_log, sim_log
  std::string source_path;  // where it was written
  int64_t kept_at_ms = 0;   // 0: not (yet) kept
  int64_t original_bytes = 0;
  int64_t stored_bytes = 0;  // the copy on disk
  // When the per-log limit cut it: the bytes kept of its start and of its end.
  int64_t cut_head_bytes = 0;
  int64_t cut_tail_bytes = 0;
  bool compressed = false;
  std::string keep_error;     // why it was not kept
  int64_t removed_at_ms = 0;  // 0: not removed
  std::string removed_reason;
};

// What the kept copy of a log file is (evidence/kept_file.h's KeptFile, as stored).
struct KeptLogRecord {
  std::string path;
  int64_t kept_at_ms = 0;
  int64_t original_bytes = 0;
  int64_t stored_bytes = 0;
  int64_t cut_head_bytes = 0;
  int64_t cut_tail_bytes = 0;
  bool compressed = false;
};

// What a run's kept files take, for the retention rule.
struct RunEvidenceRecord {
  std::string run_id;
  RunState state = RunState::queued;
  int64_t finished_at_ms = 0;
  int64_t stored_bytes = 0;
};

// Line coverage of one part of a task's design (openpiton/coverage.h): source lines and
// Verilator's coverage points, covered of total.
struct CoverageCountsRecord {
  std::string module;  // a top-level module of the design; "" for the whole design
  int64_t lines_covered = 0;
  int64_t lines_total = 0;
  int64_t points_covered = 0;
  int64_t points_total = 0;
  bool operator==(const CoverageCountsRecord&) const = default;
};

// A task's coverage merged over its workloads (a spec with coverage, REQ-EXEC-6).
struct TaskCoverageRecord {
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  int64_t workloads = 0;  // simulations whose coverage was merged
  std::string error;      // why there is none; "" when merged
  // Where the merged coverage.dat and the annotated source directory are kept with the
  // run's evidence (maced's host); where they were made, when they could not be kept.
  std::string data_path;
  std::string annotated_dir;
  int64_t data_file_id = 0;  // the merged data's log_files row; 0: none
  CoverageCountsRecord total;
  std::vector<CoverageCountsRecord> modules;  // by module
  int64_t created_at_ms = 0;
  bool operator==(const TaskCoverageRecord&) const = default;
};

// A rebuild narrowing made (REQ-FAIL-12).
struct NarrowingBuildRecord {
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  std::string undone;
  std::string build_id;
  std::string checkout;
  bool passed = false;
  FailureReason failure_reason = FailureReason::none;
  int64_t created_at_ms = 0;
};

// REQ-FAIL-10: the run's post-mortem, when one came back with an assessment.
struct PostMortemRecord {
  std::string assessment;  // fixable_config, likely_hardware_limitation, inconclusive
  std::string explanation;
  std::string next_steps;
  int64_t created_at_ms = 0;
};

// One entry of the replay cache (REQ-REPLAY-2): the return value of a tagged call, and
// what produced it, so a replay elsewhere can say what differs.
struct CacheEntryRecord {
  std::string tag;       // <run ID>/iter<i>/<task id>/<phase>
  std::string run_id;    // the run the tag belongs to
  std::string function;  // prompt, build, run
  std::string value_json;
  std::string mace_version;
  std::string checkout_fingerprint;  // "" for a prompt
  std::string verilator_version;     // "" for a prompt
  int64_t created_at_ms = 0;
  bool operator==(const CacheEntryRecord&) const = default;
};

// One Slurm job maced submitted (store/slurm_jobs.cc).
struct SlurmJobRecord {
  std::string job_id;
  std::string comment;  // mace:<instance>:<token>, unique per job
  std::string run_id;
  std::string name;     // mace:<run>:<task>:<purpose>
  std::string node;
  std::string checkout;
  std::string purpose;
  int64_t submitted_at_ms = 0;
  int64_t ended_at_ms = 0;  // 0: not seen to end
  std::string state;
  std::string detail;
  bool operator==(const SlurmJobRecord&) const = default;
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

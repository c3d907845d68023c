#include "store/migrations.h"

#include <algorithm>

#include <stdexcept>
#include <string>

namespace mace::store {
namespace {

// Migrations are history: once released, one is never edited, only followed by another.
// That is also why state names are spelled out here rather than generated from RunState:
// a new state needs a new migration (SQLite cannot alter a CHECK in place), and the test
// that inserts every RunState fails until it exists.
//
// Conventions of the schema:
// - Times are Unix epoch milliseconds in *_at_ms columns; NULL where the moment has not
//   come (a run not yet started). Durations are seconds, REAL, in wall_s.
// - Booleans are INTEGER 0/1 with a CHECK.
// - Enumerations use the snake_case names of schema/mace.capnp.
// - Every row of a run is deleted with the run (ON DELETE CASCADE), so pruning old runs
//   is one DELETE FROM runs.
constexpr const char* kMigrations[] = {
    // 1: the first schema.
    R"sql(
CREATE TABLE runs (
  id TEXT PRIMARY KEY NOT NULL,           -- run ID; sorts by submission time
  state TEXT NOT NULL CHECK (state IN (
    'queued', 'running', 'passed', 'failed', 'planning_failed', 'budget_exceeded',
    'checksum_mismatch', 'unsupported_core', 'error', 'cancelled')),
  reason TEXT NOT NULL DEFAULT '',        -- why the run ended as it did
  spec_json TEXT NOT NULL DEFAULT '{}',   -- the normalised spec, defaults filled
  core TEXT NOT NULL DEFAULT '',
  mesh_x INTEGER NOT NULL DEFAULT 1,
  mesh_y INTEGER NOT NULL DEFAULT 1,
  objective TEXT NOT NULL DEFAULT '',
  workloads_json TEXT NOT NULL DEFAULT '[]',  -- JSON array of gate workload names
  backend TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  max_iterations INTEGER NOT NULL DEFAULT 0,
  max_usd REAL NOT NULL DEFAULT 0,
  max_wall_s INTEGER NOT NULL DEFAULT 0,
  submitted_by_uid INTEGER NOT NULL DEFAULT 0,
  submitted_at_ms INTEGER NOT NULL DEFAULT 0,
  started_at_ms INTEGER,
  finished_at_ms INTEGER,
  replay_of TEXT REFERENCES runs(id) ON DELETE SET NULL
);
-- mace list --state / restart recovery; mace list --mine (newest first by id).
CREATE INDEX runs_state ON runs(state);
CREATE INDEX runs_uid ON runs(submitted_by_uid, id);
-- Foreign-key checks on deleting a run look replays up by this column.
CREATE INDEX runs_replay_of ON runs(replay_of);

-- One row per iteration of a run (REQ-VER-13), with its cost and time (REQ-BUD-6).
CREATE TABLE iterations (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  started_at_ms INTEGER,
  finished_at_ms INTEGER,
  cost_usd REAL NOT NULL DEFAULT 0,
  wall_s REAL NOT NULL DEFAULT 0,
  passed INTEGER NOT NULL DEFAULT 0 CHECK (passed IN (0, 1)),
  plan_text TEXT NOT NULL DEFAULT '',     -- the plan as the planner wrote it
  PRIMARY KEY (run_id, iteration)
) WITHOUT ROWID;

-- One row per task of an iteration, with its whole build configuration (REQ-VER-13).
-- A NULL cache size or associativity means the core's default.
CREATE TABLE tasks (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,                  -- the planner's id, unique in its iteration
  kind TEXT NOT NULL,                     -- config | workload | unit_test | rtl
  instruction TEXT NOT NULL DEFAULT '',
  deps_json TEXT NOT NULL DEFAULT '[]',   -- JSON array of task ids
  checkout TEXT,                          -- the checkout it was built in
  core TEXT,
  mesh_x INTEGER,
  mesh_y INTEGER,
  network TEXT,
  l1i_size INTEGER,
  l1i_assoc INTEGER,
  l1d_size INTEGER,
  l1d_assoc INTEGER,
  l15_size INTEGER,
  l15_assoc INTEGER,
  l2_size INTEGER,
  l2_assoc INTEGER,
  rtl_defines TEXT NOT NULL DEFAULT '',   -- space-separated, sorted
  rtl_edits TEXT NOT NULL DEFAULT '',     -- unified diff
  rtl_edits_hash TEXT NOT NULL DEFAULT '',
  extra_flags TEXT NOT NULL DEFAULT '',
  build_id TEXT,
  build_outcome TEXT NOT NULL DEFAULT '', -- '' | succeeded | reused | failed
  build_reused INTEGER NOT NULL DEFAULT 0 CHECK (build_reused IN (0, 1)),
  failure_reason TEXT NOT NULL DEFAULT '',  -- e.g. way_rule, build_failed
  stage TEXT NOT NULL DEFAULT 'pending',  -- a TaskStage
  passed INTEGER CHECK (passed IN (0, 1)),  -- NULL until the task ends
  started_at_ms INTEGER,
  finished_at_ms INTEGER,
  UNIQUE (run_id, iteration, task_id)
);
-- Build reuse and the evaluation harness look builds up by id.
CREATE INDEX tasks_build_id ON tasks(build_id);

-- One row per simulated workload of a task, in the order they ran.
CREATE TABLE task_results (
  task_row INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,               -- 0 for the first gate workload
  workload TEXT NOT NULL,
  verdict TEXT NOT NULL,                  -- none | pass | fail | timeout | maxcycles
  returncode INTEGER,
  run_dir TEXT NOT NULL DEFAULT '',
  wall_s REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (task_row, ordinal)
) WITHOUT ROWID;

-- REQ-FAIL-8, REQ-FAIL-9: each diagnosis, with its run, iteration and task; `recovered`
-- is set on all of a run's rows when the run later passes.
CREATE TABLE diagnoses (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  fix TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL CHECK (source IN ('narrowing', 'llm', 'rule', 'fallback')),
  evidence TEXT NOT NULL DEFAULT '',
  recovered INTEGER NOT NULL DEFAULT 0 CHECK (recovered IN (0, 1)),
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX diagnoses_run ON diagnoses(run_id, iteration);

-- REQ-FAIL-10, REQ-FAIL-11: at most one post-mortem per run, and only one with an
-- assessment.
CREATE TABLE postmortems (
  run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  assessment TEXT NOT NULL CHECK (assessment IN (
    'fixable_config', 'likely_hardware_limitation', 'inconclusive')),
  explanation TEXT NOT NULL DEFAULT '',
  next_steps TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- REQ-BUD-12: every LLM call. Planning, task, diagnosis and post-mortem calls alike;
-- iteration and task_id are NULL where the call belongs to none.
CREATE TABLE llm_calls (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER,
  phase TEXT NOT NULL,                    -- e.g. plan, task, diagnosis, postmortem
  task_id TEXT,
  backend TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  thinking_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  wall_s REAL NOT NULL DEFAULT 0,
  success INTEGER NOT NULL CHECK (success IN (0, 1)),
  error_class TEXT NOT NULL DEFAULT '',   -- e.g. rate_limited, timeout; '' on success
  reply_text TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX llm_calls_run ON llm_calls(run_id);

-- Progress events, what `mace watch` replays: seq counts 1, 2, ... per run, no gaps.
CREATE TABLE events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL CHECK (seq >= 1),
  at_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,                     -- an EventKind
  state TEXT CHECK (state IS NULL OR state IN (
    'queued', 'running', 'passed', 'failed', 'planning_failed', 'budget_exceeded',
    'checksum_mismatch', 'unsupported_core', 'error', 'cancelled')),
  iteration INTEGER NOT NULL DEFAULT 0,
  task_id TEXT NOT NULL DEFAULT '',
  stage TEXT NOT NULL DEFAULT '',
  workload TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  message TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
)sql",

    // 2: the rebuilds narrowing makes before a diagnosis (REQ-FAIL-12), kept apart from
    // tasks so they never count as a plan's tasks in the metrics.
    R"sql(
CREATE TABLE narrowing_builds (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  undone TEXT NOT NULL,                   -- which changes it undid, for people
  build_id TEXT NOT NULL DEFAULT '',
  checkout TEXT NOT NULL DEFAULT '',
  passed INTEGER NOT NULL CHECK (passed IN (0, 1)),
  failure_reason TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX narrowing_builds_run ON narrowing_builds(run_id, iteration);
)sql",

    // 3: deterministic replay (REQ-REPLAY-1..4). call_cache holds the return value of each
    // tagged call a run cached, by tag, with what produced it, so a replay on another
    // checkout or MACE can say so. run_id is the run whose tag it is (the tag's first
    // part), kept as a column so the entries go with the run. replay_until: how far a
    // replay was asked to go (`mace replay RUN --until N`), NULL for the whole run.
    R"sql(
CREATE TABLE call_cache (
  tag TEXT PRIMARY KEY NOT NULL,          -- <run ID>/iter<i>/<task id>/<phase>
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  function TEXT NOT NULL,                 -- prompt | build | run
  value_json TEXT NOT NULL,
  mace_version TEXT NOT NULL DEFAULT '',
  checkout_fingerprint TEXT NOT NULL DEFAULT '',  -- '' where no checkout decides it
  verilator_version TEXT NOT NULL DEFAULT '',
  created_at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX call_cache_run ON call_cache(run_id);
ALTER TABLE runs ADD COLUMN replay_until INTEGER;
)sql",

    // 4: the prompt of every LLM call, so a run's decisions can be read back with what
    // the model was asked, not only what it answered.
    R"sql(
ALTER TABLE llm_calls ADD COLUMN prompt_text TEXT NOT NULL DEFAULT '';
)sql",

    // 5: how many checkouts a run's spec asks for (0: all maced grants), read by the
    // scheduler for every queued run; kept in a column so it need not parse each spec.
    R"sql(
ALTER TABLE runs ADD COLUMN checkouts_wanted INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET checkouts_wanted = coalesce(json_extract(spec_json, '$.checkouts'), 0)
  WHERE json_valid(spec_json);
)sql",

    // 6: what each call's vendor reported, kind by kind (REQ-BUD-5, REQ-BUD-12): cached
    // input is billed apart from fresh input, and a cost is only worth its source. Calls
    // recorded before keep '' as their source: nobody knows any more how they were counted.
    R"sql(
ALTER TABLE llm_calls ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE llm_calls ADD COLUMN cache_write_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE llm_calls ADD COLUMN cost_source TEXT NOT NULL DEFAULT ''
  CHECK (cost_source IN ('', 'reported', 'priced', 'estimated', 'unknown'));
)sql",

    // 7: every Slurm job maced submitted, recorded before it was waited on, so that a
    // maced that died is followed by one that cancels what it left (docs/slurm.md). A job is identified by its ID and the unique comment maced gave it
    // (IDs restart when a cluster's state is reset).
    R"sql(
CREATE TABLE slurm_jobs (
  job_id TEXT NOT NULL,
  comment TEXT NOT NULL,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  node TEXT NOT NULL,
  checkout TEXT NOT NULL,
  purpose TEXT NOT NULL,
  submitted_at_ms INTEGER NOT NULL,
  ended_at_ms INTEGER,                 -- NULL while maced has not seen it end
  state TEXT NOT NULL DEFAULT '',      -- Slurm's last word: COMPLETED, CANCELLED, NODE_FAIL...
  detail TEXT NOT NULL DEFAULT '',     -- why it ended, when not by its command's own doing
  PRIMARY KEY (job_id, comment)
);
CREATE INDEX slurm_jobs_run ON slurm_jobs(run_id);
CREATE INDEX slurm_jobs_unended ON slurm_jobs(ended_at_ms) WHERE ended_at_ms IS NULL;
)sql",

    // 8: live progress (docs/client.md). build_progress events carry a build's
    // objects compiled and its time estimate; build_times keeps how long each model that
    // was really built took, by core and mesh, which is where that estimate comes from.
    R"sql(
ALTER TABLE events ADD COLUMN objects_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN objects_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN elapsed_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN estimate_left_ms INTEGER NOT NULL DEFAULT -1;
CREATE TABLE build_times (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  build_id TEXT NOT NULL,
  core TEXT NOT NULL,
  mesh_x INTEGER NOT NULL,
  mesh_y INTEGER NOT NULL,
  wall_s REAL NOT NULL CHECK (wall_s >= 0),
  objects INTEGER NOT NULL DEFAULT 0,     -- C++ objects compiled; 0: not known
  finished_at_ms INTEGER NOT NULL
);
CREATE INDEX build_times_shape ON build_times(core, mesh_x, mesh_y, finished_at_ms);
-- Where each build's transcript and each simulation's sim.log is written, recorded when
-- it starts, so `mace logs` can serve it while it grows.
CREATE TABLE log_files (
  id INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  narrowing TEXT NOT NULL DEFAULT '',    -- what a narrowing rebuild undid; '' for the task's own
  workload TEXT NOT NULL DEFAULT '',     -- '': the build log; else that workload's sim.log
  path TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX log_files_run ON log_files(run_id, task_id, workload);
)sql",

    // 9: evaluation batches (REQ-EVAL-1..12): a batch with its suite and request, its jobs
    // in the order they run, and each run a job made with its method, suite task, repeat,
    // seed, what the run was told to do and the environment it ran in (REQ-EVAL-9). A job
    // is done once one of its runs ends with a final state other than error (REQ-EVAL-3).
    R"sql(
CREATE TABLE eval_batches (
  id TEXT PRIMARY KEY,
  suite_name TEXT NOT NULL,
  suite_json TEXT NOT NULL,
  request_json TEXT NOT NULL,
  submitted_by_uid INTEGER NOT NULL,
  submitted_at_ms INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'done', 'cancelled')),
  finished_at_ms INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE eval_jobs (
  batch_id TEXT NOT NULL REFERENCES eval_batches(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  method TEXT NOT NULL,
  task_id TEXT NOT NULL,
  fault TEXT NOT NULL DEFAULT '',
  repeat INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'gave_up')),
  attempts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (batch_id, position)
);
CREATE TABLE eval_runs (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  batch_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  method TEXT NOT NULL,
  task_id TEXT NOT NULL,
  fault TEXT NOT NULL DEFAULT '',
  repeat INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  instructions_json TEXT NOT NULL,
  env_json TEXT NOT NULL DEFAULT '',
  FOREIGN KEY (batch_id, position) REFERENCES eval_jobs(batch_id, position) ON DELETE CASCADE
);
CREATE INDEX eval_runs_job ON eval_runs(batch_id, position);
)sql",

    // 10: where each task's model came from: built by sims, reused in its own
    // checkout, or taken from the model store (with the entry and where it was built).
    // Tasks recorded before say '' for both.
    R"sql(
ALTER TABLE tasks ADD COLUMN build_source TEXT NOT NULL DEFAULT ''
  CHECK (build_source IN ('', 'built', 'checkout', 'store'));
ALTER TABLE tasks ADD COLUMN build_origin TEXT NOT NULL DEFAULT '';
)sql",

    // 11: REQ-EVAL-7: each gate workload's verdict on each design a passed build-only run
    // of an evaluation job accepted, simulated after the run.
    R"sql(
CREATE TABLE eval_resimulations (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  task_id TEXT NOT NULL,
  build_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  workload TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('none', 'pass', 'fail', 'timeout', 'maxcycles')),
  returncode INTEGER,
  run_dir TEXT NOT NULL DEFAULT '',
  wall_s REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (run_id, task_id, ordinal)
) WITHOUT ROWID;
)sql",

    // 12: each run owns its evidence. A build's transcript or a sim.log is recorded where
    // it is written (source_path; path too, while it is written) and, once its build or
    // simulation has ended, copied into the run's own directory under the state directory:
    // path then names the copy and kept_at_ms is set, with what the copy holds (cut_*_bytes
    // when the per-log limit kept only the head and tail) and whether it is compressed. A
    // file that could not be copied says why in keep_error; the retention rule's removals
    // are stamped in removed_at_ms with why. Rows recorded before this version were never
    // copied, and say so. kind is the evidence kind (daemon/evidence/evidence_kind.h).
    // runs.planner says who planned a run (core/run_outcome.h), set when its planning
    // starts; runs.outcome is a fault check's conclusion, caught or missed (for earlier
    // checks, read from how they ended as the results table read them then).
    R"sql(
ALTER TABLE log_files ADD COLUMN kind TEXT NOT NULL DEFAULT '';
ALTER TABLE log_files ADD COLUMN source_path TEXT NOT NULL DEFAULT '';
ALTER TABLE log_files ADD COLUMN kept_at_ms INTEGER;
ALTER TABLE log_files ADD COLUMN original_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE log_files ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE log_files ADD COLUMN cut_head_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE log_files ADD COLUMN cut_tail_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE log_files ADD COLUMN compressed INTEGER NOT NULL DEFAULT 0 CHECK (compressed IN (0, 1));
ALTER TABLE log_files ADD COLUMN keep_error TEXT NOT NULL DEFAULT '';
ALTER TABLE log_files ADD COLUMN removed_at_ms INTEGER;
ALTER TABLE log_files ADD COLUMN removed_reason TEXT NOT NULL DEFAULT '';
UPDATE log_files SET kind = CASE workload WHEN '' THEN 'build_log' ELSE 'sim_log' END,
  source_path = path,
  keep_error = 'recorded before maced kept a copy of each log with its run';
-- The retention rule sums what each run's kept files take.
CREATE INDEX log_files_kept ON log_files(run_id)
  WHERE kept_at_ms IS NOT NULL AND removed_at_ms IS NULL;
ALTER TABLE runs ADD COLUMN planner TEXT NOT NULL DEFAULT ''
  CHECK (planner IN ('', 'llm', 'direct', 'replay', 'fault_check', 'codesign'));
ALTER TABLE runs ADD COLUMN outcome TEXT NOT NULL DEFAULT ''
  CHECK (outcome IN ('', 'caught', 'missed'));
UPDATE runs SET planner = CASE
    WHEN replay_of IS NOT NULL OR backend = 'replay' THEN 'replay'
    WHEN EXISTS (SELECT 1 FROM eval_runs e WHERE e.run_id = runs.id AND e.method = 'fault_check')
      THEN 'fault_check'
    WHEN EXISTS (SELECT 1 FROM eval_runs e WHERE e.run_id = runs.id AND e.method = 'codesign')
      THEN 'codesign'
    WHEN backend = 'direct' THEN 'direct'
    ELSE 'llm' END
  WHERE started_at_ms IS NOT NULL;
-- Fault checks that ended before outcomes were kept: caught when the run ended failed or
-- out of iterations, or a design it passed failed its simulation afterwards; else missed.
UPDATE runs SET outcome = CASE
    WHEN state IN ('failed', 'budget_exceeded') THEN 'caught'
    WHEN EXISTS (SELECT 1 FROM eval_resimulations s WHERE s.run_id = runs.id AND s.verdict <> 'pass')
      THEN 'caught'
    ELSE 'missed' END
  WHERE state IN ('failed', 'budget_exceeded', 'passed')
    AND EXISTS (SELECT 1 FROM eval_runs e WHERE e.run_id = runs.id AND e.method = 'fault_check');
)sql",

    // 13: why a task that is ready waits (no free checkout, a model another task is
    // building, a checkout lost to the infrastructure), for `mace status`; '' otherwise.
    // Expected task times look a model's last build up by its build ID.
    R"sql(
ALTER TABLE tasks ADD COLUMN waiting_for TEXT NOT NULL DEFAULT '';
CREATE INDEX build_times_build_id ON build_times(build_id, finished_at_ms);
)sql",

    // 14: a run's spec in a table of its own. A spec may be a quarter of a MiB: kept in the
    // middle of its runs row, it made every read of a later column (core, objective, the
    // times) walk its overflow pages, so listing a thousand queued runs read a quarter of
    // a GiB. A runs row now holds what a listing shows. The index on (state, id) serves a
    // page of a listing by state, newest first, from the index alone; it replaces the one
    // on state.
    R"sql(
CREATE TABLE run_specs (
  run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  spec_json TEXT NOT NULL             -- the normalised spec, defaults filled
);
INSERT INTO run_specs (run_id, spec_json) SELECT id, spec_json FROM runs;
ALTER TABLE runs DROP COLUMN spec_json;
DROP INDEX runs_state;
CREATE INDEX runs_state_id ON runs(state, id);
)sql",

    // 15: what each design did and cost. A simulated workload's verdict line carries the
    // simulation time of the verdict (verdict_time, as the testbench prints it) and the
    // clock cycles it stands for (openpiton/sim_figures.h); NULL where the transcript gave
    // none, and for results recorded before. A verdict event carries them too. A task's
    // build: its wall time, and the CPU time and the largest process's peak memory of a
    // sims that ran on maced's machine; NULL where not measured. A run keeps its checkout's
    // default caches ("l1i:16384:4 l1d:8192:4 ..."), so its tasks' configurations can say
    // which values are OpenPiton's defaults; '' for runs that never started a loop.
    R"sql(
ALTER TABLE task_results ADD COLUMN verdict_time INTEGER CHECK (verdict_time IS NULL OR verdict_time >= 0);
ALTER TABLE task_results ADD COLUMN cycles INTEGER CHECK (cycles IS NULL OR cycles >= 0);
ALTER TABLE eval_resimulations ADD COLUMN verdict_time INTEGER CHECK (verdict_time IS NULL OR verdict_time >= 0);
ALTER TABLE eval_resimulations ADD COLUMN cycles INTEGER CHECK (cycles IS NULL OR cycles >= 0);
ALTER TABLE events ADD COLUMN verdict_time INTEGER;
ALTER TABLE events ADD COLUMN cycles INTEGER;
ALTER TABLE tasks ADD COLUMN build_wall_s REAL CHECK (build_wall_s IS NULL OR build_wall_s >= 0);
ALTER TABLE tasks ADD COLUMN build_cpu_s REAL CHECK (build_cpu_s IS NULL OR build_cpu_s >= 0);
ALTER TABLE tasks ADD COLUMN build_peak_rss_bytes INTEGER
  CHECK (build_peak_rss_bytes IS NULL OR build_peak_rss_bytes >= 0);
ALTER TABLE runs ADD COLUMN default_caches TEXT NOT NULL DEFAULT '';
)sql",

    // 16: for a simulated workload that did not pass, the line that says what went wrong
    // (a run's failures are grouped by its signature) and the transcript's lines around
    // its error and verdict. Results recorded before have neither.
    R"sql(
ALTER TABLE task_results ADD COLUMN error_line TEXT NOT NULL DEFAULT '';
ALTER TABLE task_results ADD COLUMN excerpt TEXT NOT NULL DEFAULT '';
ALTER TABLE eval_resimulations ADD COLUMN error_line TEXT NOT NULL DEFAULT '';
ALTER TABLE eval_resimulations ADD COLUMN excerpt TEXT NOT NULL DEFAULT '';
)sql",

    // 17: each task's line coverage merged over its workloads (a spec with coverage):
    // how many simulations it merged or why there is none, where the merged data and the
    // annotated source are kept, its lines and points covered of total for the whole
    // design (module '') and for each top-level module of it.
    R"sql(
CREATE TABLE task_coverage (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  workloads INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  data_path TEXT NOT NULL DEFAULT '',
  annotated_dir TEXT NOT NULL DEFAULT '',
  data_file_id INTEGER NOT NULL DEFAULT 0,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, iteration, task_id)
) WITHOUT ROWID;
CREATE TABLE task_coverage_modules (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  module TEXT NOT NULL,                   -- '' for the whole design
  lines_covered INTEGER NOT NULL CHECK (lines_covered >= 0),
  lines_total INTEGER NOT NULL CHECK (lines_total >= lines_covered),
  points_covered INTEGER NOT NULL CHECK (points_covered >= 0),
  points_total INTEGER NOT NULL CHECK (points_total >= points_covered),
  PRIMARY KEY (run_id, iteration, task_id, module)
) WITHOUT ROWID;
)sql",

    // 18: what every run ran in (MACE's version, the host, each checkout's commit, source
    // fingerprint and Verilator), set when it starts; runs before have ''.
    R"sql(
ALTER TABLE runs ADD COLUMN environment_json TEXT NOT NULL DEFAULT '';
)sql",

    // 19: what each tile did in a simulation of a model built with monitors
    // (core/tile_figures.h), as JSON; '' for none (every result before, and without them).
    R"sql(
ALTER TABLE task_results ADD COLUMN tile_figures TEXT NOT NULL DEFAULT '';
ALTER TABLE eval_resimulations ADD COLUMN tile_figures TEXT NOT NULL DEFAULT '';
)sql",

    // 20: how each simulation and build ran, for its provenance and `mace repro`
    // (docs/failures.md#a-reproduction-of-a-failure): sims' command lines and whole
    // environments as JSON arrays ("NAME=value"), and what a failed simulation's run
    // directory held before sims started (core/run_input.h). Results and builds recorded
    // before have none ('[]', '').
    R"sql(
ALTER TABLE task_results ADD COLUMN argv_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE task_results ADD COLUMN environment_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE task_results ADD COLUMN inputs_json TEXT NOT NULL DEFAULT '';
ALTER TABLE task_results ADD COLUMN inputs_note TEXT NOT NULL DEFAULT '';
ALTER TABLE eval_resimulations ADD COLUMN argv_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE eval_resimulations ADD COLUMN environment_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE eval_resimulations ADD COLUMN inputs_json TEXT NOT NULL DEFAULT '';
ALTER TABLE eval_resimulations ADD COLUMN inputs_note TEXT NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN build_argv_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tasks ADD COLUMN build_environment_json TEXT NOT NULL DEFAULT '[]';
)sql",

    // 21: the waveform around each failed task's deciding workload (docs/failures.md):
    // the window traced, how it ended, the traced model and what it cost, or why there is
    // none; the file itself is a log_files row of kind 'waveform'.
    R"sql(
CREATE TABLE waveforms (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration INTEGER NOT NULL,
  task_id TEXT NOT NULL,
  workload TEXT NOT NULL,
  file_id INTEGER NOT NULL DEFAULT 0,
  path TEXT NOT NULL DEFAULT '',
  from_time INTEGER NOT NULL DEFAULT 0,
  to_time INTEGER NOT NULL DEFAULT 0,
  last_time INTEGER NOT NULL DEFAULT 0,
  end_reason TEXT NOT NULL DEFAULT '' CHECK (end_reason IN ('', 'window', 'size', 'finish')),
  bytes INTEGER NOT NULL DEFAULT 0 CHECK (bytes >= 0),
  build_id TEXT NOT NULL DEFAULT '',
  model_reused INTEGER NOT NULL DEFAULT 0,
  build_seconds REAL NOT NULL DEFAULT 0,
  sim_seconds REAL NOT NULL DEFAULT 0,
  problem TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '',
  changed_last_json TEXT NOT NULL DEFAULT '[]',
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (run_id, iteration, task_id)
) WITHOUT ROWID;
)sql",
};

constexpr int kLatest = static_cast<int>(sizeof(kMigrations) / sizeof(kMigrations[0]));

}  // namespace

int latest_schema_version() { return kLatest; }

int read_schema_version(Database& db) {
  auto stmt = db.prepare("PRAGMA user_version");
  stmt.step();
  return static_cast<int>(stmt.int64(0));
}

void refuse_newer_schema(Database& db) {
  int found = read_schema_version(db);
  if (found > kLatest)
    throw std::runtime_error(db.path().string() + " has schema version " +
                             std::to_string(found) + "; this maced knows up to " +
                             std::to_string(kLatest));
}

namespace {

bool has_table(Database& db, const char* table) {
  auto stmt = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  stmt.bind(1, table);
  return stmt.step();
}

bool has_column(Database& db, const char* table, const char* column) {
  auto stmt = db.prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  stmt.bind(1, table).bind(2, column);
  return stmt.step();
}

// main held the Slurm table as migration 6 for one commit (c6a3336), before a merge made
// the LLM costs' columns 6 and the Slurm table 7. A database that commit wrote is at
// version 6 with slurm_jobs and without the cost columns: it gets those columns and is
// then at version 7, which it matches (the table is the same, index for index); the
// migrations go on from there.
void reconcile_slurm_line_version_6(Database& db) {
  if (read_schema_version(db) != 6) return;
  Transaction txn(db);
  if (read_schema_version(db) != 6 || !has_table(db, "slurm_jobs") ||
      has_column(db, "llm_calls", "cache_read_tokens"))
    return;
  db.exec(kMigrations[5]);
  db.exec("PRAGMA user_version = 7");
  txn.commit();
}

}  // namespace

int migrate(Database& db, int up_to) { return migrate(db, up_to, {}); }

int migrate(Database& db, int up_to, const std::function<void(int version)>& before_commit) {
  refuse_newer_schema(db);
  if (up_to >= 7) reconcile_slurm_line_version_6(db);
  int applied = 0;
  for (int version = 1; version <= std::min(up_to, kLatest); ++version) {
    // Cheap check outside the lock so reopening a current database takes no write lock.
    if (read_schema_version(db) >= version) continue;
    Transaction txn(db);
    if (read_schema_version(db) >= version) continue;
    db.exec(kMigrations[version - 1]);
    // user_version lives in the file header, so it commits or rolls back with the rest.
    db.exec("PRAGMA user_version = " + std::to_string(version));
    if (before_commit) before_commit(version);
    txn.commit();
    ++applied;
  }
  // Another maced may have moved the file past this binary while we waited for the lock.
  refuse_newer_schema(db);
  return applied;
}

}  // namespace mace::store

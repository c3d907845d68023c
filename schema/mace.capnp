@0xec6d0ffe2efe82d0;
# The public API of maced, the MACE daemon.
#
# Clients connect to maced's Unix socket (default /run/maced/maced.sock) and speak
# Cap'n Proto two-party RPC; the bootstrap capability is `Maced`. The `mace` command is
# one such client; any language with a Cap'n Proto RPC implementation (pycapnp,
# capnp-rust, capnp-go, ...) can use this file as it stands.
#
# Versioning: `apiVersion` below is bumped only when a change is not backward
# compatible. Fields and methods are only ever added (with new ordinals), so a client
# built against an older schema keeps working. `Maced.version()` reports the version a
# daemon speaks.
#
# Errors: a request maced refuses (it names no run the caller may see, a field's value
# is not accepted, ...) or fails comes back as `error` in the method's results (struct
# Error: its kind, the field it concerns, the message), on a connection whose client
# asked for that with `version(errorsAsValues = true)`; every other field of the results
# is then empty. A client that did not ask (one built before this existed) gets a Cap'n
# Proto exception instead, whose description starts with the field ("runId: no run named
# 'x'"). A run specification that fails validation is neither: `submit` returns every
# problem in `errors`, each naming its field path.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("mace::api");

const apiVersion :UInt32 = 1;

# ---------------------------------------------------------------------------------------
# Run specification

struct CacheGeometry {
  # One cache of the memory hierarchy. Sizes are bytes.
  sizeBytes @0 :UInt32;
  associativity @1 :UInt32;
}

struct WorkloadArgs {
  # Per-program simulation settings (run spec field `workload_args`).
  program @0 :Text;          # must be one of the spec's workloads
  finishMask @1 :Text;       # hex digits (an optional 0x prefix is accepted); empty: one bit per tile
  options @2 :List(Text);    # sims options from the allowlist (docs/run-specs.md)
  rtlTimeout @3 :UInt64;     # this program's own rtl_timeout (cycles); 0: the spec's
  maxCycle @4 :UInt64;       # this program's own max_cycle (cycles); 0: the spec's
}

struct Budget {
  maxIterations @0 :UInt32 = 10;
  maxUsd @1 :Float64 = 20.0;
  maxWallS @2 :UInt64 = 3600;
}

struct RunOptions {
  rtlEdits @0 :Bool = false;     # offer the planner the rtl task kind
  fastPath @1 :Bool = true;      # no LLM call for config and workload tasks
  taskPrompts @2 :Bool = false;  # send each config/workload task's instruction to the LLM
}

struct ReplaySettings {
  # Deterministic replay (run spec field `replay`; docs/replay.md). Functions: prompt,
  # build, run.
  cache @0 :List(Text);    # functions whose tagged calls are stored; null: maced's default
  bypass @1 :List(Text);   # functions whose tagged calls are served from the cache
  from @2 :Text;           # the run whose entries serve bypassed calls; needed with bypass
}

struct RunSpec {
  # The structured form of a run specification. The JSON form accepted by
  # `mace submit FILE` has the same fields in snake_case; see docs/run-specs.md.
  # Zero in an optional numeric field means "not set".
  core @0 :Text = "ariane";      # ariane | sparc | pico | generic
  meshX @1 :UInt32 = 1;          # tiles on each axis, 1..256
  meshY @2 :UInt32 = 1;
  workloads @3 :List(Text);      # gate workloads, simulated in this order
  objective @4 :Text;
  budget @5 :Budget;
  coverage @6 :Bool = false;
  rtlTimeout @7 :UInt64;         # 0: the default, 1,000,000 cycles
  maxCycle @8 :UInt64;           # 0: the testbench's default
  workloadArgs @9 :List(WorkloadArgs);
  coreDescriptorJson @10 :Text;  # a JSON object; required for, and only for, core "generic"
  options @11 :RunOptions;
  backend @12 :Text;             # empty: maced's configured default
  model @13 :Text;               # empty: the backend's default
  checkouts @14 :UInt32;         # 0: as many as its levels can use; else at most this many
  tools @15 :List(Text);         # tools of maced's configuration every LLM call of the run gets
  replay @16 :ReplaySettings;
  dispatch @17 :Text;            # "queue" | "batches"; empty: maced's configured default
  runEveryWorkload @18 :Bool = false;  # simulate every gate workload of a task whatever
                                       # the others gave; false: stop at the first failure
  designs @19 :List(Design);     # configurations to build as they are (docs/run-specs.md)
  sweep @20 :List(CacheSweep);   # values per cache parameter, their product built
  noBaseline @21 :Bool = false;  # JSON "baseline": false: OpenPiton's defaults not built too
  monitors @22 :Bool = false;    # build with OpenPiton's monitors; each result has its tiles
  noWaveform @23 :Bool = false;  # JSON "waveform": false: no waveform of a failure is traced
  waveformCycles @24 :UInt32;    # cycles before a failure its waveform covers; 0: maced's
  parallelWorkloads @25 :UInt32; # a task's gate workloads simulating side by side; 0: maced's
}

struct Design {
  name @0 :Text;
  caches @1 :List(CacheSetting);  # a sizeBytes or associativity of 0 keeps the checkout's default
  configRtl @2 :List(Text);
}

struct CacheSweep {
  cache @0 :Text;                   # l1i | l1d | l15 | l2
  sizes @1 :List(UInt64);           # bytes; empty: the default size
  associativities @2 :List(UInt32); # empty: the default associativity
}

struct SpecSource {
  union {
    json @0 :Text;     # the JSON text of a run spec, exactly as `mace submit FILE` sends it
    spec @1 :RunSpec;  # the same, already structured
  }
}

struct FieldError {
  path @0 :Text;     # e.g. "budget.max_wall_s", "workloads[2]", "mesh"
  message @1 :Text;  # e.g. "must be a positive integer, got 10.5"
}

# ---------------------------------------------------------------------------------------
# Runs, tasks and their states

enum RunState {
  queued @0;            # accepted, waiting for the run loop or for checkouts
  running @1;
  passed @2;
  failed @3;
  planningFailed @4;
  budgetExceeded @5;
  checksumMismatch @6;
  unsupportedCore @7;
  error @8;
  cancelled @9;
}
# The store and the JSON output of `mace` spell these in snake_case
# ("planning_failed"). Every state but queued and running is final.

enum TaskStage {
  pending @0;
  prompting @1;
  building @2;
  running @3;
  passed @4;
  failed @5;
  skipped @6;
  waiting @7;           # ready, but held back: TaskState.waitingFor says why
}

enum Verdict {
  none @0;       # the transcript holds no verdict
  pass @1;
  fail @2;
  timeout @3;
  maxcycles @4;
}

struct WorkloadResult {
  workload @0 :Text;
  verdict @1 :Verdict;
  wallS @2 :Float64;
  # The simulation time stamp of the testbench's verdict line, as it prints it
  # ("6943250: Simulation -> PASS ..."), and the clock cycles that time stands for (the
  # time / 500 under OpenPiton's Verilator driver); -1 when the transcript gives none.
  verdictTime @3 :Int64 = -1;
  cycles @4 :Int64 = -1;
  errorLine @5 :Text;            # not passed: the line that says what went wrong (the
                                 # transcript's first error line, else its verdict line)
  excerpt @6 :Text;              # not passed: the transcript's lines around its error and
                                 # verdict, each "<line number>: <text>"; "" without one
  tiles @7 :List(TileFigures);   # what each tile did, in a run with "monitors"; empty else
}

struct TileFigures {
  # One tile's figures in one simulation, counted from OpenPiton's monitors' lines
  # (docs/design-results.md#what-each-tile-did); never estimated.
  tile @0 :UInt32;               # flat ID: x + y * meshX
  coreRequests @1 :UInt64;       # requests of the core to its L1.5
  l15RequestsToL2 @2 :UInt64;    # requests of the L1.5 to an L2 slice (misses, write-throughs)
  l2LookupHits @3 :UInt64;       # tag lookups of the tile's L2 slice that hit
  l2LookupMisses @4 :UInt64;     # ... and that missed
  noc1Flits @5 :UInt64;          # flits the L1.5 sent on NoC1
  noc2Flits @6 :UInt64;          # flits the L2 slice sent on NoC2
  noc3Flits @7 :UInt64;          # flits the L2 slice received on NoC3
}

struct CacheSetting {
  # One cache of a build's configuration.
  name @0 :Text;                 # l1i | l1d | l15 | l2
  sizeBytes @1 :UInt64;
  associativity @2 :UInt32;
  isDefault @3 :Bool;            # the size and ways are OpenPiton's defaults (the run's
                                 # checkout's own, RunDetail.defaultCaches)
}

struct FailureMember {
  iteration @0 :UInt32;
  taskId @1 :Text;
  workload @2 :Text;
}

struct FailureGroup {
  # A run's failed workloads that failed alike: the same verdict and error line but for
  # its numbers and hex addresses (docs/design-results.md#failures-by-signature).
  signature @0 :Text;            # e.g. "fail: N : Simulation -> FAIL(HIT BAD TRAP)"
  verdict @1 :Verdict;
  errorLine @2 :Text;            # the first member's, as its transcript had it
  members @3 :List(FailureMember);
}

struct TaskState {
  iteration @0 :UInt32;
  taskId @1 :Text;
  kind @2 :Text;                 # config | workload | unit_test | rtl
  instruction @3 :Text;
  deps @4 :List(Text);
  stage @5 :TaskStage;
  buildId @6 :Text;
  buildOutcome @7 :Text;         # "", succeeded, reused, failed
  failureReason @8 :Text;        # e.g. way_rule, build_failed, budget_exhausted
  results @9 :List(WorkloadResult);
  checkout @10 :Text;
  rtlEdits @11 :Text;            # unified diff of the RTL edits the build carried; "" if none
  buildSource @12 :Text;         # "", built, checkout (reused in place), store (model store)
  buildOrigin @13 :Text;         # for store: the entry, and where and when it was built
  network @14 :Text;             # "" (OpenPiton's 2D mesh) or the network a co-design search chose
  waitingFor @15 :Text;          # why a waiting task waits (no free checkout, a model
                                 # another task is building, its node failed); "" otherwise
  # What its build cost: wall time (for a reused model, finding and copying it), and the
  # CPU time and the largest process's peak memory of a sims that ran on maced's machine;
  # -1 where not measured (no build tried, a reused model, a build on a Slurm node).
  buildWallS @16 :Float64 = -1;
  buildCpuS @17 :Float64 = -1;
  buildPeakRssBytes @18 :Int64 = -1;
  # Its build configuration: the run's core and mesh, every cache, its RTL defines (the
  # task's and its dependencies', sorted), and the files its RTL edits change.
  core @19 :Text;
  meshX @20 :UInt32;
  meshY @21 :UInt32;
  caches @22 :List(CacheSetting);
  rtlDefines @23 :List(Text);
  editedFiles @24 :List(Text);
}

struct RunSummary {
  runId @0 :Text;                # unique; sorts by submission time
  state @1 :RunState;
  reason @2 :Text;               # why the run ended as it did (error text, cancel, ...)
  core @3 :Text;
  meshX @4 :UInt32;
  meshY @5 :UInt32;
  objective @6 :Text;
  workloads @7 :List(Text);
  submittedByUid @8 :UInt32;     # the peer credentials of the submitting connection
  submittedAtMs @9 :Int64;       # Unix epoch milliseconds
  startedAtMs @10 :Int64;        # 0 when not started
  finishedAtMs @11 :Int64;       # 0 when not finished
  iterations @12 :UInt32;
  costUsd @13 :Float64;
  backend @14 :Text;             # "replay" for a replay
  model @15 :Text;
  replayOf @16 :Text;            # the run a replay re-executes; "" for any other run
  replayUntil @17 :UInt32;       # a replay's last iteration (--until); 0: the whole run
  planner @18 :Text;             # who planned it, once it started: llm | direct | replay |
                                 # fault_check | codesign. A direct run built the spec's core
                                 # and mesh with OpenPiton's defaults: it did not try to meet
                                 # the objective, whatever its state
  outcome @19 :Text;             # a fault check's conclusion: caught | missed; "" otherwise
                                 # (the reason says which fault, and what caught it)
}

struct Diagnosis {
  # Why a failed task failed (REQ-FAIL-1..4, REQ-FAIL-8).
  iteration @0 :UInt32;
  taskId @1 :Text;
  label @2 :Text;                # e.g. define_breaks_design, testbench_mismatch, unknown
  fix @3 :Text;
  source @4 :Text;               # narrowing | llm | rule | fallback
  recovered @5 :Bool;            # a later iteration passed (REQ-FAIL-9)
}

struct NarrowingBuild {
  # A rebuild of a failed task with some of its changes undone (REQ-FAIL-12).
  iteration @0 :UInt32;
  taskId @1 :Text;
  undone @2 :Text;               # e.g. "undo define PITON_X"
  buildId @3 :Text;
  passed @4 :Bool;
  failureReason @5 :Text;
}

struct PostMortem {
  # REQ-FAIL-10; assessment "" when the run has none.
  assessment @0 :Text;           # fixable_config | likely_hardware_limitation | inconclusive
  explanation @1 :Text;
  nextSteps @2 :Text;
}

struct RunDetail {
  summary @0 :RunSummary;
  specJson @1 :Text;             # the normalised spec, defaults filled
  tasks @2 :List(TaskState);     # every task of every iteration
  diagnoses @3 :List(Diagnosis); # oldest first
  narrowingBuilds @4 :List(NarrowingBuild);
  postMortem @5 :PostMortem;
  queuedAhead @6 :UInt32;        # a queued run: how many queued runs were submitted before it
  defaultCaches @7 :List(CacheSetting);  # OpenPiton's, read from the run's checkout;
                                         # empty until its loop started
  failureGroups @8 :List(FailureGroup);  # every failed workload of the run, by signature,
                                         # the largest group first; on status's first page
  coverage @9 :List(TaskCoverage);       # each task's line coverage (a spec with coverage);
                                         # on status's first page
  environmentJson @10 :Text;             # what it ran in, as JSON: mace_version, mace_commit,
                                         # host, backend, model, and per checkout it started
                                         # on its path, commit, source_fingerprint, verilator;
                                         # "" before it started
  waveforms @11 :List(Waveform);         # each failed task's waveform, or why it has none
}

struct Waveform {
  # The waveform around a failed task's deciding workload (docs/failures.md): that workload
  # simulated again on a traced model, the cycles before its failure written as a VCD.
  iteration @0 :UInt32;
  taskId @1 :Text;
  workload @2 :Text;
  fileId @3 :UInt64;             # its LogFile (kind waveform; readLog fileId); 0: none
  fromTime @4 :Int64;            # the window asked for, in simulation time (500 per cycle)
  toTime @5 :Int64;
  lastTime @6 :Int64;            # the last time traced
  endReason @7 :Text;            # window | size (the size limit cut it) | finish; "" if none
  bytes @8 :UInt64;
  buildId @9 :Text;              # the traced model's
  modelReused @10 :Bool;
  buildSeconds @11 :Float64;     # what the traced model and the simulation cost
  simSeconds @12 :Float64;
  problem @13 :Text;             # why there is none; "" when there is one
  note @14 :Text;                # what is odd about one
  changedLast @15 :List(Text);   # signals near the top that changed last, latest first
}

struct ModuleCoverage {
  # Line coverage of one top-level module of a design, or of all of it (module "").
  # Lines: source lines spanned by Verilator's line and branch points, covered when a
  # point spanning them was reached; points: Verilator's own count.
  module @0 :Text;
  linesCovered @1 :UInt64;
  linesTotal @2 :UInt64;
  pointsCovered @3 :UInt64;
  pointsTotal @4 :UInt64;
}

struct TaskCoverage {
  # A task's coverage merged over its workloads with verilator_coverage
  # (docs/design-results.md#coverage).
  iteration @0 :UInt32;
  taskId @1 :Text;
  workloads @2 :UInt32;          # simulations whose coverage was merged
  error @3 :Text;                # why there is none; "" when merged
  total @4 :ModuleCoverage;      # the whole design
  modules @5 :List(ModuleCoverage);
  dataPath @6 :Text;             # the merged coverage.dat, kept with the run's evidence
  annotatedDir @7 :Text;         # the annotated source directory beside it (maced's host);
                                 # each file is a LogFile of kind coverage_source
  dataFileId @8 :UInt64;         # the merged data's LogFile id (readLog fileId)
}

struct LlmCall {
  # One attempt of an LLM call a run made (REQ-BUD-12), in the order they were made.
  iteration @0 :UInt32;          # 0: outside any iteration
  phase @1 :Text;                # planning | task | diagnosis | post_mortem
  taskId @2 :Text;
  backend @3 :Text;
  model @4 :Text;
  inputTokens @5 :Int64;        # uncached input
  outputTokens @6 :Int64;       # thinking apart
  thinkingTokens @7 :Int64;
  costUsd @8 :Float64;          # what counted toward max_usd; see costSource
  wallS @9 :Float64;
  success @10 :Bool;
  errorClass @11 :Text;          # "" on success: rate_limit, authentication, output_limit, ...
  prompt @12 :Text;
  reply @13 :Text;
  atMs @14 :Int64;
  cacheReadTokens @15 :Int64;   # input served from the vendor's prompt cache
  cacheWriteTokens @16 :Int64;  # input written to it
  costSource @17 :Text;         # reported | priced | estimated | unknown ("" before MACE kept it)
}

struct Metrics {
  # The five metrics of REQ-VER-15.
  successfulTasks @0 :UInt32;
  iterations @1 :UInt32;
  failuresRecovered @2 :UInt32;
  executionTimeS @3 :Float64;
  computeCostUsd @4 :Float64;
}

# ---------------------------------------------------------------------------------------
# Progress events

enum EventKind {
  submitted @0;
  stateChanged @1;      # `state` holds the new run state
  iterationStarted @2;
  levelStarted @3;
  taskStage @4;         # `taskId` entered `stage`
  verdict @5;           # `taskId` simulated `workload` with `verdict`
  iterationFinished @6;
  message @7;           # free text for people
  buildProgress @8;     # `taskId`'s build: `message` is its phase (verilating, compiling,
                        # linking), objectsDone of objectsTotal, elapsedMs, estimateLeftMs
  workloadStarted @9;   # `taskId` started simulating `workload`; several may run at once
}

struct Event {
  seq @0 :UInt64;       # per run, from 1, without gaps
  atMs @1 :Int64;
  kind @2 :EventKind;
  state @3 :RunState;
  iteration @4 :UInt32;
  taskId @5 :Text;
  stage @6 :TaskStage;
  workload @7 :Text;
  verdict @8 :Verdict;
  message @9 :Text;
  # buildProgress only: C++ objects compiled so far and to compile (0: not known yet), the
  # time since the build started, and the time it is expected still to take, from the
  # store's builds of the same core and mesh or the pace of the objects compiled so far
  # (-1: neither is known yet).
  objectsDone @10 :UInt32;
  objectsTotal @11 :UInt32;
  elapsedMs @12 :Int64;
  estimateLeftMs @13 :Int64 = -1;
  # verdict only: as WorkloadResult's; -1 when the transcript gives none.
  verdictTime @14 :Int64 = -1;
  cycles @15 :Int64 = -1;
}

struct RunResult {
  summary @0 :RunSummary;
}

interface RunListener {
  # Implemented by the client and passed to `Maced.watch`.
  event @0 (event :Event) -> stream;
  # Every recorded event after `afterSeq`, in order, then live events as they happen.
  done @1 (result :RunResult);
  # Called once, after the last event, when the run reaches a final state.
}

interface Subscription {
  # Dropping this capability ends the watch.
}

# ---------------------------------------------------------------------------------------
# Logs

struct LogEntry {
  seq @0 :UInt64;
  atMs @1 :Int64;
  source @2 :Text;      # "maced", or the task and phase that produced the line
  text @3 :Text;
}

struct LogQuery {
  # Which log (`mace logs RUN --build | --sim WORKLOAD`), and from where.
  iteration @0 :UInt32;     # 0: the newest iteration that has one
  taskId @1 :Text;          # "": the newest task that has one
  workload @2 :Text;        # "": the build's transcript; else that workload's sim.log
  offset @3 :Int64;         # the first byte wanted; -1: the start of the last tailLines lines
  tailLines @4 :UInt32;
  maxBytes @5 :UInt32;      # 0 or more than 1 MiB: 1 MiB
  offsetOfLive @6 :Bool;    # offset was reached in a chunk that was not `kept`: when the
                            # run's copy was cut, maced goes on from the same place in it
  fileId @7 :UInt64;        # one log by its LogFile.id (narrowing rebuilds' too); 0: as above
}

struct LogChunk {
  found @0 :Bool;           # false: no such log recorded (yet), or not yet written
  path @1 :Text;
  data @2 :Data;
  offset @3 :Int64;         # of data's first byte in the file
  size @4 :Int64;           # the file's size when it was read
  runFinal @5 :Bool;        # the run had ended before the read: nothing more will come
  kept @6 :Bool;            # read from the run's own copy (docs/evidence.md);
                            # false: from where it is still being written
  note @7 :Text;            # for people: why a recorded log is not served (removed by the
                            # retention rule on ...), or what to know of what is served
}

struct LogFile {
  # One log a run recorded (`mace logs RUN --list`).
  id @0 :UInt64;
  iteration @1 :UInt32;
  taskId @2 :Text;
  narrowing @3 :Text;       # what a narrowing rebuild undid; "" for the task's own
  workload @4 :Text;        # "" for a build log
  kind @5 :Text;            # build_log | sim_log
  kept @6 :Bool;            # copied into the run's evidence
  originalBytes @7 :UInt64; # of the log as written
  storedBytes @8 :UInt64;   # of the kept copy on disk
  cutBytes @9 :UInt64;      # left out of its middle by the per-log limit; 0: whole
  compressed @10 :Bool;
  note @11 :Text;           # not kept, or removed: why, and when
  path @12 :Text;           # on maced's host: the kept copy once kept, else where it was
                            # written ("" once removed)
}

struct ListFilter {
  states @0 :List(RunState);   # empty: every state
  submittedByUid @1 :UInt32;
  anyUser @2 :Bool = true;     # false: only runs of submittedByUid
  limit @3 :UInt32 = 100;      # newest first; 0: no limit
  before @4 :Text;             # only runs submitted before this run ID ("": from the newest):
                               # the following page, after a `list` answer's `next`
}

# ---------------------------------------------------------------------------------------
# Tools offered to LLM agents (REQ-EXEC-7)
#
# When maced gives a command-line agent (claude, opencode, antigravity) tools, it writes
# an MCP configuration that starts `mace mcp --session TOKEN`; that process serves MCP on
# its standard input and output and forwards every request here. A session lives as long
# as the one LLM call it was made for.

struct ToolMethodInfo {
  name @0 :Text;
  description @1 :Text;
  parametersSchemaJson @2 :Text;   # a JSON Schema object
}

struct ToolInfo {
  name @0 :Text;
  description @1 :Text;
  methods @2 :List(ToolMethodInfo);
}

struct CheckoutStatus {
  # One checkout maced owns, as it is now (`mace status` without a run).
  path @0 :Text;
  node @1 :Text;        # "local", or the Slurm node that holds it
  heldBy @2 :Text;      # the run holding it; empty: free
  nodeDown @3 :Text;    # why its node takes no work now (down, drained...); empty: not known down
  jobId @4 :Text;       # the Slurm job running on it now; empty: none
  jobName @5 :Text;     # mace:<run>:<task>:<purpose>
  jobPurpose @6 :Text;  # build, simulate, unit-test-build, compile-workload, verilator-version
  refused @7 :Text;     # why maced refused it when it started (not a checkout, not patched,
                        # ...); it is never leased then. Empty: taken
}

# ---------------------------------------------------------------------------------------
# A check-up of the machine (`mace doctor`)

enum CheckTopic {
  maced @0;        # the daemon: who runs it, its state directory
  checkout @1;     # one configured OpenPiton checkout
  tool @2;         # a program builds and simulations run (Verilator, the RISC-V GCC, ...)
  workloads @3;    # maced's workloads directory and its CHECKSUMS
  disk @4;         # room left where models, the compiler cache and evidence go
  slurmNode @5;    # a node of the configuration, as Slurm sees it
  llmBackend @6;   # whether a backend could be used; never the credentials themselves
}

enum CheckLevel {
  ok @0;
  warning @1;      # some runs cannot work
  failure @2;      # no run can, or maced refuses the checkout
}

struct CheckFinding {
  topic @0 :CheckTopic;
  subject @1 :Text;   # the checkout's path, the program's, node's or backend's name
  level @2 :CheckLevel;
  what @3 :Text;      # how it stands
  fix @4 :Text;       # what to do; empty when ok
}

# ---------------------------------------------------------------------------------------
# Refusals

enum ErrorKind {
  invalid @0;       # a field of the request has a value maced does not accept
  notFound @1;      # it names a run, batch, record, log or session maced does not have
  notPermitted @2;  # it names something the caller may not see or change (another user's)
  unavailable @3;   # this maced does not offer it (no evaluation harness, no check-up)
  internal @4;      # maced failed a well-formed request; its log says why
}

struct Error {
  kind @0 :ErrorKind;
  field @1 :Text;    # the request's field it concerns ("runId", "query.maxRuns"); "" for none
  message @2 :Text;  # for people; it does not repeat the field's name
}

# ---------------------------------------------------------------------------------------
# The daemon

interface Maced {
  version @0 (errorsAsValues :Bool) -> (apiVersion :UInt32, daemonVersion :Text);
  # errorsAsValues: every later refusal on this connection comes as `error` in the results
  # (see Errors above) instead of an exception.

  submit @1 (spec :SpecSource, backend :Text, model :Text)
      -> (runId :Text, errors :List(FieldError), error :Error);
  # Validates the spec and queues a run. On any validation error, nothing is recorded,
  # `runId` is empty and `errors` lists every problem. `backend` and `model`, when not
  # empty, replace the spec's (the command line's --backend / --model). A backend that
  # cannot be used (unknown, or its credentials or CLI missing) is an error here, not an
  # hour into the run.

  watch @2 (runId :Text, listener :RunListener, afterSeq :UInt64) -> (subscription :Subscription, error :Error);
  # Streams the run's events with seq > afterSeq to `listener`, then live ones, then
  # calls `listener.done` when the run is final (at once for a run already final).

  status @3 (runId :Text, tasksFrom :UInt32, diagnosesFrom :UInt32, narrowingBuildsFrom :UInt32)
      -> (run :RunDetail, more :Bool, error :Error);
  # The run's tasks, diagnoses and narrowing builds one page at a time (about 1 MiB an
  # answer), each list from the index given here (0: its first). `more` says that one of
  # them goes on: ask again with each index moved on by what came. The summary, spec and
  # post-mortem come with every page; a text over 1 MiB (an RTL diff, a fix, a reason)
  # has its middle left out, saying how many bytes.
  # The run's failure groups and coverage come with the first page (every index 0) only.

  list @4 (filter :ListFilter) -> (runs :List(RunSummary), next :Text, error :Error);
  # Newest first, one page at a time: an answer holds at most 500 runs and about 1 MiB, so
  # no listing can pass the size of a message. `next` is "" when `runs` ends what the
  # filter selects (up to its limit); else the rest follows from filter.before = next, with
  # the limit less the runs received.

  logs @5 (runId :Text, afterSeq :UInt64, limit :UInt32) -> (entries :List(LogEntry), next :UInt64, error :Error);
  # limit 0: every entry, one page at a time (at most 5,000 events and about 1 MiB an
  # answer). `next` is 0 when `entries` ends the log as it stands (or the limit is
  # reached); else the rest follows from afterSeq = next.

  metrics @6 (runId :Text) -> (metrics :Metrics, error :Error);

  cancel @7 (runId :Text) -> (state :RunState, changed :Bool, error :Error);
  # Stops the run's builds and simulations and records it as cancelled. `changed` is
  # false when the run was already final (its state is returned unchanged).

  listTools @8 (session :Text) -> (tools :List(ToolInfo), error :Error);
  # The tools of a live tool session (see above); an unknown or ended session is an error.

  callTool @9 (session :Text, tool :Text, method :Text, argumentsJson :Text)
      -> (ok :Bool, content :Text, error :Error);
  # Runs one tool method for the agent of that session. A tool that fails answers
  # ok = false with its error in `content`; it is not an exception.

  replay @10 (runId :Text, untilIteration :UInt32) -> (runId :Text, errors :List(FieldError), error :Error);
  # Queues a replay of a finished run under a new run ID that points back at it
  # (RunSummary.replayOf): its builds and runs served from the original's cache entries,
  # its LLM replies from the original's recorded calls, every decision compared with the
  # original's; the first difference ends it `error`, naming what differed. A replay of a
  # replay replays the original. untilIteration > 0 stops after that iteration (the
  # replay then ends `cancelled`). A run still queued or running, or an untilIteration
  # beyond the original's iterations, is refused in `errors`.

  # Every LLM call attempt of a run with its prompt and reply, oldest first, from the one at
  # index `from` (0: the first), one page at a time: at most 100 calls and about 1 MiB an
  # answer, a prompt or reply over 1 MiB with its middle left out (a line says how much).
  # `next` is 0 when `calls` ends the run's calls; else the rest follows from from = next.
  calls @11 (runId :Text, from :UInt32) -> (calls :List(LlmCall), next :UInt32, error :Error);

  checkouts @12 () -> (executor :Text, checkouts :List(CheckoutStatus), error :Error);
  # Where runs' work runs ("local" or "slurm") and every checkout: its node, the run that
  # holds it, whether its node takes work, the Slurm job on it. Everyone may ask: it is
  # queue information, like `squeue`.

  readLog @13 (runId :Text, query :LogQuery) -> (chunk :LogChunk, error :Error);
  # A piece of a task's build log or of a simulation's sim.log, read by maced for a caller
  # who may read the run (docs/operating-maced.md): at most 1 MiB per answer, so a client
  # streams a file of any size by asking again from chunk.offset + chunk.data.size().

  evalSubmit @14 (suiteJson :Text, request :EvalRequest)
      -> (batchId :Text, errors :List(FieldError), error :Error);
  # Checks an evaluation suite and request (REQ-EVAL-1) and queues the batch: its jobs,
  # shuffled by the seed, run one after another as ordinary runs. Every problem is in
  # `errors` (paths start with "suite." for the suite file's fields) and nothing is
  # recorded then.

  evalReport @15 (batchId :Text, format :Text) -> (text :Text, error :Error);
  # The batch rendered: format "status" (progress per method), "text", "json", "csv"
  # (the results table) or "html" (a self-contained page with the table and plots).
  # Only the batch's submitter and maced's administrators may read it, unless others see
  # everything.

  evalCancel @16 (batchId :Text) -> (error :Error);
  # Starts no further job of the batch and cancels its run under way.

  checkSpec @17 (spec :SpecSource, backend :Text, model :Text) -> (errors :List(FieldError), error :Error);
  # What `submit` would refuse of the spec, without queueing anything (`mace spec check`):
  # its fields, and what only maced can tell: its tools, replay.from, its gate workloads
  # (each found where sims will look: maced's workloads directory, the checkouts' diags)
  # and its backend.

  logFiles @18 (runId :Text) -> (files :List(LogFile), error :Error);
  # Every log the run recorded, its narrowing rebuilds' included, oldest first.

  checkUp @19 () -> (findings :List(CheckFinding), error :Error);
  # Whether this machine can do what maced is configured to do, as maced sees it now:
  # maced itself, the programs, each checkout (also those it refused when it started), the
  # workloads, the disk, the Slurm nodes, each LLM backend. Everyone may ask; it names
  # paths and programs, never a credential. Takes a few seconds (it runs `--version`s,
  # sinfo, a CLI's auth status); concurrent asks share one check.

  repro @21 (runId :Text, iteration :UInt32, taskId :Text, workload :Text) -> (facts :ReproFacts, error :Error);
  # One recorded simulation of a run the caller may read, with its build, for `mace repro`
  # (docs/failures.md#a-reproduction-of-a-failure): iteration 0, taskId "" and workload ""
  # choose the newest iteration's first simulation that did not pass. A simulation recorded
  # before MACE kept command lines, or none that matches, is refused naming the field.

  failures @20 (query :FailureQuery) -> (history :FailureHistory, error :Error);
  # Failure signatures across the runs the caller may read (their own; every run for an
  # administrator or where others see everything), the most frequent first: when each was
  # first and last seen, the configurations and workloads it hit, and whether those passed
  # in a later run (`mace failures`). Read off the event loop; at most 100 signatures.
}

struct RunInput {
  path @0 :Text;                 # relative to the run directory
  content @1 :Data;
}

struct ReproFacts {
  # One recorded simulation and its build, as `mace repro` reruns them (core/repro.h).
  runId @0 :Text;
  iteration @1 :UInt32;
  taskId @2 :Text;
  workload @3 :Text;
  checkout @4 :Text;
  checkoutCommit @5 :Text;
  sourceFingerprint @6 :Text;
  verilator @7 :Text;
  maceVersion @8 :Text;
  maceCommit @9 :Text;
  host @10 :Text;
  buildId @11 :Text;
  buildArgv @12 :List(Text);     # sims' build command line, as formed
  buildEnvironment @13 :List(Text);  # its whole environment, "NAME=value"
  rtlEdits @14 :Text;            # the unified diff the build carried; "" for none
  simArgv @15 :List(Text);       # the simulation's command line, as executed
  simEnvironment @16 :List(Text);
  runDir @17 :Text;              # where it ran (gone once the run ended)
  inputs @18 :List(RunInput);    # what the run directory held before sims started
  inputsNote @19 :Text;          # why some or all are missing
  verdict @20 :Verdict;
  errorLine @21 :Text;
  verdictTime @22 :Int64 = -1;
  cycles @23 :Int64 = -1;
}

struct FailureQuery {
  sinceMs @0 :Int64;             # runs submitted at or after (Unix epoch ms); 0: any
  core @1 :Text;                 # "": any core
  maxRuns @2 :UInt32;            # the newest runs read, at most; 0: 1000; at most 5000
}

struct FailureSignature {
  # One failure signature across runs (docs/failures.md#failures-across-runs).
  signature @0 :Text;            # as a run's FailureGroup.signature
  verdict @1 :Verdict;
  errorLine @2 :Text;            # of its newest occurrence, as its transcript had it
  occurrences @3 :UInt32;        # failed simulations
  runs @4 :UInt32;
  firstRunId @5 :Text;
  firstAtMs @6 :Int64;           # the first run's submission
  lastRunId @7 :Text;
  lastAtMs @8 :Int64;
  configurations @9 :List(Text); # in words, most occurrences first, at most 10
  configurationsTotal @10 :UInt32;
  workloads @11 :List(Text);     # most occurrences first, at most 20
  workloadsTotal @12 :UInt32;
  passedLater @13 :UInt32;       # (configuration, workload) pairs passed in a later run
  stillFailing @14 :UInt32;      # pairs not passed since their last failure
}

struct FailureHistory {
  signatures @0 :List(FailureSignature);
  signaturesTotal @1 :UInt32;    # before the cut to 100
  runsRead @2 :UInt32;
  moreRuns @3 :Bool;             # runs of the window were not read (maxRuns)
}

struct EvalRequest {
  # `mace eval submit`'s options.
  methods @0 :List(Text);        # mace, baseline, baseline_retry, fault_check, codesign, seeded_fault, codesign_llm
  repeats @1 :UInt32 = 1;        # 1..100
  seed @2 :UInt64;               # shuffles the jobs (REQ-EVAL-2) and seeds each job
  keepModels @3 :Bool = false;   # keep the checkouts' mace_* model directories (REQ-EVAL-4)
  baselineRetries @4 :UInt32 = 2;  # baseline_retry's retries, 1..10
  backend @5 :Text;              # for mace and the LLM baselines; empty: each task's own
  model @6 :Text;
}

#pragma once
// The MACE loop for one run, as the spec tells it: verify the workload checksums, then
// iterate — check the budget, plan, run the plan's levels in batches, verify, and when an
// iteration fails, narrow and diagnose its first failed task — until an iteration passes
// or a limit ends the run; then, for a run that did not pass, ask for a post-mortem
// (REQ-PLAN-*, REQ-EXEC-1..3, REQ-VER-9..11, REQ-FAIL-*, REQ-BUD-3..8). It is sequential
// logic over three injected parts, so it knows nothing of threads, sockets, processes or
// the store:
//   Planner     turns a prompt into a reply (an LLM backend, or the direct planner), and
//               answers diagnosis and post-mortem prompts when it has an LLM;
//   TaskRunner  builds and simulates a batch of tasks on the run's checkouts (the
//               executor: local today, Slurm later) — concurrency lives there;
//   LoopObserver hears every decision, to record and show it.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/build_outcome.h"
#include "core/diagnosis.h"
#include "core/failure_reason.h"
#include "core/plan.h"
#include "core/plan_checks.h"
#include "core/post_mortem.h"
#include "core/run_spec.h"
#include "core/run_state.h"
#include "core/verdict.h"

namespace mace::loop {

using Clock = std::chrono::steady_clock;

struct PlannerReply {
  bool ok = false;
  std::string text;
  double cost_usd = 0;  // counts towards budget.max_usd (REQ-BUD-5)
  std::string error;    // when !ok, after the backend's own retries (REQ-BUD-14)
};

// RTL edits as the full new content of each file, in the order they apply: a later entry
// for a path replaces an earlier one (REQ-EXEC-15). The loop only carries them from task to
// task and iteration to iteration (REQ-EXEC-19); the executor applies and restores them.
struct RtlEdits {
  struct File {
    std::string path;  // relative to the checkout root, under piton/design/
    std::string content;
    bool operator==(const File&) const = default;
  };
  std::vector<File> files;

  bool empty() const { return files.empty(); }
  void append(const RtlEdits& later) { files.insert(files.end(), later.files.begin(), later.files.end()); }
  std::vector<std::string> paths() const;  // sorted, unique
  bool operator==(const RtlEdits&) const = default;
};

// One task of a batch, ready to execute on the run's checkout `slot` (REQ-EXEC-2).
struct TaskJob {
  PlannedTask task;
  std::vector<std::string> defines;  // the task's and its dependencies' (REQ-EXEC-5)
  CacheGeometry caches;              // every cache, defaults filled in
  std::size_t slot = 0;
  std::chrono::milliseconds build_limit{0};  // capped by the budget (REQ-BUD-11)
  std::chrono::milliseconds run_limit{0};
  // Non-empty for a narrowing rebuild of task.id (REQ-FAIL-12): which changes it undoes.
  std::string narrowing = {};
  // Make the task's prompt call first (REQ-EXEC-10, 11, 18): only with task prompts on.
  bool prompt = false;
  // Simulate the gate workloads once built; off for a build-only check, whose tasks pass
  // on their build (RunOptions::build_only).
  bool simulate = true;
  // The edits the task's build starts from: those carried from the last iteration and
  // those of the rtl tasks it depends on (REQ-EXEC-15, 19). An rtl task adds its own.
  RtlEdits edits = {};
};

struct WorkloadVerdict {
  std::string workload;
  Verdict verdict = Verdict::none;
  std::string run_dir = {};
  double wall_s = 0;
  int returncode = 0;
};

struct TaskOutcome {
  std::string task_id;
  bool passed = false;        // REQ-VER-5
  bool built = false;
  FailureReason failure_reason = FailureReason::none;
  std::vector<WorkloadVerdict> verdicts;
  std::vector<std::string> evidence;  // error lines or the simulation log's tail
  std::string build_id = {};
  bool reused = false;
  // When reused: "checkout" or "store" (openpiton::reuse_source), and for the store where
  // the model was built; what went wrong with the model store, to be logged.
  std::string reused_from = {};
  std::string build_origin = {};
  std::vector<std::string> store_notes = {};
  std::string checkout = {};
  // For triage (REQ-FAIL-2): the failed build's output tail, the last run's sim.log tail
  // and status.log.
  std::string build_output_tail = {};
  std::string sim_log_tail = {};
  std::string status_log = {};
  std::string build_log = {};  // the build's transcript file, for the diagnostic tools
  // The edits the build carried (the job's and, for an rtl task, its agent's), their
  // unified diff, and for an rtl or unit_test task the agent's closing words.
  RtlEdits applied_edits = {};
  std::string edits_diff = {};
  std::string edits_hash = {};
  std::string agent_reply = {};
  bool agent_recorded_no_edit = false;  // an rtl task whose agent changed nothing (REQ-EXEC-16)
  // What the task's own LLM calls cost (a task prompt, an agent), for REQ-BUD-5.
  double llm_cost_usd = 0;

  BuildOutcome build_outcome() const {
    if (!built) return build_id.empty() ? BuildOutcome::none : BuildOutcome::failed;
    return reused ? BuildOutcome::reused : BuildOutcome::succeeded;
  }
};

enum class TriagePhase { diagnosis, post_mortem };

class Planner {
 public:
  virtual ~Planner() = default;
  virtual PlannerReply plan(const std::string& prompt) = 0;
  // Whether diagnosis and post-mortem calls can be made at all; the direct planner has
  // no LLM, so its runs rely on narrowing alone and get no post-mortem.
  virtual bool can_triage() const = 0;
  // Whether its plans may choose the on-chip network (NETWORK: lines): only a co-design
  // search's (REQ-EXEC-5); any other planner's are skipped.
  virtual bool chooses_network() const { return false; }
  // Whether a later plan may differ from one that failed: an LLM learns from the failure
  // in its next prompt. A planner that answers every prompt alike (the direct planner, an
  // evaluation's fixed plan) would only repeat a failed iteration, so the run ends after
  // it instead, saying why (`who` names it there).
  virtual bool replans() const { return true; }
  virtual std::string who() const { return "the planner"; }
  // One diagnosis (REQ-FAIL-1) or post-mortem (REQ-FAIL-10) call. `failed` is the task
  // the call is about: its logs and run directories are what the diagnostic tools may
  // read (REQ-FAIL-5); null when there is none. The prompt is written once the tools are
  // known to have started or not (REQ-FAIL-7): `prompt(tools_offered)`.
  virtual PlannerReply triage(TriagePhase phase,
                              const std::function<std::string(bool tools_offered)>& prompt,
                              const TaskOutcome* failed) = 0;
};


class TaskRunner {
 public:
  virtual ~TaskRunner() = default;
  // Runs the batch's config and workload tasks concurrently (REQ-EXEC-3) and returns one
  // outcome per job, in order.
  virtual std::vector<TaskOutcome> run_batch(int iteration, const std::vector<TaskJob>& jobs) = 0;
};

class LoopObserver {
 public:
  virtual ~LoopObserver() = default;
  virtual void iteration_started(int /*iteration*/) {}
  virtual void plan_made(int /*iteration*/, const Plan& /*plan*/, const std::string& /*reply*/) {}
  virtual void level_started(int /*iteration*/, std::size_t /*level*/,
                             const std::vector<std::string>& /*task_ids*/) {}
  virtual void task_finished(int /*iteration*/, const TaskJob& /*job*/,
                             const TaskOutcome& /*outcome*/) {}
  virtual void iteration_finished(int /*iteration*/, bool /*passed*/, double /*cost_usd*/,
                                  double /*wall_s*/) {}
  virtual void note(const std::string& /*message*/) {}
  // A narrowing rebuild ended (REQ-FAIL-12); job.narrowing says what it undid.
  virtual void narrowing_finished(int /*iteration*/, const TaskJob& /*job*/,
                                  const TaskOutcome& /*outcome*/) {}
  // REQ-FAIL-8: a failed task's diagnosis, whatever settled it.
  virtual void diagnosed(int /*iteration*/, const std::string& /*task_id*/,
                         const Diagnosis& /*diagnosis*/) {}
  // REQ-FAIL-9: the run passed after failures; every failure of the run is recovered.
  virtual void failures_recovered() {}
  // REQ-FAIL-10: a post-mortem with an assessment (one without is only noted).
  virtual void post_mortem_made(const PostMortem& /*post_mortem*/) {}
};

struct LoopInputs {
  const RunSpec& spec;
  std::size_t checkouts = 1;     // leased to the run
  // False for the evaluation's fault checks and LLM baselines (REQ-EVAL-5, 11): a failed
  // task is not triaged (no narrowing rebuild, no diagnosis), so they check exactly the
  // designs they propose and a retry sees only the failure itself.
  bool triage_failures = true;
  CacheGeometry default_caches;  // the checkout's own (cache_defaults.h)
  std::function<Clock::time_point()> now = Clock::now;
  std::function<bool()> cancelled = [] { return false; };
  // Problems with workloads/ against its CHECKSUMS (REQ-BUD-7); empty: all match.
  std::function<std::vector<std::string>()> checksum_problems = [] {
    return std::vector<std::string>{};
  };
  // Whether a unit_test task's module path names a module of the checkout (REQ-PLAN-15);
  // unset: the rule is skipped.
  std::function<bool(const std::string&)> module_exists = {};
  // Whether any file of the checkout mentions a define (REQ-PLAN-15); unset: all do.
  std::function<bool(const std::string&)> define_mentioned = {};
  // Defines the objective names as needed, already known to the checkout (REQ-PLAN-15):
  // every task that builds gets them. See objective_defines().
  std::vector<std::string> objective_defines = {};
  // core generic (REQ-EXEC-20): why the Generic Tile cannot host the descriptor's core or
  // the checkout lacks one of its files, asked before any LLM call; nullopt: it can.
  // Unset: nothing to check.
  std::function<std::optional<std::string>()> unsupported_core = {};
  // core generic: the files every build of the run carries before its own edits (the
  // descriptor's file list, link script and wrapper skeleton), and which of them is the
  // wrapper: while the wrapper carried into a plan is still this skeleton, REQ-PLAN-15's
  // generic rules apply.
  RtlEdits generic_files = {};
  std::string generic_wrapper_path = {};
};

// The upper-snake-case words of an objective that could be RTL defines ("Enable
// PITON_EXTRA_MEMS on 2x2" → PITON_EXTRA_MEMS), for the caller to check against the
// checkout: words with an underscore, at least 3 characters, not starting with a digit.
std::vector<std::string> define_candidates(const std::string& objective);

struct LoopResult {
  RunState state = RunState::error;
  std::string reason;
  int iterations = 0;
  double cost_usd = 0;  // the post-mortem's included
};

inline constexpr std::chrono::milliseconds kBuildTimeLimit = std::chrono::hours(2);
inline constexpr std::chrono::milliseconds kRunTimeLimit = std::chrono::hours(1);

LoopResult run_loop(const LoopInputs& in, Planner& planner, TaskRunner& runner,
                    LoopObserver& observer);

}  // namespace mace::loop

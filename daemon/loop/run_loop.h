#pragma once
// The MACE loop for one run, as the spec tells it: verify the workload checksums, then
// iterate — check the budget, plan, run the plan's levels on the run's checkouts, verify,
// and when an iteration fails, narrow and diagnose its first failed task — until an
// iteration passes or a limit ends the run; then, for a run that did not pass, ask for a
// post-mortem (REQ-PLAN-*, REQ-EXEC-1..3, REQ-VER-9..11, REQ-FAIL-*, REQ-BUD-3..8). It is
// sequential logic over three injected parts, so it knows nothing of threads, sockets,
// processes or the store:
//   Planner     turns a prompt into a reply (an LLM backend, or the direct planner), and
//               answers diagnosis and post-mortem prompts when it has an LLM;
//   TaskRunner  holds the run's checkouts and builds and simulates tasks on them (the
//               executor, local or Slurm, and maced's pool; loop/task_runner.h) —
//               concurrency lives there; which task goes where is loop/dispatcher.h;
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
#include "core/llm_phase.h"
#include "core/plan.h"
#include "core/plan_checks.h"
#include "core/post_mortem.h"
#include "core/run_spec.h"
#include "core/run_state.h"
#include "core/verdict.h"
#include "loop/dispatcher.h"
#include "loop/task_job.h"
#include "loop/task_runner.h"

namespace mace::loop {

using Clock = std::chrono::steady_clock;

struct PlannerReply {
  bool ok = false;
  std::string text;
  double cost_usd = 0;  // counts towards budget.max_usd (REQ-BUD-5)
  std::string error;    // when !ok, after the backend's own retries (REQ-BUD-14)
};

enum class TriagePhase { diagnosis, post_mortem };
inline LlmPhase llm_phase(TriagePhase phase) {
  return phase == TriagePhase::diagnosis ? LlmPhase::diagnosis : LlmPhase::post_mortem;
}

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


class LoopObserver {
 public:
  virtual ~LoopObserver() = default;
  virtual void iteration_started(int /*iteration*/) {}
  virtual void plan_made(int /*iteration*/, const Plan& /*plan*/, const std::string& /*reply*/) {}
  virtual void level_started(int /*iteration*/, std::size_t /*level*/,
                             const std::vector<std::string>& /*task_ids*/) {}
  // A task of the plan is ready but waits, and why (no free checkout, a model another task
  // is building, a checkout lost to the infrastructure); told again when the reason changes.
  virtual void task_waiting(int /*iteration*/, const TaskJob& /*job*/, const std::string& /*why*/) {}
  virtual void task_started(int /*iteration*/, const TaskJob& /*job*/) {}
  virtual void task_finished(int /*iteration*/, const TaskJob& /*job*/,
                             const TaskOutcome& /*outcome*/) {}
  // A task's (or a narrowing rebuild's) work was lost to the infrastructure: never its
  // outcome; `next` says what happens now (run again elsewhere, or the run ends).
  virtual void task_lost(int /*iteration*/, const TaskJob& /*job*/, const TaskOutcome& /*outcome*/,
                         const std::string& /*next*/) {}
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
  // How levels go onto checkouts (core/dispatch.h); the spec's `dispatch` wins when set.
  Dispatch dispatch = Dispatch::queue;
  // How often one task may be lost to the infrastructure and run again elsewhere.
  int infrastructure_retries = 3;
  // What a task is expected to take and the model it needs, for the queue's order;
  // unset: plan order, and no task waits for another's model.
  std::function<ExpectedTime(const TaskJob&)> expected = {};
  // Whether a model one checkout built is found by the others (a model store).
  bool models_shared = true;
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
  // Searches the checkout for a define (REQ-PLAN-15); unset: every define is mentioned.
  std::function<DefineLookup(const std::string&)> find_define = {};
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

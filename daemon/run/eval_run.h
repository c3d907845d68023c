#pragma once
// What a run made for an evaluation job does beyond an ordinary run (REQ-EVAL-4, 9, 11,
// 12): before it starts, each of its checkouts loses every mace_* model directory (unless
// the batch keeps them) and any RTL edit or fault an interrupted job left; its environment
// is recorded; a fault check plans the expert configuration itself and a source fault's
// edits go into every build of the run (applied and restored by the executor, journalled
// so that a maced killed mid-build restores them on its next start).

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/run_outcome.h"
#include "core/run_state.h"
#include "eval/job_instructions.h"
#include "loop/run_loop.h"
#include "openpiton/checkout.h"
#include "openpiton/edit_set.h"
#include "run/run_recorder.h"
#include "store/store.h"

namespace mace::run {

// The job's instructions when `recorder`'s run belongs to an evaluation job; nullopt for
// an ordinary run. Throws std::runtime_error when the recorded instructions do not parse.
std::optional<eval::JobInstructions> eval_job_of(RunRecorder& recorder);

// REQ-EVAL-4 and 12, for each checkout: models removed (unless kept) and leftovers of an
// interrupted job restored; each step said in the run's log.
void prepare_eval_checkouts(RunRecorder& recorder, const eval::JobInstructions& job,
                            const std::vector<openpiton::Checkout>& checkouts);

// A source fault's edits as the executor applies them.
openpiton::EditSet fault_edit_set(const eval::JobInstructions& job);

// REQ-EVAL-11: what a fault check's run concluded, from how its loop ended, its tasks and
// (for a build-only check) its designs' re-simulations. Caught: a gate workload failed the
// design with the fault (which one, with which verdict), or its build did; the run is
// `failed`. Missed: every gate workload passed it; the run is `passed`. A check that could
// not tell (cancelled, an error, a workload that cannot run) keeps its state and has no
// outcome.
struct FaultCheckConclusion {
  RunState state = RunState::error;
  std::string reason;
  RunOutcome outcome = RunOutcome::none;
};
FaultCheckConclusion conclude_fault_check(const eval::JobInstructions& job, RunState state,
                                          const std::string& reason,
                                          const std::vector<store::TaskRecord>& tasks,
                                          const std::vector<store::EvalResimulationRecord>& resimulated);

// The planner of a fault check or an enumerated co-design search: its one plan is the
// expert configuration (with a config fault laid over it), or the search's designs; no LLM
// (REQ-EVAL-8, 11). Only the search's designs may choose a network.
class FixedPlanner final : public loop::Planner {
 public:
  // `who` names it in a run's reason ("the fault check").
  FixedPlanner(std::string reply, bool chooses_network, std::string who)
      : reply_(std::move(reply)), chooses_network_(chooses_network), who_(std::move(who)) {}
  loop::PlannerReply plan(const std::string&) override { return {true, reply_, 0.0, ""}; }
  bool can_triage() const override { return false; }
  bool chooses_network() const override { return chooses_network_; }
  bool replans() const override { return false; }
  std::string who() const override { return who_; }
  loop::PlannerReply triage(loop::TriagePhase, const std::function<std::string(bool)>&,
                            const loop::TaskOutcome*) override {
    return {false, "", 0.0, "a fault check makes no LLM call"};
  }

 private:
  std::string reply_;
  bool chooses_network_;
  std::string who_;
};

}  // namespace mace::run

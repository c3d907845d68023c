#pragma once
// The planner that calls no LLM (backend "direct"): one config task building the spec's
// core and mesh with OpenPiton's defaults, gated on the workloads. For regressions and
// machines without credentials. With no LLM, failures are diagnosed by narrowing alone
// and no post-mortem is asked; and since every plan is the same, a failed iteration ends
// the run (it does not try to meet the objective, core/run_outcome.h).

#include "core/direct_planner.h"
#include "loop/run_loop.h"

namespace mace::loop {

class DirectPlanner final : public Planner {
 public:
  explicit DirectPlanner(const RunSpec& spec) : spec_(spec) {}
  PlannerReply plan(const std::string& /*prompt*/) override {
    return {true, direct_plan_reply(spec_), 0.0, ""};
  }
  bool can_triage() const override { return false; }
  bool replans() const override { return false; }
  std::string who() const override { return "the direct planner"; }
  PlannerReply triage(TriagePhase, const std::function<std::string(bool)>&,
                      const TaskOutcome*) override {
    return {false, "", 0.0, "the direct planner makes no LLM call"};
  }

 private:
  const RunSpec& spec_;
};

}  // namespace mace::loop

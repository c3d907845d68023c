#pragma once
// The LLM co-design proposer (REQ-EVAL-6, 8): the run's own LLM planner, asked with the
// loop's own planning prompt (the planner's rendering of the task's inputs) and told the
// cache area model, the task's budget and the networks it may choose; of its reply the
// config tasks' designs are kept, those whose area fits the budget and whose network the
// search offers on the task's core and mesh, at most kMaxCodesignDesigns, and become one
// plan with a config task per design, each built and checked through the loop.

#include <memory>
#include <string>

#include "core/run_spec.h"
#include "loop/run_loop.h"

namespace mace::run {

// What the proposer adds to the planning prompt: the model, the budget, the networks.
std::string codesign_instruction(const RunSpec& spec, double area_budget);

// The designs of `reply` whose area fits `area_budget` and whose network the search offers,
// as a co-design plan; empty when there is none (the loop refuses an empty plan and asks
// again), so no design outside the budget is ever built.
std::string codesign_designs_reply(const RunSpec& spec, const std::string& reply, double area_budget);

class CodesignPlanner final : public loop::Planner {
 public:
  CodesignPlanner(std::unique_ptr<loop::Planner> llm, const RunSpec& spec, double area_budget)
      : llm_(std::move(llm)), spec_(spec), area_budget_(area_budget) {}

  loop::PlannerReply plan(const std::string& prompt) override;
  bool can_triage() const override { return false; }
  bool chooses_network() const override { return true; }
  loop::PlannerReply triage(loop::TriagePhase, const std::function<std::string(bool)>&,
                            const loop::TaskOutcome*) override {
    return {false, "", 0.0, "a co-design search makes no diagnosis or post-mortem call"};
  }

 private:
  std::unique_ptr<loop::Planner> llm_;
  const RunSpec& spec_;
  double area_budget_;
};

}  // namespace mace::run

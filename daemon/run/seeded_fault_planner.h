#pragma once
// The planner of a seeded-fault run (REQ-EVAL-10): the run's own planner, whose first plan
// gets a config fault laid over every config and workload task (the fault's CACHES: and
// CONFIG_RTL: lines appended for each, which the plan parser applies after the planner's
// own); every later plan is the planner's as it is. The loop then has to notice the broken
// design and recover, as it would from its own mistake.

#include <memory>
#include <string>

#include "eval/suite.h"
#include "loop/run_loop.h"

namespace mace::run {

// `reply` with `fault` laid over each of its config and workload tasks; unchanged when it
// has none.
std::string with_seeded_fault(const std::string& reply, const eval::SuiteConfig& fault);

class SeededFaultPlanner final : public loop::Planner {
 public:
  SeededFaultPlanner(std::unique_ptr<loop::Planner> planner, eval::SuiteConfig fault)
      : planner_(std::move(planner)), fault_(std::move(fault)) {}

  loop::PlannerReply plan(const std::string& prompt) override;
  bool can_triage() const override { return planner_->can_triage(); }
  loop::PlannerReply triage(loop::TriagePhase phase, const std::function<std::string(bool)>& prompt,
                            const loop::TaskOutcome* failed) override {
    return planner_->triage(phase, prompt, failed);
  }

 private:
  std::unique_ptr<loop::Planner> planner_;
  eval::SuiteConfig fault_;
  bool seeded_ = false;
};

}  // namespace mace::run

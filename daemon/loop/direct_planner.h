#pragma once
// The planner that calls no LLM (backend "direct"): one config task building the spec's
// core and mesh with OpenPiton's defaults, gated on the workloads. For regressions and
// machines without credentials.

#include "core/direct_planner.h"
#include "loop/run_loop.h"

namespace mace::loop {

class DirectPlanner final : public Planner {
 public:
  explicit DirectPlanner(const RunSpec& spec) : spec_(spec) {}
  PlannerReply plan(const std::string& /*prompt*/) override {
    return {true, direct_plan_reply(spec_), 0.0, ""};
  }

 private:
  const RunSpec& spec_;
};

}  // namespace mace::loop

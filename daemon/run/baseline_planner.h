#pragma once
// The LLM baselines' planner (REQ-EVAL-5, 6): the run's own LLM planner, asked with the
// loop's own planning prompt (the planner's rendering of the task's inputs) and told to
// propose exactly one configuration; of its reply only the first config task and its
// CACHES: and CONFIG_RTL: lines are kept, so the baseline builds one design per call. The
// loop then checks it through the same build-and-check path, timeouts and pass rule as
// any run. No diagnosis or post-mortem calls: a baseline that retries sees its failure in
// the loop's next planning prompt and nothing more.

#include <memory>
#include <string>

#include "core/run_spec.h"
#include "loop/run_loop.h"

namespace mace::run {

// What the baseline adds to the planning prompt.
inline constexpr std::string_view kBaselineInstruction =
    "\n\nBASELINE MODE: propose exactly one configuration for this task: a single TASK line of "
    "kind=config with its CACHES: and CONFIG_RTL: lines. Any other task is ignored.\n";

// The reply cut down to its first config task (with that task's caches and defines), or
// the reply unchanged when it has none (the loop then refuses it as any unusable plan).
std::string single_configuration_reply(const RunSpec& spec, const std::string& reply);

class BaselinePlanner final : public loop::Planner {
 public:
  BaselinePlanner(std::unique_ptr<loop::Planner> llm, const RunSpec& spec)
      : llm_(std::move(llm)), spec_(spec) {}

  loop::PlannerReply plan(const std::string& prompt) override;
  bool can_triage() const override { return false; }
  loop::PlannerReply triage(loop::TriagePhase, const std::function<std::string(bool)>&,
                            const loop::TaskOutcome*) override {
    return {false, "", 0.0, "a baseline makes no diagnosis or post-mortem call"};
  }

 private:
  std::unique_ptr<loop::Planner> llm_;
  const RunSpec& spec_;
};

}  // namespace mace::run

#pragma once
// The planner of an LLM backend, which also answers the diagnosis and post-mortem calls and
// makes the tasks' prompt and agent calls (REQ-EXEC-7, 10, 14, REQ-FAIL-1, 10): each call
// with the vendor's retries (REQ-BUD-14), each attempt recorded in llm_calls (REQ-BUD-12),
// each offered the run's tools (REQ-EXEC-7) plus its own.

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "llm/cost_accounting.h"
#include "llm/llm.h"
#include "llm/retry.h"
#include "loop/run_loop.h"
#include "os/cancel_token.h"
#include "run/run_recorder.h"

namespace mace::run {

class LlmPlanner final : public loop::Planner {
 public:
  // The diagnostic tool of a call about a failed task (REQ-FAIL-5, 7); nullopt when none
  // can be offered (the callee says why).
  using DiagnosticToolFor = std::function<std::optional<llm::Tool>(const loop::TaskOutcome*)>;

  struct Parts {
    std::unique_ptr<llm::Backend> backend;
    llm::RetryPolicy retry;
    std::vector<llm::Tool> run_tools;  // offered on every call (REQ-EXEC-7)
    DiagnosticToolFor diagnostic_tool;
    std::function<int()> iteration;    // the loop's current iteration
    // What each attempt counts toward max_usd when its vendor reports no cost (REQ-BUD-5).
    llm::CostAccounting accounting;
  };

  // `cancel` ends a rate-limit wait at once; it must outlive the planner.
  LlmPlanner(Parts parts, RunRecorder& recorder, const os::CancelToken& cancel);

  loop::PlannerReply plan(const std::string& prompt) override;
  bool can_triage() const override { return true; }
  loop::PlannerReply triage(loop::TriagePhase phase,
                            const std::function<std::string(bool)>& prompt,
                            const loop::TaskOutcome* failed) override;

  // REQ-EXEC-10, 11: a config or workload task's prompt call. Called from the executor's
  // threads, so it takes the iteration.
  loop::PlannerReply task(int iteration, const std::string& task_id, const std::string& prompt);
  // The agent call of an rtl or unit_test task: the run's tools and the task's own
  // (REQ-EXEC-7, 8, 14).
  loop::PlannerReply agent(int iteration, const std::string& task_id, const std::string& prompt,
                           std::vector<llm::Tool> task_tools);

 private:
  loop::PlannerReply ask(LlmPhase phase, const std::string& prompt,
                         const std::string& task_id, int iteration,
                         const std::vector<llm::Tool>& tools);
  void record(LlmPhase phase, const std::string& task_id, int iteration,
              const std::string& prompt, const llm::Reply& reply);
  // Says in the run's log, once per run, that a call's cost was not reported.
  void note_unreported_cost(const llm::Reply& reply);

  Parts parts_;
  RunRecorder& recorder_;
  const os::CancelToken& cancel_;
  std::mutex note_mutex_;  // task calls come from the executor's threads
  bool noted_unreported_cost_ = false;
};

}  // namespace mace::run

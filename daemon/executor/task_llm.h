#pragma once
// The LLM calls a task makes: the prompt call of a config or workload task (REQ-EXEC-10,
// 11), and the agent call of an rtl or unit_test task, with the task's own tools beside
// the run's (REQ-EXEC-8, 14). The executor builds the task's tools, because they work on
// the task's checkout; the run makes the calls, records them and offers the run's tools.
// A replay answers them from the record. No TaskLlm (the direct planner has no LLM): no
// prompt calls, rtl tasks record no edit, unit_test tasks build their scaffold as it is.

#include <functional>
#include <string>
#include <vector>

#include "llm/llm.h"
#include "loop/run_loop.h"

namespace mace::executor {

class TaskLlm {
 public:
  virtual ~TaskLlm() = default;
  // Returns the call's cost. Its failure is the callee's to log: the task builds anyway
  // (REQ-EXEC-11).
  virtual double prompt(int iteration, const loop::TaskJob& job) = 0;
  virtual loop::PlannerReply agent(int iteration, const loop::TaskJob& job,
                                   const std::string& prompt,
                                   std::vector<llm::Tool> task_tools) = 0;
};

// An agent call as the rtl and unit_test tasks make it; empty: no agent.
using Agent = std::function<loop::PlannerReply(int iteration, const loop::TaskJob& job,
                                               const std::string& prompt,
                                               std::vector<llm::Tool> task_tools)>;

}  // namespace mace::executor

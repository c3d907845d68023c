#pragma once
// The agent call an rtl or unit_test task makes (REQ-EXEC-8, 14): one LLM call with the
// task's own tools beside the run's. The executor builds the tools, because they work on
// the task's checkout; the daemon makes the call, records it and offers the run's tools.
// No agent (the direct planner has no LLM): rtl tasks record no edit, unit_test tasks
// build their scaffold as it is.

#include <functional>
#include <string>
#include <vector>

#include "llm/llm.h"
#include "loop/run_loop.h"

namespace mace::executor {

using Agent = std::function<loop::PlannerReply(int iteration, const loop::TaskJob& job,
                                               const std::string& prompt,
                                               std::vector<llm::Tool> task_tools)>;

}  // namespace mace::executor

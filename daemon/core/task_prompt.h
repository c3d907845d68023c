#pragma once
// The prompt of a config or workload task's own LLM call (REQ-EXEC-10, 11, 18), made only
// when the spec turns task prompts on and the fast path off. Its reply changes nothing
// that is built or run: it is a record of the model's reading of the task, and the call
// a caller's tools ride on (REQ-EXEC-7).

#include <string>

#include "core/plan.h"
#include "core/run_spec.h"

namespace mace {

std::string task_prompt(const RunSpec& spec, const PlannedTask& task);

}  // namespace mace

#pragma once
// The prompts of the tasks that make an agent call whatever the options say: an rtl task
// changes the design's source through the rtl_edit tool (REQ-EXEC-14), a unit_test task
// reconciles a scaffolded testbench with its module through its ut_edit tool (REQ-EXEC-8).
// The rules are stated in the prompt, and the tools enforce them regardless.

#include <string>
#include <vector>

#include "core/plan.h"
#include "core/run_spec.h"

namespace mace {

// `edited_files`: the files the edits this task starts from already change (REQ-EXEC-19).
// `core_brief`: for the core generic, the wrapper to write, the interface it presents and
// the core's ports (REQ-PLAN-15); empty otherwise.
std::string rtl_prompt(const RunSpec& spec, const PlannedTask& task,
                       const std::vector<std::string>& edited_files,
                       const std::string& tool_name, const std::string& core_brief = "");

// `ports`: the module's interface as text; `tool_name`: ut_edit_<8 hex>.
std::string unit_test_prompt(const RunSpec& spec, const PlannedTask& task,
                             const std::string& module_path, const std::string& ports,
                             const std::string& tool_name);

}  // namespace mace

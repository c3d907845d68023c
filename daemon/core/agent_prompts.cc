#include "core/agent_prompts.h"

#include "core/prompt_text.h"

namespace mace {
namespace {

void run_inputs(std::string& out, const RunSpec& spec) {
  out += "Run: core " + std::string(to_string(spec.core)) + ", mesh " + std::to_string(spec.mesh_x) +
         "x" + std::to_string(spec.mesh_y) + "\nObjective:\n";
  append_indented(out, spec.objective, "  ");
  out += "Gate workloads (the design passes only when every one of them passes):\n";
  append_list(out, spec.workloads);
}

}  // namespace

std::string rtl_prompt(const RunSpec& spec, const PlannedTask& task,
                       const std::vector<std::string>& edited_files, const std::string& tool_name,
                       const std::string& core_brief) {
  std::string out = "You are changing the RTL of an OpenPiton design for one task of a run.\n\n";
  run_inputs(out, spec);
  out += "\nTask " + task.id + ":\n";
  append_indented(out, task.instruction, "  ");
  out += core_brief;
  if (!edited_files.empty()) {
    out += "\nThe checkout already carries earlier edits to these files; you see them as "
           "edited:\n";
    append_list(out, edited_files);
  }
  out += "\nRules:\n"
         "  - Change files only through the " + tool_name + " tool: list, read and search "
         "find the code, replace makes one change. Paths are relative to the checkout root "
         "and must lie under piton/design/; the testbench and monitors under piton/verif/ "
         "cannot change.\n"
         "  - A replacement's old text must match exactly one place in the file: include "
         "enough surrounding lines to make it unique.\n"
         "  - Make the smallest change that does the task. MACE builds the edited design with "
         "Verilator and runs the gate workloads on it after you finish.\n"
         "  - When you are done, say in a few sentences what you changed and why. If you "
         "decide no change is needed, say why.\n";
  return out;
}

std::string unit_test_prompt(const RunSpec& spec, const PlannedTask& task,
                             const std::string& module_path, const std::string& ports,
                             const std::string& tool_name) {
  std::string out = "You are making an OpenPiton unit-test environment build for one module.\n\n";
  run_inputs(out, spec);
  out += "\nTask " + task.id + ": a unit test for " + module_path + "\n";
  append_indented(out, task.instruction, "  ");
  out += "\nOpenPiton's create_env.py scaffolded a testbench for it. The scaffold instantiates "
         "a placeholder module with example pins and leaves placeholders such as "
         "SRC_BIT_WIDTH and NUM_TEST_CASES. The module's interface:\n";
  append_indented(out, ports, "  ");
  out += "\nUse the " + tool_name + " tool: read the testbench and the module's source, then "
         "rewrite the testbench so that it instantiates the module with every port connected "
         "by name and every placeholder defined. Verilator builds the environment after you "
         "finish; the task passes when it builds. When you are done, say what you changed.\n";
  return out;
}

}  // namespace mace

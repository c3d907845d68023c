#include "core/task_prompt.h"

#include "core/prompt_text.h"

namespace mace {

std::string task_prompt(const RunSpec& spec, const PlannedTask& task) {
  std::string out = "You are carrying out one task of an OpenPiton hardware run.\n\n";
  out += "Run: core " + std::string(to_string(spec.core)) + ", mesh " + std::to_string(spec.mesh_x) +
         "x" + std::to_string(spec.mesh_y) + "\nObjective:\n";
  append_indented(out, spec.objective, "  ");
  out += "Gate workloads:\n";
  append_list(out, spec.workloads);
  out += "\nTask " + task.id + " (kind " + std::string(to_string(task.kind)) + "):\n";
  append_indented(out, task.instruction, "  ");
  if (!task.caches.empty() || !task.config_rtl.empty()) {
    out += "Its configuration:\n";
    for (const auto& [name, g] : task.caches)
      out += "  " + name + " " + describe(g) + "\n";
    for (const auto& define : task.config_rtl) out += "  define " + define + "\n";
  }
  out += "\nMACE builds this configuration with Verilator and runs the gate workloads on it "
         "whatever you answer. Say in a few sentences what you expect the build and the "
         "workloads to show, and use your tools if they help.\n";
  return out;
}

}  // namespace mace

#include "core/direct_planner.h"

#include "core/joined.h"

namespace mace {
namespace {

std::string mesh_words(const RunSpec& spec) {
  return std::string(to_string(spec.core)) + " " + std::to_string(spec.mesh_x) + "x" + std::to_string(spec.mesh_y) +
         " mesh";
}

}  // namespace

std::string design_task_lines(const std::string& id, const std::string& instruction,
                              const std::map<std::string, CacheOverride>& caches,
                              const std::vector<std::string>& config_rtl, const std::string& network) {
  std::string lines = "TASK: " + id + " | deps= | kind=config | " + instruction + "\n";
  if (!caches.empty()) {
    lines += "CACHES: " + id + " |";
    for (const auto& [name, cache] : caches) {
      lines += " " + name + "=";
      if (cache.size) lines += std::to_string(cache.size);
      if (cache.associativity) lines += "," + std::to_string(cache.associativity);
    }
    lines += "\n";
  }
  if (!config_rtl.empty()) lines += "CONFIG_RTL: " + id + " | " + joined(config_rtl, " ") + "\n";
  if (!network.empty()) lines += "NETWORK: " + id + " | " + network + "\n";
  return lines;
}

std::string direct_plan_reply(const RunSpec& spec) {
  if (!spec.names_designs())
    return design_task_lines("build", "Build the " + mesh_words(spec) + " with OpenPiton's defaults and run " +
                                          joined(spec.workloads),
                             {}, {});
  std::string reply;
  for (const DesignPoint& design : spec.all_designs())
    reply += design_task_lines(design.name,
                               "Build design " + design.name + " (" + design_text(design) + ") of the " +
                                   mesh_words(spec) + " and run " + joined(spec.workloads),
                               design.caches, design.config_rtl);
  return reply;
}

}  // namespace mace

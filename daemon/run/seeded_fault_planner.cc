#include "run/seeded_fault_planner.h"

#include "core/joined.h"
#include "core/plan.h"

namespace mace::run {

std::string with_seeded_fault(const std::string& reply, const eval::SuiteConfig& fault) {
  Plan plan = parse_plan(reply);
  std::string out = reply;
  if (!out.empty() && out.back() != '\n') out += '\n';
  for (const auto& task : plan.tasks) {
    if (task.kind != TaskKind::config && task.kind != TaskKind::workload) continue;
    if (!fault.caches.empty()) {
      out += "CACHES: " + task.id + " |";
      for (const auto& [name, cache] : fault.caches)
        out += " " + name + "=" + std::to_string(cache.size) + "," + std::to_string(cache.associativity);
      out += "\n";
    }
    if (!fault.defines.empty()) out += "CONFIG_RTL: " + task.id + " | " + joined(fault.defines, " ") + "\n";
  }
  return out;
}

loop::PlannerReply SeededFaultPlanner::plan(const std::string& prompt) {
  loop::PlannerReply reply = planner_->plan(prompt);
  if (!seeded_ && reply.ok) {
    reply.text = with_seeded_fault(reply.text, fault_);
    seeded_ = true;
  }
  return reply;
}

}  // namespace mace::run

#include "run/codesign_planner.h"

#include <algorithm>

#include "core/plan.h"
#include "core/joined.h"
#include "core/cache_area.h"
#include "eval/codesign_designs.h"
#include "eval/results.h"

namespace mace::run {

std::string codesign_instruction(const RunSpec& spec, double area_budget) {
  const auto networks = eval::searchable_networks(spec.core, spec.mesh_x, spec.mesh_y);
  std::string network_rule =
      networks.empty()
          ? "Every design uses OpenPiton's default network, the 2D mesh; do not give NETWORK: lines.\n"
          : "A design may also choose the on-chip network with a line NETWORK: <task id> | <name>, "
            "name one of: " + joined(networks, ", ") + " (without it, the 2D mesh); the network "
            "does not count towards the area.\n";
  return "\n\nCO-DESIGN MODE: propose up to " + std::to_string(eval::kMaxCodesignDesigns) +
         " different designs, each as its own TASK line of kind=config (no dependencies) with "
         "its CACHES: line. A design is feasible only when every gate workload passes on it and "
         "its per-tile cache area fits the budget of " + eval::fixed(area_budget, 1) +
         ". Area model, per tile: the sum over l1i, l1d, l15 and l2 of size_KiB * (1.10 + "
         "0.02 * ways); caches a design leaves out keep OpenPiton's defaults (l1i 16 KiB, "
         "l1d 8 KiB, l15 8 KiB, l2 64 KiB, 4 ways each). Designs over the budget are not built.\n" +
         network_rule;
}

std::string codesign_designs_reply(const RunSpec& spec, const std::string& reply, double area_budget) {
  Plan plan = parse_plan(reply, {.network = true});
  const auto networks = eval::searchable_networks(spec.core, spec.mesh_x, spec.mesh_y);
  std::vector<eval::CodesignDesign> designs;
  for (const auto& task : plan.tasks) {
    if (task.kind != TaskKind::config || designs.size() >= eval::kMaxCodesignDesigns) continue;
    if (tile_cache_area(task.caches) > area_budget) continue;
    // The mesh is the default; any other network only where the search offers it.
    std::string network = task.network == "2dmesh_config" ? "" : task.network;
    if (!network.empty() && std::find(networks.begin(), networks.end(), network) == networks.end())
      continue;
    eval::CodesignDesign design{{task.caches, task.config_rtl}, network};
    bool repeated = false;
    for (const auto& d : designs) repeated = repeated || d == design;
    if (!repeated) designs.push_back(std::move(design));
  }
  // Nothing of the reply is built when no design is one the search accepts: a plan without
  // tasks, which the loop refuses and asks again.
  if (designs.empty()) return "";
  return eval::codesign_plan_reply(spec, designs);
}

loop::PlannerReply CodesignPlanner::plan(const std::string& prompt) {
  loop::PlannerReply reply = llm_->plan(prompt + codesign_instruction(spec_, area_budget_));
  if (reply.ok) reply.text = codesign_designs_reply(spec_, reply.text, area_budget_);
  return reply;
}

}  // namespace mace::run

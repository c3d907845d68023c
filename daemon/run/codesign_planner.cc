#include "run/codesign_planner.h"

#include "core/plan.h"
#include "eval/cache_area.h"
#include "eval/results.h"

namespace mace::run {

std::string codesign_instruction(double area_budget) {
  return "\n\nCO-DESIGN MODE: propose up to " + std::to_string(eval::kMaxCodesignDesigns) +
         " different designs, each as its own TASK line of kind=config (no dependencies) with "
         "its CACHES: line. A design is feasible only when every gate workload passes on it and "
         "its per-tile cache area fits the budget of " + eval::fixed(area_budget, 1) +
         ". Area model, per tile: the sum over l1i, l1d, l15 and l2 of size_KiB * (1.10 + "
         "0.02 * ways); caches a design leaves out keep OpenPiton's defaults (l1i 16 KiB, "
         "l1d 8 KiB, l15 8 KiB, l2 64 KiB, 4 ways each). Designs over the budget are not built.\n";
}

std::string codesign_designs_reply(const RunSpec& spec, const std::string& reply, double area_budget) {
  Plan plan = parse_plan(reply);
  std::vector<eval::SuiteConfig> designs;
  for (const auto& task : plan.tasks) {
    if (task.kind != TaskKind::config || designs.size() >= eval::kMaxCodesignDesigns) continue;
    if (eval::tile_cache_area(task.caches) > area_budget) continue;
    eval::SuiteConfig design{task.caches, task.config_rtl};
    bool repeated = false;
    for (const auto& d : designs) repeated = repeated || d == design;
    if (!repeated) designs.push_back(std::move(design));
  }
  if (designs.empty()) return reply;
  return eval::codesign_plan_reply(spec, designs);
}

loop::PlannerReply CodesignPlanner::plan(const std::string& prompt) {
  loop::PlannerReply reply = llm_->plan(prompt + codesign_instruction(area_budget_));
  if (reply.ok) reply.text = codesign_designs_reply(spec_, reply.text, area_budget_);
  return reply;
}

}  // namespace mace::run

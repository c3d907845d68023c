#include "run/baseline_planner.h"

#include "core/plan.h"
#include "eval/suite.h"

namespace mace::run {

std::string single_configuration_reply(const RunSpec& spec, const std::string& reply) {
  Plan plan = parse_plan(reply);
  for (const auto& task : plan.tasks) {
    if (task.kind != TaskKind::config) continue;
    eval::SuiteConfig config;
    config.caches = task.caches;
    config.defines = task.config_rtl;
    return eval::config_plan_reply(spec, config);
  }
  return reply;
}

loop::PlannerReply BaselinePlanner::plan(const std::string& prompt) {
  loop::PlannerReply reply = llm_->plan(prompt + std::string(kBaselineInstruction));
  if (reply.ok) reply.text = single_configuration_reply(spec_, reply.text);
  return reply;
}

}  // namespace mace::run

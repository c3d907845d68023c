#include "core/direct_planner.h"

#include "core/joined.h"

namespace mace {

std::string direct_plan_reply(const RunSpec& spec) {
  std::string reply = "TASK: build | deps= | kind=config | Build the ";
  reply += to_string(spec.core);
  reply += " " + std::to_string(spec.mesh_x) + "x" + std::to_string(spec.mesh_y);
  reply += " mesh with OpenPiton's defaults and run ";
  reply += joined(spec.workloads);
  reply += '\n';
  return reply;
}

}  // namespace mace

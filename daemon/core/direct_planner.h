#pragma once
// The `direct` backend's planner: no LLM call. It builds the spec's designs
// (core/design_points.h), each a config task, or, when the spec names none, one task that
// builds the spec's core and mesh with OpenPiton's defaults; every task runs the gate
// workloads. It returns reply text, not a parsed plan, so the direct path and the LLM path
// go through the same plan parser and checks, and a parser change cannot make them
// disagree.

#include <map>
#include <string>
#include <vector>

#include "core/plan.h"
#include "core/run_spec.h"

namespace mace {

// Without designs, one line, e.g.
//   TASK: build | deps= | kind=config | Build the ariane 2x1 mesh with OpenPiton's
//   defaults and run hello, add
// (on one line). With them, one such TASK: line per design, named after it, and its
// CACHES: and CONFIG_RTL: lines. Workload names hold no whitespace or control characters
// (REQ-PLAN-4), so no line can break.
std::string direct_plan_reply(const RunSpec& spec);

// The lines of one config task that builds a given configuration, as every planner that
// names its designs itself writes them (the direct planner, a co-design search): TASK:,
// then CACHES: (a parameter left at 0 left out, so it keeps the checkout's default),
// CONFIG_RTL: and NETWORK: when there is something to say.
std::string design_task_lines(const std::string& id, const std::string& instruction,
                              const std::map<std::string, CacheOverride>& caches,
                              const std::vector<std::string>& config_rtl, const std::string& network = "");

}  // namespace mace

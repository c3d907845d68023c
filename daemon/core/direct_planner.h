#pragma once
// The `direct` backend's planner: no LLM call, one task that builds the spec's core and
// mesh with OpenPiton's defaults and runs the gate workloads. It returns reply text, not
// a parsed plan, so the direct path and the LLM path go through the same plan parser and
// checks, and a parser change cannot make them disagree.

#include <string>

#include "core/run_spec.h"

namespace mace {

// One line, e.g.
//   TASK: build | deps= | kind=config | Build the ariane 2x1 mesh with OpenPiton's
//   defaults and run hello, add
// (on one line). Workload names hold no whitespace or control characters (REQ-PLAN-4),
// so the line cannot break.
std::string direct_plan_reply(const RunSpec& spec);

}  // namespace mace

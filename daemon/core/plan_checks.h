#pragma once
// The fixed checks a plan passes before anything builds (REQ-PLAN-15, REQ-EXEC-13) and
// the fast path that runs a single configuration once (REQ-PLAN-17).
//
// Everything that needs the checkout or the run's history arrives through PlanContext,
// so these rules stay pure and the daemon supplies the facts.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/plan.h"

namespace mace {

using CacheGeometry = std::map<std::string, CacheOverride>;

// The task's overrides over `defaults`, a parameter it leaves at 0 the default's: the
// geometry its build actually gets.
CacheGeometry effective_caches(const PlannedTask& task, const CacheGeometry& defaults);

// One string per distinct build: the caches, RTL defines and network, in a canonical order.
// A failed configuration is remembered by this signature (PlanContext::failed_signatures).
std::string build_flags_signature(const CacheGeometry& caches, const std::vector<std::string>& defines,
                                  const std::string& network);

// The signature the task's build has: effective caches and inherited defines.
std::string task_build_signature(const Plan& plan, const PlannedTask& task, const CacheGeometry& defaults);

// Whether every task is config or workload with the same caches, inherited defines and network.
bool fast_path_applies(const Plan& plan);

// A plan of the last task alone, carrying the defines it inherited and no dependencies,
// when fast_path_applies; otherwise the plan unchanged.
Plan fast_path(const Plan& plan);

// What a search of the checkout found for an RTL define.
struct DefineLookup {
  bool mentioned = true;
  std::string error;  // the checkout could not be searched: the define is kept, and why
};

struct PlanContext {
  std::string core;  // "ariane", "sparc", "pico", "generic"
  bool rtl_edits = false;
  // Caches a task's build gets where it sets none (the core's DEFAULT_CACHES).
  CacheGeometry default_caches;
  // task_build_signature of every configuration that failed earlier in the run.
  std::set<std::string> failed_signatures;
  // Searches the checkout for a define; unset means every define is mentioned.
  std::function<DefineLookup(const std::string&)> find_define;
  // Defines the objective names as needed; the caller keeps only ones the checkout has.
  std::vector<std::string> objective_defines;
  // Whether a unit_test task's module path names a file; unset skips the rule.
  std::function<bool(const std::string&)> module_exists;
  // Whether narrowing showed this set of changes breaks the design; unset skips the rule.
  std::function<bool(const CacheGeometry&, const std::vector<std::string>&)> narrowing_breaks;
  // core generic only: the core's wrapper still holds its skeleton.
  bool generic_wrapper_is_skeleton = false;
};

struct PlanCheckResult {
  Plan plan;                          // with defines removed and added
  std::vector<std::string> notes;     // each define removed or added, and why
  std::vector<std::string> rejections;  // each naming its task, for the re-plan prompt
  std::set<std::string> rejected_tasks;

  bool rejected() const { return !rejections.empty(); }
};

// Adjusts then checks the plan. A rejected plan still comes back whole: after the
// re-plan retries it runs as it stands (REQ-PLAN-16).
PlanCheckResult check_plan(const Plan& plan, const PlanContext& context);

}  // namespace mace

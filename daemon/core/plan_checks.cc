#include "core/plan_checks.h"

#include <algorithm>

#include "core/task_graph.h"

namespace mace {
namespace {

bool builds_design(const PlannedTask& t) {
  return t.kind != TaskKind::unit_test;
}

bool is_config_or_workload(const PlannedTask& t) { return builds_without_agent(t.kind); }

}  // namespace

CacheGeometry effective_caches(const PlannedTask& task, const CacheGeometry& defaults) {
  CacheGeometry out = defaults;
  for (const auto& [name, value] : task.caches) {
    CacheOverride& cache = out[name];
    // A parameter the task leaves at 0 keeps the default's.
    if (value.size) cache.size = value.size;
    if (value.associativity) cache.associativity = value.associativity;
  }
  return out;
}

std::string build_flags_signature(const CacheGeometry& caches, const std::vector<std::string>& defines,
                                  const std::string& network) {
  std::string out = "caches:";
  for (const auto& [name, c] : caches)
    out += name + "=" + std::to_string(c.size) + "," + std::to_string(c.associativity) + ";";
  std::vector<std::string> sorted = defines;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  out += " defines:";
  for (const auto& d : sorted) out += d + ";";
  // A co-design search's network makes another design of the same caches and defines.
  if (!network.empty()) out += " network:" + network;
  return out;
}

std::string task_build_signature(const Plan& plan, const PlannedTask& task, const CacheGeometry& defaults) {
  return build_flags_signature(effective_caches(task, defaults), inherited_defines(plan, task), task.network);
}

bool fast_path_applies(const Plan& plan) {
  if (!plan.usable() || plan.tasks.empty()) return false;
  // Without the core's defaults, an omitted cache and an explicit default look different;
  // that only costs a run the fast path would have saved, never a wrong build.
  std::string first;
  for (const auto& t : plan.tasks) {
    if (!is_config_or_workload(t)) return false;
    std::string sig = task_build_signature(plan, t, {});
    if (first.empty()) first = sig;
    else if (sig != first) return false;
  }
  return true;
}

Plan fast_path(const Plan& plan) {
  if (!fast_path_applies(plan)) return plan;
  Plan out;
  PlannedTask last = plan.tasks.back();
  // Its dependencies no longer run, so it carries what it would have inherited.
  last.config_rtl = inherited_defines(plan, last);
  last.deps.clear();
  out.tasks.push_back(std::move(last));
  out.skipped = plan.skipped;
  out.skip_reasons = plan.skip_reasons;
  return out;
}

PlanCheckResult check_plan(const Plan& plan, const PlanContext& ctx) {
  PlanCheckResult r;
  r.plan = plan;
  auto reject = [&](const std::string& id, const std::string& why) {
    r.rejections.push_back("task " + id + ": " + why);
    r.rejected_tasks.insert(id);
  };

  for (auto& t : r.plan.tasks) {
    if (ctx.find_define) {
      std::vector<std::string> kept;
      for (const auto& d : t.config_rtl) {
        const DefineLookup found = ctx.find_define(d);
        if (!found.error.empty())
          r.notes.push_back("task " + t.id + ": kept RTL define " + d +
                            ", though the checkout could not be searched for it: " + found.error);
        if (found.mentioned) kept.push_back(d);
        else r.notes.push_back("task " + t.id + ": removed RTL define " + d + ", which no file of the checkout mentions");
      }
      t.config_rtl = std::move(kept);
    }
    if (builds_design(t)) {
      for (const auto& d : ctx.objective_defines) {
        if (std::find(t.config_rtl.begin(), t.config_rtl.end(), d) != t.config_rtl.end()) continue;
        t.config_rtl.push_back(d);
        r.notes.push_back("task " + t.id + ": added RTL define " + d + ", which the objective names");
      }
      std::sort(t.config_rtl.begin(), t.config_rtl.end());
      t.config_rtl.erase(std::unique(t.config_rtl.begin(), t.config_rtl.end()), t.config_rtl.end());
    }
  }

  const Plan& adjusted = r.plan;
  bool generic_skeleton = ctx.core == "generic" && ctx.generic_wrapper_is_skeleton;
  if (generic_skeleton &&
      std::none_of(adjusted.tasks.begin(), adjusted.tasks.end(), [](const auto& t) { return t.kind == TaskKind::rtl; })) {
    r.rejections.push_back("the plan has no rtl task while the generic core's wrapper is still a skeleton");
  }

  for (const auto& t : adjusted.tasks) {
    if (t.kind == TaskKind::rtl && !ctx.rtl_edits) reject(t.id, "edits source in a run without RTL edits");

    if (t.kind == TaskKind::unit_test && ctx.module_exists && !ctx.module_exists(unit_test_module(t)))
      reject(t.id, "names unit_test module " + unit_test_module(t) + ", which does not exist");

    if (!builds_design(t)) continue;
    CacheGeometry caches = effective_caches(t, ctx.default_caches);

    if (ctx.core == "ariane") {
      auto l15 = caches.find("l15");
      if (l15 != caches.end()) {
        for (const char* l1 : {"l1d", "l1i"}) {
          auto it = caches.find(l1);
          if (it == caches.end() || it->second.associativity <= l15->second.associativity) continue;
          reject(t.id, "breaks Ariane's way rule: " + cache_title(l1) + " has " +
                           std::to_string(it->second.associativity) + " ways, more than the L1.5's " +
                           std::to_string(l15->second.associativity));
        }
      }
    }

    bool on_edits = builds_on_rtl_edits(adjusted, t);
    if (generic_skeleton && is_config_or_workload(t) && !on_edits)
      reject(t.id, "does not depend on an rtl task while the generic core's wrapper is still a skeleton");

    // An edited design is a new design, so what failed before says nothing about it.
    if (on_edits || !is_config_or_workload(t)) continue;
    std::vector<std::string> defines = inherited_defines(adjusted, t);
    if (ctx.failed_signatures.count(build_flags_signature(caches, defines, t.network)))
      reject(t.id, "repeats the build flags of a configuration that already failed in this run");
    if (ctx.narrowing_breaks && ctx.narrowing_breaks(caches, defines))
      reject(t.id, "makes a set of changes that narrowing showed breaks the design");
  }
  return r;
}

}  // namespace mace

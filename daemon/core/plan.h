#pragma once
// A plan: the task DAG the planner's reply describes (REQ-PLAN-6..13).
//
// The reply is prose with directive lines in it. Only lines that start with a tag count:
//   TASK: <id> | deps=<ids> | kind=<config|workload|unit_test|rtl> | <instruction>
//   CACHES: <task id> | <name>=<size>,<associativity> ...      (l1i l1d l15 l2; either
//                                                             may be left out: <size> or
//                                                             ,<associativity>)
//   CONFIG_RTL: <task id> | <FLAG> ...                         (UPPER_SNAKE_CASE)
//   NETWORK: <task id> | <2dmesh_config|xbar_config>           (co-design searches only)
//
// What counts as "the start of a line" (REQ-PLAN-7), chosen because planners wrap plans
// in markdown: leading whitespace, then at most one list marker ("-", "*", "+", "1.",
// "1)"), then optional markdown bold around the tag ("**TASK:**" or "**TASK**:"). Tags
// and cache names are case-insensitive, and so is a kind, which is stored lower-case.
// A line whose tag matches but whose body does not is skipped, never guessed at
// (REQ-PLAN-9); prose, including "Tasks:" headings, is ignored without a trace.
//
// Other choices, so a reply reads the same everywhere:
//  * deps are separated by commas and/or whitespace, may sit in [ ], and a lone "none"
//    or "-" means no dependencies;
//  * a CACHES: or CONFIG_RTL: line with any bad entry is skipped whole, so a plan never
//    builds half of what the planner asked for;
//  * directives may come before or after the TASK: line they name; one naming no task
//    is skipped with that reason;
//  * duplicate ids keep every TASK: line in `tasks` (so `mace plan parse` shows them),
//    and a directive naming a duplicated id applies to each of them.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/task_kind.h"

namespace mace {

// A cache's geometry as a plan or a spec's design asks for it; a parameter left at 0 keeps
// the checkout's default (effective_caches fills it in).
struct CacheOverride {
  int64_t size = 0;
  int64_t associativity = 0;
  bool operator==(const CacheOverride&) const = default;
};

// "8192 B 4-way": how prompts and messages show a cache's geometry.
std::string describe(const CacheOverride& cache);

inline constexpr std::string_view kCacheNames[] = {"l1i", "l1d", "l15", "l2"};
// How an architect names each cache: "L1I", "L1D", "L1.5", "L2"; another name as it is.
std::string cache_title(std::string_view name);

// The on-chip networks OpenPiton's sims builds (sims,2.0: `-network_config` is one of
// these or absent, which means the 2D mesh).
inline constexpr std::string_view kNetworkNames[] = {"2dmesh_config", "xbar_config"};

// What a reply may ask for. A planner is a model and its reply is untrusted; a real plan
// is a few tasks with a few dependencies each, far inside these.
inline constexpr std::size_t kMaxReplyBytes = 1 << 20;  // larger: the plan is refused
inline constexpr std::size_t kMaxPlanTasks = 256;       // more TASK: lines: refused
inline constexpr std::size_t kMaxTaskDeps = 256;        // more on one line: the line is skipped
inline constexpr std::size_t kMaxTaskIdBytes = 64;      // a longer id is not an id
inline constexpr std::size_t kMaxInstructionBytes = 16 * 1024;  // longer: the line is skipped
inline constexpr std::size_t kMaxDefinesPerLine = 64;   // more on a CONFIG_RTL: line: skipped
inline constexpr std::size_t kMaxPlanErrors = 20;       // listed; the rest are counted

struct PlannedTask {
  std::string id;
  std::vector<std::string> deps;  // in the order written, without repeats
  TaskKind kind = TaskKind::config;
  std::string instruction;
  std::map<std::string, CacheOverride> caches;  // keys from kCacheNames
  std::vector<std::string> config_rtl;          // sorted, unique
  // One of kNetworkNames; empty: OpenPiton's default (the 2D mesh). Only a co-design
  // search sets it (REQ-EXEC-5).
  std::string network;
  bool operator==(const PlannedTask&) const = default;
};

struct Plan {
  std::vector<PlannedTask> tasks;
  // Tagged lines that were not used, verbatim (a trailing CR removed), in reply order.
  std::vector<std::string> skipped;
  // Why each skipped line was skipped: skip_reasons[i] belongs to skipped[i].
  std::vector<std::string> skip_reasons;
  // Why the plan cannot run (REQ-PLAN-13), each naming the ids concerned.
  std::vector<std::string> errors;

  bool usable() const { return errors.empty(); }
};

// What a planner may say beyond the tasks, caches and defines every planner may.
struct PlanGrammar {
  // NETWORK: lines are a co-design search's; for any other planner they are skipped, with
  // that reason, so an ordinary plan never builds a network the objective did not ask for.
  bool network = false;
};

Plan parse_plan(std::string_view reply, PlanGrammar grammar = {});

// The error of a reply over kMaxReplyBytes: its size when the reader knows it (a file's),
// else "over" the limit, never the size at which a bounded reader stopped.
std::string reply_too_long_error(std::optional<std::uint64_t> whole_size);

// The module path a unit_test task names: the first word of its instruction, without a
// trailing ',', ':' or ';' ("piton/design/common/rtl/synchronizer.v: check the reset").
std::string unit_test_module(const PlannedTask& task);

// {"tasks":[{"id","deps","kind","instruction","caches":{"l1d":{"size","associativity"}},
//  "config_rtl"[,"network"]}],"skipped":[...],"errors":[...]} on one line: what `mace plan
//  parse` prints ("network" only for a task that sets one).
std::string plan_to_json(const Plan& plan);

}  // namespace mace

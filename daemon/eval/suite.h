#pragma once
// An evaluation suite (REQ-EVAL-1): the hardware tasks an evaluation batch tries, each with
// its run specification, the configuration an expert would choose for its objective, an area
// budget for co-design, and the seeded faults that may be checked on it. Read from JSON that
// a user hands maced, so every count and size is bounded and every rejection names the
// entry's index and field ("tasks[1].expert.caches.l1d.associativity: ...").

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/field_error.h"
#include "core/plan.h"
#include "core/run_spec.h"

namespace mace::eval {

// Bounds on what a suite may hold: a real suite is a handful of tasks.
inline constexpr size_t kMaxSuiteJsonBytes = 1 << 20;
inline constexpr size_t kMaxSuiteTasks = 64;
inline constexpr size_t kMaxSuiteFaults = 64;
inline constexpr size_t kMaxFaultsPerTask = 16;
inline constexpr size_t kMaxFaultEdits = 16;
inline constexpr size_t kMaxFaultEditTextBytes = 16 * 1024;
inline constexpr size_t kMaxExpertDefines = 64;
inline constexpr size_t kMaxNameBytes = 64;
inline constexpr size_t kMaxDescriptionBytes = 1024;
// Cache sizes and ways a configuration may name: beyond anything OpenPiton builds.
inline constexpr int64_t kMaxCacheBytes = int64_t{1} << 30;
inline constexpr int64_t kMaxAssociativity = 1024;

// A build configuration as a plan's CACHES: and CONFIG_RTL: lines give it: caches left out
// keep the checkout's defaults.
struct SuiteConfig {
  std::map<std::string, CacheOverride> caches;  // keys from kCacheNames
  std::vector<std::string> defines;             // UPPER_SNAKE_CASE, sorted, unique
  bool operator==(const SuiteConfig&) const = default;
};

// One replacement of a source fault: `old_text` occurs exactly once in `path` (under
// piton/design/), which the fault changes to `new_text`.
struct FaultEdit {
  std::string path;
  std::string old_text;
  std::string new_text;
  bool operator==(const FaultEdit&) const = default;
};

enum class FaultKind { config, source };
std::string_view to_string(FaultKind kind);

struct MeshShape {
  int x = 1;
  int y = 1;
  bool operator==(const MeshShape&) const = default;
};

// A seeded fault (REQ-EVAL-10..12). A config fault overrides caches or defines of the
// configuration it is applied to; a source fault edits RTL files of the checkouts. It
// breaks the cores and meshes it lists, and runs only on tasks with one of each (REQ-EVAL-11).
struct Fault {
  std::string name;
  FaultKind kind = FaultKind::config;
  std::string description;
  std::vector<Core> cores;
  std::vector<MeshShape> meshes;
  SuiteConfig config;            // kind config
  std::vector<FaultEdit> edits;  // kind source
  bool operator==(const Fault&) const = default;
};

struct SuiteTask {
  std::string id;
  RunSpec spec;
  SuiteConfig expert;
  // The co-design search's budget in the cache area model's units (docs/evaluation.md);
  // unset: no co-design on this task.
  std::optional<double> area_budget;
  std::vector<std::string> faults;  // names of the suite's faults to check on this task
  bool operator==(const SuiteTask&) const = default;
};

struct Suite {
  std::string name;
  std::vector<SuiteTask> tasks;
  std::vector<Fault> faults;

  const Fault* fault(std::string_view name) const;
  const SuiteTask* task(std::string_view id) const;
};

struct SuiteParseResult {
  std::optional<Suite> suite;  // set only when `errors` is empty
  FieldErrors errors;
};

// Reads and checks a whole suite: every entry, and each expert configuration against the
// adapter's configuration rules (REQ-EVAL-1). Nothing is accepted when anything is wrong.
SuiteParseResult parse_suite_json(std::string_view json);

// Whether `fault` applies to `task`: the task names it and its core and mesh are ones the
// fault breaks (REQ-EVAL-11).
bool fault_applies(const Fault& fault, const SuiteTask& task);

// `base` with `fault`'s caches and defines laid over it (a config fault; a source fault
// changes no configuration).
SuiteConfig with_fault(const SuiteConfig& base, const Fault& fault);

// The plan reply that builds `config` on the task's core and mesh and runs its workloads:
// one config task, as the direct planner writes it, with CACHES: and CONFIG_RTL: lines.
std::string config_plan_reply(const RunSpec& spec, const SuiteConfig& config);

}  // namespace mace::eval

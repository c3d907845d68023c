#pragma once
// Narrowing (REQ-FAIL-12): before a failed config or workload task is diagnosed by an
// LLM, it is rebuilt with its changes from the default configuration undone, one at a
// time and then all together. When undoing a change makes it pass, that change is the
// diagnosis, and later plans may not make it again (REQ-PLAN-15).
//
// A change is one cache whose geometry differs from the default, or one RTL define.
// Two caches of different geometry are different changes: that L1D 16 KiB broke the
// design says nothing about L1D 32 KiB.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/diagnosis.h"
#include "core/plan_checks.h"

namespace mace {

struct ConfigChange {
  std::string key;          // "cache:l1d=16384,8" or "define:PITON_X": its identity
  std::string description;  // "l1d 16384 B 8-way (default 8192 B 4-way)", "define PITON_X"
  bool is_define = false;
  std::string name;  // the cache or the define
  bool operator==(const ConfigChange&) const = default;
};

// The task's changes from `defaults`: caches in cache-name order, then defines sorted.
std::vector<ConfigChange> changes_from_default(const CacheGeometry& caches,
                                               const std::vector<std::string>& defines,
                                               const CacheGeometry& defaults);

struct NarrowingVariant {
  std::vector<ConfigChange> undone;
  CacheGeometry caches;              // with the undone caches back at their defaults
  std::vector<std::string> defines;  // without the undone defines
  std::string description() const;   // "undo l1d 16384 B 8-way (default 8192 B 4-way)"
};

// One variant per change undone, in changes_from_default order, then one with every
// change undone when there are two or more. None for a task with no change.
std::vector<NarrowingVariant> narrowing_variants(const CacheGeometry& caches,
                                                 const std::vector<std::string>& defines,
                                                 const CacheGeometry& defaults);

// What a passing variant proves: the undone changes break the design.
Diagnosis narrowing_diagnosis(const NarrowingVariant& passed, const std::string& evidence);

// The sets of changes narrowing showed break the design, in this run.
class BreakingChanges {
 public:
  void add(const std::vector<ConfigChange>& changes);
  // Whether a build with these caches and defines makes every change of a recorded set
  // (REQ-PLAN-15); plug into PlanContext::narrowing_breaks.
  bool broken_by(const CacheGeometry& caches, const std::vector<std::string>& defines,
                 const CacheGeometry& defaults) const;
  bool empty() const { return sets_.empty(); }

 private:
  std::vector<std::set<std::string>> sets_;  // change keys
};

}  // namespace mace

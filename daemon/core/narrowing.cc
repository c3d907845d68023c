#include "core/narrowing.h"

#include <algorithm>

#include "core/joined.h"

namespace mace {
namespace {

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

std::vector<ConfigChange> changes_from_default(const CacheGeometry& caches,
                                               const std::vector<std::string>& defines,
                                               const CacheGeometry& defaults) {
  std::vector<ConfigChange> out;
  for (std::string_view name : kCacheNames) {
    auto it = caches.find(std::string(name));
    if (it == caches.end()) continue;
    auto d = defaults.find(std::string(name));
    if (d != defaults.end() && d->second == it->second) continue;
    ConfigChange c;
    c.name = std::string(name);
    c.key = "cache:" + c.name + "=" + std::to_string(it->second.size) + "," +
            std::to_string(it->second.associativity);
    c.description = c.name + " " + describe(it->second);
    if (d != defaults.end()) c.description += " (default " + describe(d->second) + ")";
    out.push_back(std::move(c));
  }
  for (const auto& define : sorted_unique(defines)) {
    ConfigChange c;
    c.is_define = true;
    c.name = define;
    c.key = "define:" + define;
    c.description = "define " + define;
    out.push_back(std::move(c));
  }
  return out;
}

std::string NarrowingVariant::description() const {
  std::vector<std::string> parts;
  for (const auto& c : undone) parts.push_back(c.description);
  return "undo " + joined(parts, " and ");
}

std::vector<NarrowingVariant> narrowing_variants(const CacheGeometry& caches,
                                                 const std::vector<std::string>& defines,
                                                 const CacheGeometry& defaults) {
  std::vector<ConfigChange> changes = changes_from_default(caches, defines, defaults);
  auto without = [&](const std::vector<ConfigChange>& undone) {
    NarrowingVariant v;
    v.undone = undone;
    v.caches = caches;
    v.defines = sorted_unique(defines);
    for (const auto& c : undone) {
      if (c.is_define) {
        std::erase(v.defines, c.name);
      } else if (auto d = defaults.find(c.name); d != defaults.end()) {
        v.caches[c.name] = d->second;
      } else {
        v.caches.erase(c.name);
      }
    }
    return v;
  };
  std::vector<NarrowingVariant> out;
  for (const auto& c : changes) out.push_back(without({c}));
  if (changes.size() >= 2) out.push_back(without(changes));
  return out;
}

Diagnosis narrowing_diagnosis(const NarrowingVariant& passed, const std::string& evidence) {
  Diagnosis d;
  d.source = DiagnosisSource::narrowing;
  if (passed.undone.size() > 1) {
    d.label = "combined_changes_break_design";
  } else if (!passed.undone.empty() && passed.undone.front().is_define) {
    d.label = "define_breaks_design";
  } else {
    d.label = "cache_change_breaks_design";
  }
  std::vector<std::string> parts;
  for (const auto& c : passed.undone) parts.push_back(c.description);
  d.fix = "do not make " + std::string(passed.undone.size() > 1 ? "these changes together: " : "this change: ") +
          joined(parts, "; ") + " (the task passed with " +
          (passed.undone.size() > 1 ? "them" : "it") + " undone)";
  d.evidence = evidence;
  return d;
}

void BreakingChanges::add(const std::vector<ConfigChange>& changes) {
  std::set<std::string> keys;
  for (const auto& c : changes) keys.insert(c.key);
  if (!keys.empty() && std::find(sets_.begin(), sets_.end(), keys) == sets_.end())
    sets_.push_back(std::move(keys));
}

bool BreakingChanges::broken_by(const CacheGeometry& caches, const std::vector<std::string>& defines,
                                const CacheGeometry& defaults) const {
  std::set<std::string> made;
  for (const auto& c : changes_from_default(caches, defines, defaults)) made.insert(c.key);
  return std::any_of(sets_.begin(), sets_.end(), [&](const std::set<std::string>& set) {
    return std::includes(made.begin(), made.end(), set.begin(), set.end());
  });
}

}  // namespace mace

#include "eval/cache_area.h"

#include <algorithm>

#include "core/joined.h"

namespace mace::eval {

std::map<std::string, CacheOverride> default_cache_geometry() {
  return {{"l1i", {16384, 4}}, {"l1d", {8192, 4}}, {"l15", {8192, 4}}, {"l2", {65536, 4}}};
}

double cache_area(const CacheOverride& cache) {
  const double kib = static_cast<double>(cache.size) / 1024.0;
  return kib * (1.0 + kTagOverhead + kWayOverhead * static_cast<double>(cache.associativity));
}

double tile_cache_area(const std::map<std::string, CacheOverride>& caches) {
  auto all = default_cache_geometry();
  for (const auto& [name, cache] : caches) all[name] = cache;
  double area = 0;
  for (const auto& [name, cache] : all) area += cache_area(cache);
  return area;
}

std::vector<SuiteConfig> codesign_designs(const SuiteConfig& expert, double area_budget) {
  struct Candidate {
    SuiteConfig config;
    double area;
  };
  std::vector<Candidate> fitting;
  for (int64_t l1d : {4096, 8192, 16384, 32768})
    for (int64_t l15 : {4096, 8192, 16384})
      for (int64_t l2 : {32768, 65536, 131072}) {
        SuiteConfig c = expert;
        c.caches["l1d"] = {l1d, 4};
        c.caches["l15"] = {l15, 4};
        c.caches["l2"] = {l2, 4};
        double area = tile_cache_area(c.caches);
        if (area <= area_budget) fitting.push_back({std::move(c), area});
      }
  std::stable_sort(fitting.begin(), fitting.end(),
                   [](const Candidate& a, const Candidate& b) { return a.area > b.area; });
  std::vector<SuiteConfig> out;
  for (size_t i = 0; i < fitting.size() && i < kMaxCodesignDesigns; ++i)
    out.push_back(fitting[i].config);
  return out;
}

std::string codesign_plan_reply(const RunSpec& spec, const std::vector<SuiteConfig>& designs) {
  std::string reply;
  for (size_t i = 0; i < designs.size(); ++i) {
    const std::string id = "d" + std::to_string(i + 1);
    reply += "TASK: " + id + " | deps= | kind=config | Co-design candidate " + std::to_string(i + 1) +
             " (cache area " + std::to_string(static_cast<int64_t>(tile_cache_area(designs[i].caches))) +
             " KiB-equivalents per tile): build the " + std::string(to_string(spec.core)) + " " +
             std::to_string(spec.mesh_x) + "x" + std::to_string(spec.mesh_y) + " mesh and run " +
             joined(spec.workloads) + "\n";
    reply += "CACHES: " + id + " |";
    for (const auto& [name, cache] : designs[i].caches)
      reply += " " + name + "=" + std::to_string(cache.size) + "," + std::to_string(cache.associativity);
    reply += "\n";
    if (!designs[i].defines.empty()) reply += "CONFIG_RTL: " + id + " | " + joined(designs[i].defines, " ") + "\n";
  }
  return reply;
}

}  // namespace mace::eval

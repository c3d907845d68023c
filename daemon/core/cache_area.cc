#include "core/cache_area.h"

namespace mace {

std::map<std::string, CacheOverride> default_cache_geometry() {
  return {{"l1i", {16384, 4}}, {"l1d", {8192, 4}}, {"l15", {8192, 4}}, {"l2", {65536, 4}}};
}

double cache_area(const CacheOverride& cache) {
  const double kib = static_cast<double>(cache.size) / 1024.0;
  return kib * (1.0 + kTagOverhead + kWayOverhead * static_cast<double>(cache.associativity));
}

double tile_cache_area(const std::map<std::string, CacheOverride>& caches) {
  auto all = default_cache_geometry();
  for (const auto& [name, cache] : caches) {
    if (cache.size) all[name].size = cache.size;
    if (cache.associativity) all[name].associativity = cache.associativity;
  }
  double area = 0;
  for (const auto& [name, cache] : all) area += cache_area(cache);
  return area;
}

double design_cache_area(const DesignConfiguration& design) {
  std::map<std::string, CacheOverride> caches;
  for (const auto& cache : design.caches) caches[cache.name] = {cache.size_bytes, cache.associativity};
  return tile_cache_area(caches);
}

}  // namespace mace

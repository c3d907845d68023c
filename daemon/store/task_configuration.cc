#include "store/task_configuration.h"

#include "core/edited_files.h"

namespace mace::store {

DesignConfiguration task_configuration(const TaskRecord& t, const CacheGeometry& default_caches) {
  DesignConfiguration c;
  c.core = t.core;
  c.mesh_x = t.mesh_x;
  c.mesh_y = t.mesh_y;
  for (std::string_view name : kCacheNames) {
    auto [size, associativity] = t.cache(name);
    const auto d = default_caches.find(std::string(name));
    if (size == 0 && associativity == 0) {
      if (d == default_caches.end()) continue;  // not recorded, and no default known
      size = d->second.size;
      associativity = d->second.associativity;
    }
    const bool is_default = d != default_caches.end() && d->second == CacheOverride{size, associativity};
    c.caches.push_back({std::string(name), size, associativity, is_default});
  }
  c.network = t.network;
  c.rtl_defines = t.rtl_defines;
  c.edited_files = edited_files(t.rtl_edits);
  return c;
}

bool has_configuration(const TaskRecord& t) { return t.kind != TaskKind::unit_test && !t.core.empty(); }

}  // namespace mace::store

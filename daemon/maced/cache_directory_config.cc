#include "maced/cache_directory_config.h"

#include "maced/config_fields.h"

namespace mace {

void read_cache_directory(simdjson::dom::element value, const std::string& section,
                          CacheDirectoryConfig& cache, FieldErrors& errors) {
  const auto section_object = config_fields::object_with_keys(value, section, {"path", "max_mb", "enabled"}, errors);
  if (!section_object) return;
  const simdjson::dom::object obj = *section_object;
  simdjson::dom::element enabled;
  if (!obj.at_key("enabled").get(enabled)) {
    bool on = true;
    if (enabled.get(on))
      errors.push_back({section + ".enabled", "must be true or false, got " +
                                                  config_fields::shown(enabled)});
    else
      cache.enabled = on;
  }
  if (auto path = config_fields::string_field(obj, "path", section + ".path", errors)) {
    if (path->front() != '/')
      errors.push_back({section + ".path", "must be an absolute path, got \"" + *path + "\""});
    else
      cache.path = *path;
  }
  if (auto mb = config_fields::limit_field(obj, "max_mb", section + ".max_mb", cache.max_mb,
                                           kMaxCacheDirectoryMb, "MiB", errors))
    cache.max_mb = *mb;
}

}  // namespace mace

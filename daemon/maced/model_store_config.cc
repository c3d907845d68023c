#include "maced/model_store_config.h"

#include "maced/config_fields.h"

namespace mace {

void read_model_store(simdjson::dom::element value, ModelStoreConfig& store, FieldErrors& errors) {
  simdjson::dom::object obj;
  if (value.get(obj)) {
    errors.push_back({"model_store", "must be an object with \"path\", \"max_mb\" and \"enabled\""});
    return;
  }
  config_fields::check_keys(obj, "model_store", {"enabled", "path", "max_mb"}, errors);
  simdjson::dom::element enabled;
  if (!obj.at_key("enabled").get(enabled)) {
    bool on = true;
    if (enabled.get(on))
      errors.push_back({"model_store.enabled", "must be true or false, got " +
                                                   config_fields::shown(enabled)});
    else
      store.enabled = on;
  }
  if (auto path = config_fields::string_field(obj, "path", "model_store.path", errors)) {
    if (path->front() != '/' || path->find('\0') != std::string::npos)
      errors.push_back({"model_store.path", "must be an absolute path, got \"" + *path + "\""});
    else
      store.path = *path;
  }
  if (auto mb = config_fields::limit_field(obj, "max_mb", "model_store.max_mb", store.max_mb,
                                           kMaxModelStoreMb, "MiB", errors))
    store.max_mb = *mb;
}

}  // namespace mace

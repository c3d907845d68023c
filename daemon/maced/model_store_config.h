#pragma once
// `model_store` in maced's configuration: where finished models are kept for every
// checkout, run and node to take instead of building (openpiton/model_store.h, issue 15).
//
//   "model_store": {"path": "/srv/shared/mace-models", "max_mb": 51200}
//   "model_store": {"enabled": false}
//
// `path` must be absolute; left out, the store is <state directory>/models. On a cluster
// it should be a directory every node and maced see at the same path (a shared file
// system), so a model built on one node serves the others. `max_mb`: the store evicts
// least recently used models beyond it (default 20480, a sparc 1x1 model is ~100 MB).

#include <cstdint>
#include <string>

#include <simdjson.h>

#include "core/field_error.h"

namespace mace {

struct ModelStoreConfig {
  bool enabled = true;
  std::string path;  // empty: <state directory>/models
  std::int64_t max_mb = 20480;
};

inline constexpr std::int64_t kMaxModelStoreMb = std::int64_t{1} << 30;  // a pebibyte

void read_model_store(simdjson::dom::element value, ModelStoreConfig& store, FieldErrors& errors);

}  // namespace mace

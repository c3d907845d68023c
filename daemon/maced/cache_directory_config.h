#pragma once
// The two directories of maced's configuration that keep build products for reuse
// (docs/model-store.md), read the same way:
//
//   "model_store":    {"path": "/srv/shared/mace-models", "max_mb": 51200}
//   "compiler_cache": {"path": "/srv/shared/mace-ccache", "max_mb": 10240}
//   "model_store":    {"enabled": false}
//
// `model_store`: finished Verilator models, for every checkout, run and node to take
// instead of building (openpiton/model_store.h); default <state directory>/models, 20480
// MiB, least recently used models evicted beyond it. On a cluster, a directory every node
// and maced see at the same path (a shared file system), so a model built on one node
// serves the others.
// `compiler_cache`: the ccache directory the models' C++ is compiled through
// (openpiton::BuildOptions::compiler_cache_dir); default <state directory>/ccache, 5120
// MiB (ccache's own limit). Needs Debian's ccache on the builds' PATH; without it builds
// compile directly and say so.
// `path` must be absolute.

#include <cstdint>
#include <string>

#include <simdjson.h>

#include "core/field_error.h"

namespace mace {

struct CacheDirectoryConfig {
  bool enabled = true;
  std::string path;  // empty: a directory of maced's state directory
  std::int64_t max_mb = 0;
};

inline constexpr std::int64_t kMaxCacheDirectoryMb = std::int64_t{1} << 30;  // a pebibyte

// Reads the section named `section` (for its field paths) into `cache`.
void read_cache_directory(simdjson::dom::element value, const std::string& section,
                          CacheDirectoryConfig& cache, FieldErrors& errors);

}  // namespace mace

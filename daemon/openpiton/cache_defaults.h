#pragma once
// OpenPiton's own default cache geometry, read from a checkout rather than guessed:
// piton/tools/src/sims/manycore.config (`-config_l1d_size=8192` ...), with
// piton/tools/bin/pyhplib.py (`CONFIG_L1D_SIZE = int(os.environ.get('CONFIG_L1D_SIZE',
// '8192'))`) for any value the former lacks.

#include <optional>
#include <string>

#include "openpiton/build_config.h"
#include "openpiton/checkout.h"

namespace mace::openpiton {

struct DefaultsResult {
  std::optional<CacheSet> caches;
  std::string error;  // names the file and the value it could not find
};

DefaultsResult read_cache_defaults(const Checkout& checkout, Core core);

// Per-cache overrides: a cache given here replaces the default; the rest keep it.
struct CacheOverrides {
  std::optional<CacheGeometry> l1i, l1d, l15, l2;
};

CacheSet with_defaults(const CacheSet& defaults, const CacheOverrides& overrides);

}  // namespace mace::openpiton

#pragma once
// The cache area model (docs/evaluation.md, "Cache area model"): what decides whether a
// design fits a co-design task's area budget (REQ-EVAL-8), and what a run's own designs are
// compared by beside their cycles.
//
// Area is counted per tile in KiB-equivalents of SRAM: each cache's data array (its size)
// plus its tag array and way multiplexing, modelled as a fraction of the data array that
// grows with associativity:
//
//   area(cache) = size_KiB * (1 + kTagOverhead + kWayOverhead * ways)
//
// with kTagOverhead = 0.10 (a ~20-bit tag and state per 16..64-byte line, OpenPiton's line
// sizes) and kWayOverhead = 0.02 per way (comparators and the way multiplexer). The model
// is first-order, after the linear capacity scaling and the associativity overhead that
// CACTI reports for small SRAM caches (Muralimanohar, Balasubramonian, Jouppi, "CACTI 6.0",
// HP Labs HPL-2009-85): it ranks designs, it does not predict square millimetres.

#include <map>
#include <string>

#include "core/design_configuration.h"
#include "core/plan.h"

namespace mace {

inline constexpr double kTagOverhead = 0.10;
inline constexpr double kWayOverhead = 0.02;

// OpenPiton's own defaults (sims-notes.md), for caches a design leaves out.
std::map<std::string, CacheOverride> default_cache_geometry();

double cache_area(const CacheOverride& cache);
// The four caches of one tile, defaults filled in for those `caches` leaves out (and for
// a parameter one leaves at 0).
double tile_cache_area(const std::map<std::string, CacheOverride>& caches);
// A built design's: its caches as built, the same model.
double design_cache_area(const DesignConfiguration& design);

}  // namespace mace

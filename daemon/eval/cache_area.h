#pragma once
// The co-design search's cache area model (docs/evaluation.md, "Cache area model"), and the
// designs it enumerates within a task's area budget (REQ-EVAL-8).
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
#include <vector>

#include "core/plan.h"
#include "eval/suite.h"

namespace mace::eval {

inline constexpr double kTagOverhead = 0.10;
inline constexpr double kWayOverhead = 0.02;
// A search builds every design it proposes: bounded, a handful of builds per job.
inline constexpr size_t kMaxCodesignDesigns = 6;

// OpenPiton's own defaults (sims-notes.md), for caches a design leaves out.
std::map<std::string, CacheOverride> default_cache_geometry();

double cache_area(const CacheOverride& cache);
// The four caches of one tile, defaults filled in for those `caches` leaves out.
double tile_cache_area(const std::map<std::string, CacheOverride>& caches);

// The designs a search evaluates for `expert` within `area_budget`: the L1D, L1.5 and L2
// each taken from a few power-of-two sizes around OpenPiton's defaults (4 ways each, the
// L1I and the expert's other choices kept), those whose area fits, largest area first,
// at most kMaxCodesignDesigns. Empty when none fits.
std::vector<SuiteConfig> codesign_designs(const SuiteConfig& expert, double area_budget);

// The plan of a co-design job: one config task per design (d1, d2, ...), each with its
// caches, all in one level, so each design is built and checked through the loop.
std::string codesign_plan_reply(const RunSpec& spec, const std::vector<SuiteConfig>& designs);

}  // namespace mace::eval

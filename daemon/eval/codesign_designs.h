#pragma once
// The designs a co-design search evaluates (REQ-EVAL-8): cache geometries within the task's
// area budget (core/cache_area.h), and, where the core and mesh allow, OpenPiton's other
// on-chip network. Every design is built and checked through the loop as a config task of
// one plan; a design is feasible when every gate workload passes on it.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_spec.h"
#include "eval/suite.h"

namespace mace::eval {

// A search builds every design it proposes: bounded, a handful of builds per job.
inline constexpr size_t kMaxCodesignDesigns = 6;

struct CodesignDesign {
  SuiteConfig config;
  // One of core/plan.h's kNetworkNames, or empty: OpenPiton's default, the 2D mesh (the
  // model the other methods build, so a search can reuse it).
  std::string network;
  bool operator==(const CodesignDesign&) const = default;
};

// The networks other than the default a search may try on `core` with a mesh of `x` by `y`
// tiles: the crossbar (sims's xbar_config) on a pico or sparc row of more than one tile,
// where it was built and every tile passed hello on a real checkout (docs/evaluation.md). None
// for a single tile (a crossbar of one port is the mesh), none for more than one row
// (OpenPiton's chip.v.pyv gives the crossbar one port per column, X_TILES + 1 in all, so
// tiles of one column would share a port), and none on a core where it was not tried.
std::vector<std::string_view> searchable_networks(Core core, int64_t x, int64_t y);

// The designs a search evaluates for `task`: the L1D, L1.5 and L2 each taken from a few
// power-of-two sizes around OpenPiton's defaults (4 ways each; the L1I and the expert's
// other choices kept), those whose cache area fits `area_budget`, largest area first; each
// geometry on the default network and then on each searchable network; at most
// kMaxCodesignDesigns. Empty when no geometry fits.
std::vector<CodesignDesign> codesign_designs(const RunSpec& spec, const SuiteConfig& expert,
                                             double area_budget);

// The plan of a co-design job: one config task per design (d1, d2, ...), each with its
// caches and network, all in one level, so each design is built and checked through the
// loop.
std::string codesign_plan_reply(const RunSpec& spec, const std::vector<CodesignDesign>& designs);

}  // namespace mace::eval

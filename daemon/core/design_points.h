#pragma once
// The designs a run spec names (docs/run-specs.md, "Designs"): configurations an architect
// wants built and simulated as they are, each a config task like any planner's, the
// baseline (OpenPiton's defaults) among them unless the spec says not. Two forms: a list
// of named designs, and a sweep that names values per cache parameter and takes their
// product. Both are bounded, and a point OpenPiton's build refuses is refused here, at
// spec check, naming its field.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/field_error.h"
#include "core/plan.h"

namespace mace {

// A run builds every design it names, each a model and a simulation of every gate
// workload: more than this is a batch for the evaluation harness, not a run.
inline constexpr std::size_t kMaxDesigns = 64;
// A design's name is a task ID: letters, digits and _ . -, at most this long.
inline constexpr std::size_t kMaxDesignNameBytes = 48;
// Values one sweep parameter may list; the product is bounded by kMaxDesigns.
inline constexpr std::size_t kMaxSweepValues = 16;
// RTL defines one design may name (a plan's CONFIG_RTL: line takes as many).
inline constexpr std::size_t kMaxDesignDefines = kMaxDefinesPerLine;
// The baseline's task ID, which no named design may take.
inline constexpr std::string_view kBaselineDesignName = "baseline";

struct DesignPoint {
  std::string name;
  std::map<std::string, CacheOverride> caches;  // keys from kCacheNames; absent: the default
  std::vector<std::string> config_rtl;          // UPPER_SNAKE_CASE, as the spec lists them
  bool operator==(const DesignPoint&) const = default;
};

// Per cache, the sizes and associativities to combine; a cache left out keeps the
// default, and a parameter left out of a swept cache keeps the default too.
struct CacheSweep {
  std::vector<int64_t> sizes;
  std::vector<int64_t> associativities;
  bool operator==(const CacheSweep&) const = default;
};
using DesignSweep = std::map<std::string, CacheSweep>;

// The bytes of a cache size as a spec or a command line writes it: 4096, "4096", "4KiB",
// "4 KiB", "1MiB" ("K"/"KB"/"M"/"MB" mean the same binary units); nullopt when it is not one.
std::optional<int64_t> parse_size_text(std::string_view text);

// Why OpenPiton's build cannot make `cache` with this geometry, or nullopt: the size and
// the associativity are powers of two, the associativity divides the size into whole lines
// (L1I lines 32 B, L1D and L1.5 16 B, L2 64 B), with at least one set (four for the L1D,
// whose valid bits come four sets to a word), within 1 GiB and 1024 ways.
std::optional<std::string> cache_geometry_problem(std::string_view cache, int64_t size, int64_t associativity);

// Every problem of the spec's designs, each with its path ("designs[1].caches.l15.size",
// "sweep.l2.associativity[0]", "designs"): names (unique, task IDs, not "baseline"), caches
// (known names, valid geometries), defines, and the number of designs in all.
FieldErrors check_design_points(const std::vector<DesignPoint>& designs, const DesignSweep& sweep);

// The sweep's points, in order (the first cache's values vary slowest), each named from
// its values ("l15_4k_4w", "l15_16k_4w_l2_128k_8w"); a swept cache whose parameter is left
// out takes no value for it and keeps the default.
std::vector<DesignPoint> sweep_points(const DesignSweep& sweep);

// How many designs the product of `sweep` makes; saturates at SIZE_MAX.
std::size_t sweep_size(const DesignSweep& sweep);

// Every design a run builds, in order: the baseline first (named "baseline", no change)
// when `baseline`, then the named designs, then the sweep's points.
std::vector<DesignPoint> run_designs(const std::vector<DesignPoint>& designs, const DesignSweep& sweep,
                                     bool baseline);

// "L1.5 4 KiB 4-way; L2 128 KiB 8-way; defines FOO": a design's changes in words; "OpenPiton's
// defaults" for none.
std::string design_text(const DesignPoint& design);

// A name made of a design's caches, as a sweep names its points: "l15_4k_4w",
// "l15_16k_l2_8w" (a parameter left at 0 left out).
std::string design_name_of(const std::map<std::string, CacheOverride>& caches);

// The command line's designs (`mace submit SPEC --set l15=4KiB,4 --sweep l2=64KiB,128KiB`),
// laid over the spec's. Each --set is CACHE=SIZE[,WAYS] or CACHE=,WAYS; all of them together
// are one design, named from its values (design_name_of), which replaces a design of the
// spec of that name or is added to them. Each --sweep is CACHE=SIZE,SIZE,... or
// CACHE.ways=WAYS,WAYS,... and replaces the spec's sweep of that parameter. Sizes as
// parse_size_text reads them. Problems name the option ("--set", "--sweep") and the value;
// the spec is then unchanged.
FieldErrors apply_design_options(std::vector<DesignPoint>& designs, DesignSweep& sweep,
                                 const std::vector<std::string>& sets, const std::vector<std::string>& sweeps);

}  // namespace mace

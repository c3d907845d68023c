#pragma once
// What each tile's caches and network did in one simulation, counted from the lines
// OpenPiton's own monitors print into the transcript (`sim.log`) when a model is built
// without MINIMAL_MONITORING (piton/verif/env/manycore/cmp_l15_messages_mon.v.pyv and
// l2_mon.v.pyv; see docs/design-results.md#what-each-tile-did). Every figure counts lines
// the monitors print for one event each, so none is estimated:
//
//   core_requests       "<time> TILE3 L1.5 th0: Received PCX ..."   a request of the core to its L1.5
//   l15_requests_to_l2  "<time> TILE3 L1.5: Sending NOC1 ..."       a request of the L1.5 to an L2
//                                                                   slice (its misses, write-throughs)
//   l2_lookup_hits,     "P1S2 valid: l2_way_sel: 01, l2_hit: 1"      a tag lookup of the tile's L2 slice
//   l2_lookup_misses    (of the "TILE3-----" block above it)         (pipeline 1, stage 2) that hit or
//                                                                   missed; a recycled request is looked
//                                                                   up again
//   noc1_flits,         "TILE3 noc1 flit raw: 0x..."                 flits the L1.5 sent on NoC1, the L2
//   noc2_flits,         "TILE3 noc2 flit raw: 0x..."                 slice sent on NoC2, and the L2 slice
//   noc3_flits          "TILE3 noc3 flit raw: 0x..."                 received on NoC3
//
// Instructions retired are not among them: no monitor of the pinned OpenPiton prints a count
// (see sim_figures.h). Only the C++ standard library (REQ-PLAT-9).

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace mace::openpiton {

enum class TileCounter {
  core_requests,
  l15_requests_to_l2,
  l2_lookup_hits,
  l2_lookup_misses,
  noc1_flits,
  noc2_flits,
  noc3_flits,
};
inline constexpr std::size_t kTileCounterCount = 7;

// "core_requests", "l15_requests_to_l2", ...: the words the store and the wire use.
std::string_view to_string(TileCounter counter);
std::optional<TileCounter> tile_counter_from_string(std::string_view text);

using TileCounts = std::array<std::int64_t, kTileCounterCount>;

// Every tile that printed anything, by its flat ID (x + y * x_tiles).
using TileFigures = std::map<int, TileCounts>;

// Counts a transcript fed to it in pieces of any size, one line at a time; a line longer
// than kMaxLineBytes is skipped whole (no monitor line is that long), so memory stays
// bounded however the transcript looks.
class TileFiguresScanner {
 public:
  void feed(std::string_view chunk);
  // Everything counted, the last unterminated line included.
  TileFigures finish();

  static constexpr std::size_t kMaxLineBytes = 4096;
  // Tile IDs beyond this are not OpenPiton's (256 x 256 tiles): such a line is not counted.
  static constexpr int kMaxTiles = 256 * 256;

 private:
  void line(std::string_view text);

  TileFigures figures_;
  std::string partial_;
  bool overlong_ = false;
  std::optional<int> l2_block_tile_;  // the tile of the L2 monitor block being read
};

// The figures of a whole transcript file, read in blocks; nullopt when it cannot be read.
std::optional<TileFigures> tile_figures_of(const std::filesystem::path& sim_log);

}  // namespace mace::openpiton

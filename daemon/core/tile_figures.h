#pragma once
// What each tile's caches and network did in one simulation, as OpenPiton's monitors count
// it in a model built with them (a spec's "monitors": true; openpiton/tile_figures.h says
// which line each figure counts). The loop, the store, the wire and every output carry it
// in these words; a workload simulated without monitors has none.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_text.h"
#include "core/json_writer.h"

namespace mace {

enum class TileCounter {
  core_requests,       // requests of the core to its L1.5
  l15_requests_to_l2,  // requests of the L1.5 to an L2 slice: its misses and write-throughs
  l2_lookup_hits,      // tag lookups of the tile's L2 slice that hit
  l2_lookup_misses,    // ... and that missed
  noc1_flits,          // flits the tile's L1.5 sent on NoC1
  noc2_flits,          // flits the tile's L2 slice sent on NoC2
  noc3_flits,          // flits the tile's L2 slice received on NoC3
};
inline constexpr std::size_t kTileCounterCount = 7;

std::string_view to_string(TileCounter counter);
std::optional<TileCounter> tile_counter_from_string(std::string_view text);
// "core requests", "L1.5 requests to L2", "L2 lookup hits", ..., "NoC1 flits": for people.
std::string_view counter_title(TileCounter counter);

struct TileFigures {
  int tile = 0;  // flat ID: x + y * mesh_x
  std::array<int64_t, kTileCounterCount> counts{};
  int64_t operator[](TileCounter c) const { return counts[static_cast<std::size_t>(c)]; }
  bool operator==(const TileFigures&) const = default;
};

// [{"tile":0,"core_requests":645,...}, ...] ("" for none, so a stored value that is empty
// reads back as none), and back; nullopt for text that is not such a list.
std::string tile_figures_json(const std::vector<TileFigures>& tiles);
// The same list as one value of `w` (an empty list for none), for a document that holds it.
void write_tile_figures(JsonWriter& w, const std::vector<TileFigures>& tiles);
std::optional<std::vector<TileFigures>> tile_figures_from_json(std::string_view json);

}  // namespace mace

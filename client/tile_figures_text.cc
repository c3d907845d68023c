#include "tile_figures_text.h"

#include "render.h"

namespace mace::client {

std::vector<TileFigures> tile_figures_of(capnp::List<api::TileFigures>::Reader tiles) {
  std::vector<TileFigures> out;
  for (auto t : tiles) {
    TileFigures f;
    f.tile = static_cast<int>(t.getTile());
    auto set = [&f](TileCounter c, uint64_t v) { f.counts[static_cast<std::size_t>(c)] = static_cast<int64_t>(v); };
    set(TileCounter::core_requests, t.getCoreRequests());
    set(TileCounter::l15_requests_to_l2, t.getL15RequestsToL2());
    set(TileCounter::l2_lookup_hits, t.getL2LookupHits());
    set(TileCounter::l2_lookup_misses, t.getL2LookupMisses());
    set(TileCounter::noc1_flits, t.getNoc1Flits());
    set(TileCounter::noc2_flits, t.getNoc2Flits());
    set(TileCounter::noc3_flits, t.getNoc3Flits());
    out.push_back(f);
  }
  return out;
}

std::string tile_line(const TileFigures& t) {
  auto n = [&t](TileCounter c) { return cycles_text(t[c]); };
  return "tile " + std::to_string(t.tile) + ": core requests " + n(TileCounter::core_requests) +
         ", L1.5 requests to L2 " + n(TileCounter::l15_requests_to_l2) + ", L2 lookups " +
         n(TileCounter::l2_lookup_hits) + " hit / " + n(TileCounter::l2_lookup_misses) + " miss, NoC1/2/3 flits " +
         n(TileCounter::noc1_flits) + " / " + n(TileCounter::noc2_flits) + " / " + n(TileCounter::noc3_flits);
}


}  // namespace mace::client

#pragma once
// What each tile did (core/tile_figures.h) as mace reads it from maced's answers and shows
// it: one line per tile for `mace status`, JSON for scripts.

#include <string>
#include <vector>

#include "core/json_writer.h"
#include "core/tile_figures.h"
#include "mace.capnp.h"

namespace mace::client {

std::vector<TileFigures> tile_figures_of(capnp::List<api::TileFigures>::Reader tiles);

// "tile 0: core requests 645, L1.5 requests to L2 117, L2 lookups 92 hit / 74 miss, NoC1/2/3
// flits 376 / 473 / 241"
std::string tile_line(const TileFigures& tile);

}  // namespace mace::client

#include "core/tile_figures.h"

#include <simdjson.h>

#include "core/json_writer.h"

namespace mace {

void write_tile_figures(JsonWriter& w, const std::vector<TileFigures>& tiles) {
  w.begin_array();
  for (const auto& t : tiles) {
    w.begin_object().field("tile", t.tile);
    for (std::size_t i = 0; i < kTileCounterCount; ++i) w.field(to_string(static_cast<TileCounter>(i)), t.counts[i]);
    w.end_object();
  }
  w.end_array();
}

std::string tile_figures_json(const std::vector<TileFigures>& tiles) {
  if (tiles.empty()) return "";
  JsonWriter w;
  write_tile_figures(w, tiles);
  return w.take();
}

std::optional<std::vector<TileFigures>> tile_figures_from_json(std::string_view json) {
  std::vector<TileFigures> out;
  if (json.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::array tiles;
  if (parser.parse(padded).get_array().get(tiles)) return std::nullopt;
  for (simdjson::dom::element e : tiles) {
    simdjson::dom::object o;
    if (e.get_object().get(o)) return std::nullopt;
    TileFigures t;
    int64_t tile = 0;
    if (o["tile"].get_int64().get(tile) || tile < 0 || tile > 65535) return std::nullopt;
    t.tile = static_cast<int>(tile);
    for (std::size_t i = 0; i < kTileCounterCount; ++i)
      if (o[to_string(static_cast<TileCounter>(i))].get_int64().get(t.counts[i])) return std::nullopt;
    out.push_back(t);
  }
  return out;
}

}  // namespace mace

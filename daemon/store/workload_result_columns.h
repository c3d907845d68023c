#pragma once
// The columns a simulated workload takes in the store (task_results and
// eval_resimulations alike), after the columns that say whose result it is. For the files
// that implement Store; the one list of them, so a new column is added here once.

#include <stdexcept>
#include <vector>

#include "core/run_input.h"
#include "core/tile_figures.h"
#include "store/columns.h"
#include "store/workload_result_record.h"

namespace mace::store {

namespace held {
// Tile figures as JSON (core/tile_figures.h), '' for none.
struct TileFiguresJson {
  static void bind(Statement& stmt, int index, const std::vector<TileFigures>& value, const char*) {
    stmt.bind(index, tile_figures_json(value));
  }
  template <typename Field>
  static Field read(const Database& db, const Statement& stmt, int index, const char* column) {
    auto tiles = tile_figures_from_json(stmt.text(index));
    if (!tiles)
      throw std::runtime_error(db.path().string() + ": column " + column + " holds no tile figures");
    return *tiles;
  }
};
// A failed run's inputs as JSON (core/run_input.h), '' for none.
struct RunInputsJson {
  static void bind(Statement& stmt, int index, const std::vector<RunInput>& value, const char*) {
    stmt.bind(index, run_inputs_json(value));
  }
  template <typename Field>
  static Field read(const Database& db, const Statement& stmt, int index, const char* column) {
    auto inputs = run_inputs_from_json(stmt.text(index));
    if (!inputs) throw std::runtime_error(db.path().string() + ": column " + column + " holds no run inputs");
    return *inputs;
  }
};
}  // namespace held

inline const auto kWorkloadResultColumns = columns(
    column("ordinal", &WorkloadResultRecord::ordinal), column("workload", &WorkloadResultRecord::workload),
    column("verdict", &WorkloadResultRecord::verdict), column("returncode", &WorkloadResultRecord::returncode),
    column("run_dir", &WorkloadResultRecord::run_dir), column("wall_s", &WorkloadResultRecord::wall_s),
    column("verdict_time", &WorkloadResultRecord::verdict_time), column("cycles", &WorkloadResultRecord::cycles),
    column("error_line", &WorkloadResultRecord::error_line), column("excerpt", &WorkloadResultRecord::excerpt),
    column("tile_figures", &WorkloadResultRecord::tiles, held::TileFiguresJson{}),
    column("argv_json", &WorkloadResultRecord::argv, json_list),
    column("environment_json", &WorkloadResultRecord::environment, json_list),
    column("inputs_json", &WorkloadResultRecord::inputs, held::RunInputsJson{}),
    column("inputs_note", &WorkloadResultRecord::inputs_note));

}  // namespace mace::store

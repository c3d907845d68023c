#pragma once
// How long models took to build, for estimating a running build (store/progress_records.cc).

#include <cstdint>
#include <string>

namespace mace::store {

// A model that was built (not reused), and how long that took.
struct BuildTimeRecord {
  std::string run_id;
  std::string build_id;
  std::string core;
  int64_t mesh_x = 1;
  int64_t mesh_y = 1;
  double wall_s = 0;
  int64_t objects = 0;  // C++ objects compiled; 0: not known
  int64_t finished_at_ms = 0;
};

}  // namespace mace::store

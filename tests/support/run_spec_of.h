#pragma once
// A run spec for tests that need only its core, mesh and gate workloads; every other field
// as a spec that leaves it out has it.

#include <string>
#include <utility>
#include <vector>

#include "core/run_spec.h"

namespace mace::testing {

inline RunSpec run_spec_of(Core core, int mesh_x, int mesh_y,
                           std::vector<std::string> workloads = {"hello"}) {
  RunSpec spec;
  spec.core = core;
  spec.mesh_x = mesh_x;
  spec.mesh_y = mesh_y;
  spec.workloads = std::move(workloads);
  return spec;
}

}  // namespace mace::testing

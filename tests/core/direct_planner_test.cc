// direct_plan_reply: the planner that calls no LLM writes the same reply text the LLM
// path's parser reads.

#include "core/direct_planner.h"

#include <string>

#include <gtest/gtest.h>

namespace mace {
namespace {

TEST(DirectPlanner, OneConfigTaskBuildingTheCoreAndMeshWithDefaults) {
  RunSpec spec;
  spec.core = Core::ariane;
  spec.mesh_x = 2;
  spec.mesh_y = 1;
  spec.workloads = {"hello", "add"};
  spec.objective = "boot";
  EXPECT_EQ(direct_plan_reply(spec),
            "TASK: build | deps= | kind=config | Build the ariane 2x1 mesh with OpenPiton's "
            "defaults and run hello, add\n");
}

TEST(DirectPlanner, NamesTheSpecsCoreMeshAndSingleWorkload) {
  RunSpec spec;
  spec.core = Core::sparc;
  spec.mesh_x = 1;
  spec.mesh_y = 4;
  spec.workloads = {"matmul"};
  EXPECT_EQ(direct_plan_reply(spec),
            "TASK: build | deps= | kind=config | Build the sparc 1x4 mesh with OpenPiton's "
            "defaults and run matmul\n");
}

}  // namespace
}  // namespace mace

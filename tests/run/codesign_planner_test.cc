// The LLM co-design proposer's side of REQ-EVAL-8: what it is told, and which of its
// designs are built.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plan.h"
#include "run/codesign_planner.h"
#include "support/run_spec_of.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

RunSpec spec_of(Core core, int x, int y) { return mace::testing::run_spec_of(core, x, y); }

// REQ-EVAL-8, the LLM proposer: only designs within the budget and on a network the
// search offers are kept; when none is, nothing of the reply is built.
TEST(CodesignPlannerTest, TheProposersDesignsAreFilteredByBudgetAndNetwork) {
  const std::string reply = "TASK: big | deps= | kind=config | x\n"
                            "CACHES: big | l2=1048576,4\n"
                            "TASK: xbar | deps= | kind=config | x\n"
                            "NETWORK: xbar | xbar_config\n"
                            "TASK: mesh | deps= | kind=config | x\n"
                            "NETWORK: mesh | 2dmesh_config\n"
                            "TASK: wl | deps= | kind=workload | x\n";
  Plan on_mesh = parse_plan(codesign_designs_reply(spec_of(Core::pico, 2, 1), reply, 150),
                            {.network = true});
  ASSERT_TRUE(on_mesh.usable());
  ASSERT_EQ(on_mesh.tasks.size(), 2u);  // over budget and the workload task dropped
  EXPECT_EQ(on_mesh.tasks[0].network, "xbar_config");
  EXPECT_EQ(on_mesh.tasks[1].network, "");  // the mesh named is the default

  Plan one_tile = parse_plan(codesign_designs_reply(spec_of(Core::pico, 1, 1), reply, 150),
                             {.network = true});
  ASSERT_EQ(one_tile.tasks.size(), 1u);  // no crossbar on one tile
  EXPECT_EQ(one_tile.tasks[0].network, "");

  EXPECT_EQ(codesign_designs_reply(spec_of(Core::pico, 2, 1), reply, 10), "");
  EXPECT_THAT(codesign_instruction(spec_of(Core::pico, 2, 1), 150), HasSubstr("xbar_config"));
  EXPECT_THAT(codesign_instruction(spec_of(Core::sparc, 1, 1), 150), Not(HasSubstr("xbar_config")));
}

}  // namespace
}  // namespace mace::run

// The co-design search (REQ-EVAL-8): the cache area model, the designs it enumerates
// within a budget (cache geometries, and the crossbar where the core and mesh allow it), the
// plan that builds them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plan.h"
#include "eval/batch_plan.h"
#include "core/cache_area.h"
#include "eval/codesign_designs.h"
#include "support/run_spec_of.h"

namespace mace::eval {
namespace {

using ::testing::HasSubstr;

RunSpec spec_of(Core core, int x, int y) { return mace::testing::run_spec_of(core, x, y); }

// REQ-EVAL-8: the documented model, and every design a search proposes fits the budget.
TEST(CacheAreaTest, TheModelAndTheDesignsWithinABudget) {
  EXPECT_DOUBLE_EQ(cache_area({8192, 4}), 8 * (1 + 0.10 + 0.08));
  // OpenPiton's defaults: 16 KiB L1I, 8 KiB L1D and L1.5, 64 KiB L2, all 4 ways.
  EXPECT_NEAR(tile_cache_area({}), 96 * 1.18, 1e-9);
  SuiteConfig expert;
  expert.defines = {"KEEP_ME"};
  auto designs = codesign_designs(spec_of(Core::pico, 1, 1), expert, 120);
  ASSERT_FALSE(designs.empty());
  EXPECT_LE(designs.size(), kMaxCodesignDesigns);
  double previous = 1e9;
  for (const auto& d : designs) {
    const double area = tile_cache_area(d.config.caches);
    EXPECT_LE(area, 120);
    EXPECT_LE(area, previous);  // largest first
    previous = area;
    EXPECT_EQ(d.config.defines, expert.defines);
    EXPECT_EQ(d.network, "");  // a single tile: the mesh only
  }
  EXPECT_TRUE(codesign_designs(spec_of(Core::pico, 1, 1), expert, 10).empty());
  Plan plan = parse_plan(codesign_plan_reply(spec_of(Core::pico, 1, 1), designs), {.network = true});
  ASSERT_TRUE(plan.usable());
  ASSERT_EQ(plan.tasks.size(), designs.size());
  EXPECT_EQ(plan.tasks[0].caches, designs[0].config.caches);
  EXPECT_EQ(plan.tasks[0].config_rtl, (std::vector<std::string>{"KEEP_ME"}));
}

// REQ-EVAL-8: on a pico mesh the search compares each geometry on the 2D mesh and on the
// crossbar, and the plan carries the network to the build; every design is distinct.
TEST(CodesignDesignsTest, APicoMeshTriesEachGeometryOnBothNetworks) {
  auto designs = codesign_designs(spec_of(Core::pico, 2, 1), {}, 200);
  ASSERT_EQ(designs.size(), kMaxCodesignDesigns);
  for (size_t i = 0; i + 1 < designs.size(); i += 2) {
    EXPECT_EQ(designs[i].network, "");
    EXPECT_EQ(designs[i + 1].network, "xbar_config");
    EXPECT_EQ(designs[i].config, designs[i + 1].config);
    EXPECT_LE(tile_cache_area(designs[i].config.caches), 200);
  }
  for (size_t i = 0; i < designs.size(); ++i)
    for (size_t j = i + 1; j < designs.size(); ++j) EXPECT_NE(designs[i], designs[j]);
  Plan plan = parse_plan(codesign_plan_reply(spec_of(Core::pico, 2, 1), designs), {.network = true});
  ASSERT_TRUE(plan.usable());
  ASSERT_EQ(plan.tasks.size(), designs.size());
  EXPECT_EQ(plan.tasks[0].network, "");
  EXPECT_EQ(plan.tasks[1].network, "xbar_config");
  EXPECT_THAT(plan.tasks[1].instruction, HasSubstr("network xbar_config"));
}

// REQ-EVAL-8: the crossbar only where it was built and checked on a real checkout.
TEST(CodesignDesignsTest, NoCrossbarOnASingleTileOrAnUntriedCore) {
  EXPECT_TRUE(searchable_networks(Core::pico, 1, 1).empty());
  EXPECT_TRUE(searchable_networks(Core::ariane, 2, 1).empty());
  EXPECT_TRUE(searchable_networks(Core::generic, 2, 1).empty());
  // More than one row: the crossbar has one port per column.
  EXPECT_TRUE(searchable_networks(Core::pico, 2, 2).empty());
  EXPECT_TRUE(searchable_networks(Core::pico, 1, 2).empty());
  EXPECT_TRUE(searchable_networks(Core::sparc, 2, 2).empty());
  EXPECT_EQ(searchable_networks(Core::pico, 8, 1).size(), 1u);
  EXPECT_EQ(searchable_networks(Core::sparc, 2, 1).size(), 1u);
  for (const auto& d : codesign_designs(spec_of(Core::pico, 2, 2), {}, 200)) EXPECT_EQ(d.network, "");
  for (const auto& d : codesign_designs(spec_of(Core::sparc, 2, 2), {}, 200)) EXPECT_EQ(d.network, "");
}

TEST(CacheAreaTest, OnlyTasksWithAnAreaBudgetGetACodesignJob) {
  auto parsed = parse_suite_json(R"({"suite": "s", "tasks": [
    {"id": "a", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o"}, "expert": {}, "area_budget": 120},
    {"id": "b", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o"}, "expert": {}}]})");
  ASSERT_TRUE(parsed.suite);
  BatchRequest request;
  request.methods = {Method::codesign};
  auto jobs = plan_jobs(*parsed.suite, request);
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].task_id, "a");
}

}  // namespace
}  // namespace mace::eval

// A spec's designs (core/design_points.h): read from JSON, checked with the path of each
// mistake, a sweep's product named and bounded, and what the direct planner makes of them.

#include "core/design_points.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/direct_planner.h"
#include "core/plan_checks.h"
#include "core/planner_prompt.h"
#include "core/run_spec.h"
#include "core/tile_figures.h"

namespace mace {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Optional;

SpecParseResult parse_with(const std::string& fields) {
  return parse_run_spec_json(R"({"core": "pico", "workloads": ["hello", "memstress"],
      "objective": "compare the L1.5", "backend": "direct")" + fields + "}");
}

std::string messages(const FieldErrors& errors) {
  std::string out;
  for (const auto& e : errors) out += e.path + ": " + e.message + "\n";
  return out;
}

TEST(DesignPointsTest, SizesAreReadAsPeopleWriteThem) {
  EXPECT_THAT(parse_size_text("4096"), Optional(4096));
  EXPECT_THAT(parse_size_text("4KiB"), Optional(4096));
  EXPECT_THAT(parse_size_text("4 KiB"), Optional(4096));
  EXPECT_THAT(parse_size_text("16k"), Optional(16384));
  EXPECT_THAT(parse_size_text("1MiB"), Optional(1 << 20));
  EXPECT_EQ(parse_size_text("4 GB"), std::nullopt);
  EXPECT_EQ(parse_size_text("-4KiB"), std::nullopt);
  EXPECT_EQ(parse_size_text("0"), std::nullopt);
  EXPECT_EQ(parse_size_text("99999999999999999999K"), std::nullopt);
}

// REQ-PLAN-1: a design names its caches, defines and name; the spec reads back the same.
TEST(DesignPointsTest, ANamedDesignIsReadAndWrittenBackTheSame) {
  const auto parsed = parse_with(R"(, "designs": [{"name": "l15_4k",
      "caches": {"l15": {"size": "4KiB", "associativity": 4}, "l2": {"size": 131072}},
      "config_rtl": ["MY_DEFINE"]}])");
  ASSERT_TRUE(parsed.spec) << messages(parsed.errors);
  ASSERT_EQ(parsed.spec->designs.size(), 1u);
  const DesignPoint& d = parsed.spec->designs[0];
  EXPECT_EQ(d.name, "l15_4k");
  EXPECT_EQ(d.caches.at("l15"), (CacheOverride{4096, 4}));
  EXPECT_EQ(d.caches.at("l2"), (CacheOverride{131072, 0})) << "associativity left to the checkout";
  EXPECT_THAT(d.config_rtl, ElementsAre("MY_DEFINE"));
  EXPECT_TRUE(parsed.spec->baseline);
  const auto again = parse_run_spec_json(run_spec_to_json(*parsed.spec));
  ASSERT_TRUE(again.spec) << messages(again.errors);
  EXPECT_EQ(*again.spec, *parsed.spec);
}

TEST(DesignPointsTest, ASweepTakesTheProductNamedFromItsValues) {
  const auto parsed = parse_with(R"(, "sweep": {"l15": {"size": ["4KiB", "8KiB", "16KiB"]},
      "l2": {"size": [65536, 131072], "associativity": [4]}}, "baseline": false)");
  ASSERT_TRUE(parsed.spec) << messages(parsed.errors);
  const auto designs = parsed.spec->all_designs();
  std::vector<std::string> names;
  for (const auto& d : designs) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("l15_4k_l2_64k_4w", "l15_4k_l2_128k_4w", "l15_8k_l2_64k_4w",
                                 "l15_8k_l2_128k_4w", "l15_16k_l2_64k_4w", "l15_16k_l2_128k_4w"));
  EXPECT_EQ(designs[0].caches.at("l15"), (CacheOverride{4096, 0}));
  EXPECT_EQ(designs[1].caches.at("l2"), (CacheOverride{131072, 4}));
  const auto again = parse_run_spec_json(run_spec_to_json(*parsed.spec));
  ASSERT_TRUE(again.spec) << messages(again.errors);
  EXPECT_EQ(*again.spec, *parsed.spec);
}

TEST(DesignPointsTest, TheBaselineComesFirstUnlessTheSpecSaysNot) {
  const auto parsed = parse_with(R"(, "designs": [{"name": "small", "caches": {"l15": {"size": 4096}}}])");
  ASSERT_TRUE(parsed.spec) << messages(parsed.errors);
  const auto designs = parsed.spec->all_designs();
  ASSERT_EQ(designs.size(), 2u);
  EXPECT_EQ(designs[0].name, "baseline");
  EXPECT_THAT(designs[0].caches, IsEmpty());
  EXPECT_EQ(designs[1].name, "small");
}

// Each mistake named by its field's path.
TEST(DesignPointsTest, AGeometryOpenPitonCannotBuildIsRefusedAtItsPath) {
  const auto parsed = parse_with(R"(, "designs": [
      {"name": "odd", "caches": {"l15": {"size": 4096, "associativity": 3}}},
      {"name": "tiny", "caches": {"l1d": {"size": 64, "associativity": 4}}},
      {"name": "big", "caches": {"l2": {"size": 6000}}},
      {"name": "odd", "caches": {"l3": {"size": 4096}}},
      {"name": "baseline"},
      {"caches": {}}])");
  ASSERT_FALSE(parsed.spec);
  const std::string all = messages(parsed.errors);
  EXPECT_THAT(all, HasSubstr("designs[0].caches.l15.associativity: L1.5 associativity must be a power of two"));
  EXPECT_THAT(all, HasSubstr("designs[1].caches.l1d: L1D of 64 B cannot be 4-way"));
  EXPECT_THAT(all, HasSubstr("designs[2].caches.l2.size: L2 size must be a power of two"));
  EXPECT_THAT(all, HasSubstr("designs[3].caches.l3: unknown cache"));
  EXPECT_THAT(all, HasSubstr("designs[3].name: another design is named \"odd\""));
  EXPECT_THAT(all, HasSubstr("designs[4].name: \"baseline\" names OpenPiton's defaults"));
  EXPECT_THAT(all, HasSubstr("designs[5].name: required field is missing"));
}

TEST(DesignPointsTest, ASweepIsBoundedAndEachPointThatCannotBeBuiltIsNamed) {
  const auto big = parse_with(R"(, "sweep": {
      "l1d": {"size": [4096, 8192, 16384, 32768], "associativity": [1, 2, 4, 8]},
      "l15": {"size": [4096, 8192, 16384, 32768, 65536]}})");
  ASSERT_FALSE(big.spec);
  EXPECT_THAT(messages(big.errors), HasSubstr("sweep: makes 80 designs with the named ones, more than a run builds (64)"));

  const auto bad = parse_with(R"(, "sweep": {"l1d": {"size": [64, 4096], "associativity": [4, 3]},
                                            "l2": {}})");
  ASSERT_FALSE(bad.spec);
  const std::string all = messages(bad.errors);
  EXPECT_THAT(all, HasSubstr("sweep.l1d.associativity[1]: L1D associativity must be a power of two"));
  EXPECT_THAT(all, HasSubstr("sweep.l1d: L1D of 64 B cannot be 4-way"));
  EXPECT_THAT(all, HasSubstr("sweep.l2: names no value"));
}

TEST(DesignPointsTest, WithoutDesignsTheDirectPlannerBuildsTheDefaultsAsOneTask) {
  const auto parsed = parse_with("");
  ASSERT_TRUE(parsed.spec);
  EXPECT_EQ(direct_plan_reply(*parsed.spec),
            "TASK: build | deps= | kind=config | Build the pico 1x1 mesh with OpenPiton's defaults and run "
            "hello, memstress\n");
}

// Every design a config task of the one level, its caches and defines as the plan parser
// reads them; a parameter left out keeps the checkout's default.
TEST(DesignPointsTest, TheDirectPlannerMakesOneConfigTaskPerDesign) {
  const auto parsed = parse_with(R"(, "designs": [{"name": "l15_4k", "caches": {"l15": {"size": 4096}},
      "config_rtl": ["FOO"]}], "sweep": {"l2": {"associativity": [8]}})");
  ASSERT_TRUE(parsed.spec) << messages(parsed.errors);
  const Plan plan = parse_plan(direct_plan_reply(*parsed.spec));
  ASSERT_TRUE(plan.usable()) << direct_plan_reply(*parsed.spec);
  ASSERT_EQ(plan.tasks.size(), 3u);
  EXPECT_EQ(plan.tasks[0].id, "baseline");
  EXPECT_THAT(plan.tasks[0].caches, IsEmpty());
  EXPECT_EQ(plan.tasks[1].id, "l15_4k");
  EXPECT_EQ(plan.tasks[1].caches.at("l15"), (CacheOverride{4096, 0}));
  EXPECT_THAT(plan.tasks[1].config_rtl, ElementsAre("FOO"));
  EXPECT_EQ(plan.tasks[2].id, "l2_8w");
  EXPECT_EQ(plan.tasks[2].caches.at("l2"), (CacheOverride{0, 8}));
  for (const auto& t : plan.tasks) {
    EXPECT_THAT(t.deps, IsEmpty());
    EXPECT_EQ(t.kind, TaskKind::config);
  }
  const CacheGeometry defaults = {{"l15", {8192, 4}}, {"l2", {65536, 4}}};
  EXPECT_EQ(effective_caches(plan.tasks[1], defaults).at("l15"), (CacheOverride{4096, 4}));
  EXPECT_EQ(effective_caches(plan.tasks[2], defaults).at("l2"), (CacheOverride{65536, 8}));
}

// REQ-PLAN-5: an LLM planner is told the spec's designs as where to start.
TEST(DesignsTest, AnLlmPlannerIsToldTheDesignsAsTheStartingPoint) {
  const auto parsed = parse_with(R"(, "designs": [{"name": "l15_4k", "caches": {"l15": {"size": 4096}}}])");
  ASSERT_TRUE(parsed.spec) << messages(parsed.errors);
  const std::string prompt = planner_prompt({.spec = *parsed.spec});
  EXPECT_THAT(prompt, HasSubstr("The run spec names these designs as the starting point"));
  EXPECT_THAT(prompt, HasSubstr("  - baseline: OpenPiton's defaults\n"));
  EXPECT_THAT(prompt, HasSubstr("  - l15_4k: L1.5 4 KiB\n"));
  EXPECT_THAT(planner_prompt({.spec = *parse_with("").spec}), Not(HasSubstr("names these designs")));
}

// What each tile did crosses the store as JSON and reads back the same; none is "".
TEST(DesignsTest, TileFiguresReadBackAsTheyWereWritten) {
  TileFigures t{.tile = 3, .counts = {}};
  t.counts[static_cast<std::size_t>(TileCounter::noc2_flits)] = 473;
  const std::string json = tile_figures_json({t});
  EXPECT_THAT(json, HasSubstr(R"("tile":3)"));
  EXPECT_THAT(json, HasSubstr(R"("noc2_flits":473)"));
  EXPECT_EQ(tile_figures_from_json(json), (std::vector<TileFigures>{t}));
  EXPECT_EQ(tile_figures_json({}), "");
  EXPECT_EQ(tile_figures_from_json(""), std::vector<TileFigures>{});
  EXPECT_EQ(tile_figures_from_json(R"([{"tile":-1}])"), std::nullopt);
  EXPECT_EQ(tile_figures_from_json("not json"), std::nullopt);
}

TEST(DesignsTest, MonitorsAreASpecOptionOffByDefault) {
  EXPECT_FALSE(parse_with("").spec->monitors);
  const auto parsed = parse_with(R"(, "monitors": true)");
  ASSERT_TRUE(parsed.spec) << messages(parsed.errors);
  EXPECT_TRUE(parsed.spec->monitors);
  EXPECT_THAT(messages(parse_with(R"(, "monitors": 1)").errors), HasSubstr("monitors: must be true or false"));
}

}  // namespace
}  // namespace mace

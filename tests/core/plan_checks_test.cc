// fast_path and check_plan: the fixed checks before a plan builds.

#include "core/plan_checks.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/task_graph.h"

namespace mace {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::UnorderedElementsAre;

const CacheGeometry kArianeDefaults = {{"l1i", {16384, 4}},
                                       {"l1d", {8192, 4}},
                                       {"l15", {8192, 4}},
                                       {"l2", {65536, 4}}};

PlanContext ariane() {
  PlanContext ctx;
  ctx.core = "ariane";
  ctx.default_caches = kArianeDefaults;
  return ctx;
}

Plan parsed(const char* reply) {
  Plan plan = parse_plan(reply);
  EXPECT_TRUE(plan.usable()) << (plan.errors.empty() ? "" : plan.errors[0]);
  return plan;
}

// ---------------------------------------------------------------- fast path

TEST(PlanFastPath, SameFlagsRunsTheLastTaskAlone) {
  // REQ-PLAN-17
  Plan plan = parsed("TASK: build | deps= | kind=config | Build it\n"
                     "TASK: run | deps=build | kind=workload | Run hello\n"
                     "TASK: run2 | deps=run | kind=workload | Run the rest\n"
                     "CACHES: build | l1d=16384,4\nCACHES: run | l1d=16384,4\nCACHES: run2 | l1d=16384,4\n"
                     "CONFIG_RTL: build | FOO\n");
  ASSERT_TRUE(fast_path_applies(plan));
  Plan fast = fast_path(plan);
  ASSERT_EQ(fast.tasks.size(), 1u);
  EXPECT_EQ(fast.tasks[0].id, "run2");
  EXPECT_THAT(fast.tasks[0].deps, IsEmpty());
  // It no longer runs after `build`, so it carries the define it would have inherited.
  EXPECT_THAT(fast.tasks[0].config_rtl, ElementsAre("FOO"));
  EXPECT_EQ(fast.tasks[0].caches.at("l1d"), (CacheOverride{16384, 4}));
  EXPECT_TRUE(fast.usable());
  EXPECT_NO_THROW(topological_levels(fast.tasks));
}

TEST(PlanFastPath, DifferentFlagsKeepThePlan) {
  // REQ-PLAN-17
  Plan caches = parsed("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                       "CACHES: b | l2=131072,8\n");
  EXPECT_FALSE(fast_path_applies(caches));
  EXPECT_EQ(fast_path(caches).tasks.size(), 2u);

  Plan defines = parsed("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                        "CONFIG_RTL: a | FOO\n");
  EXPECT_FALSE(fast_path_applies(defines));

  // A co-design search's two networks of the same caches are two designs.
  Plan networks = parse_plan("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                             "NETWORK: b | xbar_config\n",
                             {.network = true});
  EXPECT_FALSE(fast_path_applies(networks));
}

TEST(PlanFastPath, OtherKindsKeepThePlan) {
  // REQ-PLAN-17
  EXPECT_FALSE(fast_path_applies(parsed("TASK: e | deps= | kind=rtl | edit\nTASK: b | deps=e | kind=config | y\n")));
  EXPECT_FALSE(fast_path_applies(parsed("TASK: u | deps= | kind=unit_test | m.v\nTASK: b | deps= | kind=config | y\n")));
}

TEST(PlanFastPath, SingleTaskAndUnusablePlans) {
  // REQ-PLAN-17
  EXPECT_TRUE(fast_path_applies(parsed("TASK: a | deps= | kind=workload | x\n")));
  Plan broken = parse_plan("TASK: a | deps=a | kind=config | x\n");
  EXPECT_FALSE(fast_path_applies(broken));
  EXPECT_EQ(fast_path(broken).errors, broken.errors);
}

// ---------------------------------------------------------------- defines

TEST(PlanChecks, RemovesDefinesNoFileMentions) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: a | deps= | kind=config | x\nCONFIG_RTL: a | REAL_DEF MADE_UP\n");
  PlanContext ctx = ariane();
  ctx.find_define = [](const std::string& d) { return DefineLookup{.mentioned = d == "REAL_DEF", .error = ""}; };
  PlanCheckResult r = check_plan(plan, ctx);
  EXPECT_THAT(r.plan.tasks[0].config_rtl, ElementsAre("REAL_DEF"));
  EXPECT_THAT(r.notes, ElementsAre("task a: removed RTL define MADE_UP, which no file of the checkout mentions"));
  EXPECT_FALSE(r.rejected());
}

TEST(PlanChecks, KeepsADefineTheCheckoutCouldNotBeSearchedForAndSaysWhy) {
  // REQ-PLAN-15: a failed search never removes a define the plan may need.
  Plan plan = parsed("TASK: a | deps= | kind=config | x\nCONFIG_RTL: a | SOME_DEF\n");
  PlanContext ctx = ariane();
  ctx.find_define = [](const std::string&) {
    return DefineLookup{.mentioned = true, .error = "git grep failed (exit 128): fatal: bad index"};
  };
  PlanCheckResult r = check_plan(plan, ctx);
  EXPECT_THAT(r.plan.tasks[0].config_rtl, ElementsAre("SOME_DEF"));
  EXPECT_THAT(r.notes, ElementsAre("task a: kept RTL define SOME_DEF, though the checkout could not "
                                   "be searched for it: git grep failed (exit 128): fatal: bad index"));
  EXPECT_FALSE(r.rejected());
}

TEST(PlanChecks, AddsObjectiveDefinesToEveryBuildingTask) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: a | deps= | kind=config | x\n"
                     "TASK: b | deps=a | kind=workload | y\n"
                     "TASK: u | deps= | kind=unit_test | piton/design/m.v\n"
                     "CONFIG_RTL: b | PITON_FPU\n");
  PlanContext ctx = ariane();
  ctx.objective_defines = {"PITON_FPU", "ZZ_LAST"};
  PlanCheckResult r = check_plan(plan, ctx);
  EXPECT_THAT(r.plan.tasks[0].config_rtl, ElementsAre("PITON_FPU", "ZZ_LAST"));
  EXPECT_THAT(r.plan.tasks[1].config_rtl, ElementsAre("PITON_FPU", "ZZ_LAST"));
  EXPECT_THAT(r.plan.tasks[2].config_rtl, IsEmpty());
  EXPECT_EQ(r.notes.size(), 3u);
}

// ---------------------------------------------------------------- rtl tasks

TEST(PlanChecks, RejectsRtlTaskWithoutRtlEdits) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: e | deps= | kind=rtl | edit the L2\nTASK: c | deps=e | kind=config | build\n");
  PlanContext ctx = ariane();
  PlanCheckResult r = check_plan(plan, ctx);
  EXPECT_THAT(r.rejections, ElementsAre("task e: edits source in a run without RTL edits"));
  EXPECT_THAT(r.rejected_tasks, ElementsAre("e"));
  EXPECT_EQ(r.plan.tasks.size(), 2u);

  ctx.rtl_edits = true;
  EXPECT_FALSE(check_plan(plan, ctx).rejected());
}

// ---------------------------------------------------------------- Ariane way rule

TEST(PlanChecks, ArianeWayRuleNamesTheCache) {
  // REQ-PLAN-15
  // REQ-EXEC-13
  Plan plan = parsed("TASK: d | deps= | kind=config | x\nCACHES: d | l1d=16384,8\n"
                     "TASK: i | deps= | kind=config | x\nCACHES: i | l1i=32768,8 l15=8192,2\n"
                     "TASK: ok | deps= | kind=config | x\nCACHES: ok | l1d=16384,8 l15=16384,8\n");
  PlanCheckResult r = check_plan(plan, ariane());
  EXPECT_THAT(r.rejections,
              ElementsAre("task d: breaks Ariane's way rule: L1D has 8 ways, more than the L1.5's 4",
                          "task i: breaks Ariane's way rule: L1D has 4 ways, more than the L1.5's 2",
                          "task i: breaks Ariane's way rule: L1I has 8 ways, more than the L1.5's 2"));
  EXPECT_THAT(r.rejected_tasks, UnorderedElementsAre("d", "i"));
}

TEST(PlanChecks, WayRuleIsArianeOnly) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: d | deps= | kind=config | x\nCACHES: d | l1d=16384,8 l15=8192,2\n");
  PlanContext ctx = ariane();
  ctx.core = "sparc";
  EXPECT_FALSE(check_plan(plan, ctx).rejected());
}

// ---------------------------------------------------------------- unit_test modules

TEST(PlanChecks, RejectsUnitTestOfMissingModule) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: u1 | deps= | kind=unit_test | piton/design/chip/tile/l15/rtl/l15.v\n"
                     "TASK: u2 | deps= | kind=unit_test | piton/design/nowhere.v\n");
  PlanContext ctx = ariane();
  ctx.module_exists = [](const std::string& p) { return p == "piton/design/chip/tile/l15/rtl/l15.v"; };
  PlanCheckResult r = check_plan(plan, ctx);
  EXPECT_THAT(r.rejections,
              ElementsAre("task u2: names unit_test module piton/design/nowhere.v, which does not exist"));
}

// ---------------------------------------------------------------- history

TEST(PlanChecks, RejectsRepeatOfAFailedConfiguration) {
  // REQ-PLAN-15
  Plan failed_plan = parsed("TASK: old | deps= | kind=config | x\nCACHES: old | l2=131072,8\n"
                            "CONFIG_RTL: old | FOO\n");
  PlanContext ctx = ariane();
  ctx.failed_signatures.insert(task_build_signature(failed_plan, failed_plan.tasks[0], ctx.default_caches));

  // Same flags, reached through a dependency this time.
  Plan plan = parsed("TASK: base | deps= | kind=config | x\nCONFIG_RTL: base | FOO\n"
                     "TASK: again | deps=base | kind=workload | y\nCACHES: again | l2=131072,8\n"
                     "TASK: fresh | deps= | kind=config | z\nCACHES: fresh | l2=131072,16\n");
  PlanCheckResult r = check_plan(plan, ctx);
  EXPECT_THAT(r.rejections,
              ElementsAre("task again: repeats the build flags of a configuration that already failed in this run"));
}

TEST(PlanChecks, OmittedCacheEqualsExplicitDefaultForFailures) {
  // REQ-PLAN-15
  Plan failed_plan = parsed("TASK: old | deps= | kind=config | x\n");
  PlanContext ctx = ariane();
  ctx.failed_signatures.insert(task_build_signature(failed_plan, failed_plan.tasks[0], ctx.default_caches));
  Plan plan = parsed("TASK: same | deps= | kind=config | x\nCACHES: same | l1d=8192,4\n");
  EXPECT_TRUE(check_plan(plan, ctx).rejected());
}

TEST(PlanChecks, RejectsChangesNarrowingShowedBreak) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: a | deps= | kind=config | x\nCACHES: a | l2=32768,2\n"
                     "TASK: b | deps= | kind=config | y\n");
  PlanContext ctx = ariane();
  ctx.narrowing_breaks = [](const CacheGeometry& caches, const std::vector<std::string>&) {
    return caches.at("l2").associativity == 2;
  };
  EXPECT_THAT(check_plan(plan, ctx).rejections,
              ElementsAre("task a: makes a set of changes that narrowing showed breaks the design"));
}

TEST(PlanChecks, TasksOnRtlEditsSkipTheHistoryRules) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: e | deps= | kind=rtl | edit\n"
                     "TASK: c | deps=e | kind=config | build on the edit\n");
  PlanContext ctx = ariane();
  ctx.rtl_edits = true;
  ctx.failed_signatures.insert(task_build_signature(plan, plan.tasks[1], ctx.default_caches));
  ctx.narrowing_breaks = [](const CacheGeometry&, const std::vector<std::string>&) { return true; };
  EXPECT_FALSE(check_plan(plan, ctx).rejected());
}

TEST(PlanChecks, HistoryUsesTheAdjustedDefines) {
  // REQ-PLAN-15
  // The failed build had FOO; a replan naming FOO plus a define no file has builds the same.
  Plan failed_plan = parsed("TASK: old | deps= | kind=config | x\nCONFIG_RTL: old | FOO\n");
  PlanContext ctx = ariane();
  ctx.failed_signatures.insert(task_build_signature(failed_plan, failed_plan.tasks[0], ctx.default_caches));
  ctx.find_define = [](const std::string& d) { return DefineLookup{.mentioned = d == "FOO", .error = ""}; };
  Plan plan = parsed("TASK: n | deps= | kind=config | x\nCONFIG_RTL: n | FOO BOGUS\n");
  EXPECT_TRUE(check_plan(plan, ctx).rejected());
}

// ---------------------------------------------------------------- generic core

TEST(PlanChecks, GenericSkeletonNeedsRtlWork) {
  // REQ-PLAN-15
  PlanContext ctx;
  ctx.core = "generic";
  ctx.rtl_edits = true;
  ctx.generic_wrapper_is_skeleton = true;
  PlanCheckResult none = check_plan(parsed("TASK: c | deps= | kind=config | x\n"), ctx);
  EXPECT_THAT(none.rejections,
              ElementsAre("the plan has no rtl task while the generic core's wrapper is still a skeleton",
                          "task c: does not depend on an rtl task while the generic core's wrapper is still a skeleton"));

  PlanCheckResult some = check_plan(parsed("TASK: e | deps= | kind=rtl | wire the core\n"
                                           "TASK: c | deps=e | kind=config | x\n"
                                           "TASK: loose | deps= | kind=workload | y\n"),
                                    ctx);
  EXPECT_THAT(some.rejected_tasks, ElementsAre("loose"));

  ctx.generic_wrapper_is_skeleton = false;
  EXPECT_FALSE(check_plan(parsed("TASK: c | deps= | kind=config | x\n"), ctx).rejected());
}

TEST(PlanChecks, CleanPlanPassesUntouched) {
  // REQ-PLAN-15
  Plan plan = parsed("TASK: a | deps= | kind=config | x\nCACHES: a | l1d=16384,4\nCONFIG_RTL: a | FOO\n"
                     "TASK: b | deps=a | kind=workload | y\n");
  PlanContext ctx = ariane();
  ctx.find_define = [](const std::string&) { return DefineLookup{}; };
  PlanCheckResult r = check_plan(plan, ctx);
  EXPECT_FALSE(r.rejected());
  EXPECT_THAT(r.notes, IsEmpty());
  EXPECT_EQ(r.plan.tasks, plan.tasks);
}

TEST(PlanChecks, SignatureIsCanonical) {
  // REQ-PLAN-15
  EXPECT_EQ(build_flags_signature({{"l2", {1, 2}}, {"l1d", {3, 4}}}, {"B", "A", "B"}, ""),
            build_flags_signature({{"l1d", {3, 4}}, {"l2", {1, 2}}}, {"A", "B"}, ""));
  EXPECT_NE(build_flags_signature({{"l2", {1, 2}}}, {}, ""), build_flags_signature({{"l2", {1, 4}}}, {}, ""));
  EXPECT_NE(build_flags_signature({}, {"A"}, ""), build_flags_signature({}, {}, ""));
  // REQ-EXEC-5: the network a co-design search chose is part of the design.
  EXPECT_NE(build_flags_signature({}, {}, "xbar_config"), build_flags_signature({}, {}, ""));
}

}  // namespace
}  // namespace mace

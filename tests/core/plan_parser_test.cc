// parse_plan on replies shaped like real planner output, and plan_to_json.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plan.h"

namespace mace {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;

std::vector<std::string> ids(const Plan& plan) {
  std::vector<std::string> out;
  for (const auto& t : plan.tasks) out.push_back(t.id);
  return out;
}

const PlannedTask& task(const Plan& plan, const std::string& id) {
  for (const auto& t : plan.tasks)
    if (t.id == id) return t;
  throw std::runtime_error("no task " + id);
}

// ---------------------------------------------------------------- task lines

TEST(PlanParser, ReadsEveryFieldOfATaskLine) {
  // REQ-PLAN-6
  Plan plan = parse_plan("TASK: t1 | deps= | kind=config | Build the default 1x1 Ariane\n"
                         "TASK: t2 | deps=t1 | kind=workload | Run hello_world on it\n");
  ASSERT_TRUE(plan.usable());
  ASSERT_EQ(plan.tasks.size(), 2u);
  EXPECT_EQ(plan.tasks[0].id, "t1");
  EXPECT_THAT(plan.tasks[0].deps, IsEmpty());
  EXPECT_EQ(plan.tasks[0].kind, TaskKind::config);
  EXPECT_EQ(plan.tasks[0].instruction, "Build the default 1x1 Ariane");
  EXPECT_THAT(plan.tasks[1].deps, ElementsAre("t1"));
  EXPECT_EQ(plan.tasks[1].kind, TaskKind::workload);
  EXPECT_THAT(plan.skipped, IsEmpty());
}

TEST(PlanParser, IgnoresProseAroundThePlan) {
  // REQ-PLAN-6
  Plan plan = parse_plan(
      "Sure! Given the objective, I will first establish a baseline and then grow the L1D.\n"
      "\n"
      "Tasks:\n"
      "TASK: base | deps= | kind=config | Baseline build\n"
      "The next task depends on the baseline so that a failure is attributable.\n"
      "TASK: big_l1d | deps=base | kind=config | Double the L1D\n"
      "CACHES: big_l1d | l1d=16384,4\n"
      "\n"
      "Let me know if you want a different split.\n");
  EXPECT_TRUE(plan.usable());
  EXPECT_THAT(ids(plan), ElementsAre("base", "big_l1d"));
  EXPECT_THAT(plan.skipped, IsEmpty());
}

TEST(PlanParser, SplitsDepsOnCommasAndSpaces) {
  // REQ-PLAN-6
  Plan plan = parse_plan("TASK: a | deps= | kind=config | a\n"
                         "TASK: b | deps= | kind=config | b\n"
                         "TASK: c | deps= | kind=config | c\n"
                         "TASK: d | deps=a, b c,a | kind=workload | d\n"
                         "TASK: e | deps=[a,b] | kind=workload | e\n"
                         "TASK: f | deps=none | kind=workload | f\n"
                         "TASK: g | deps = - | kind=workload | g\n");
  ASSERT_TRUE(plan.usable()) << plan.errors[0];
  EXPECT_THAT(task(plan, "d").deps, ElementsAre("a", "b", "c"));
  EXPECT_THAT(task(plan, "e").deps, ElementsAre("a", "b"));
  EXPECT_THAT(task(plan, "f").deps, IsEmpty());
  EXPECT_THAT(task(plan, "g").deps, IsEmpty());
}

TEST(PlanParser, KeepsPipesInsideTheInstruction) {
  // REQ-PLAN-6
  Plan plan = parse_plan("TASK: t | deps= | kind=config | Build; then grep 'PASS' | wc -l\n");
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.tasks[0].instruction, "Build; then grep 'PASS' | wc -l");
}

TEST(PlanParser, AcceptsTaskIdCharacters) {
  // REQ-PLAN-6
  Plan plan = parse_plan("TASK: cfg-1.l1d_big | deps= | kind=config | x\n"
                         "TASK: bad/id | deps= | kind=config | x\n"
                         "TASK: ok | deps=bad/id | kind=config | x\n");
  EXPECT_THAT(ids(plan), ElementsAre("cfg-1.l1d_big"));
  EXPECT_EQ(plan.skipped.size(), 2u);
}

// ---------------------------------------------------------------- tags

TEST(PlanParser, TagsAreCaseInsensitive) {
  // REQ-PLAN-7
  Plan plan = parse_plan("task: a | deps= | kind=config | x\n"
                         "Task: b | DEPS=a | Kind=Config | y\n"
                         "caches: b | L1D=8192,4\n"
                         "Config_Rtl: b | FOO\n");
  ASSERT_TRUE(plan.usable());
  EXPECT_THAT(ids(plan), ElementsAre("a", "b"));
  EXPECT_EQ(task(plan, "b").kind, TaskKind::config);
  EXPECT_EQ(task(plan, "b").caches.at("l1d"), (CacheOverride{8192, 4}));
  EXPECT_THAT(task(plan, "b").config_rtl, ElementsAre("FOO"));
}

TEST(PlanParser, TagsAfterListMarkers) {
  // REQ-PLAN-7
  Plan plan = parse_plan("- TASK: a | deps= | kind=config | dash\n"
                         "* TASK: b | deps= | kind=config | star\n"
                         "+ TASK: c | deps= | kind=config | plus\n"
                         "1. TASK: d | deps= | kind=config | numbered dot\n"
                         "12) TASK: e | deps= | kind=config | numbered paren\n"
                         "   -   TASK: f | deps= | kind=config | indented\n"
                         "\tTASK: g | deps= | kind=config | tab\n"
                         "-TASK: h | deps= | kind=config | tight\n"
                         "  2.  CACHES: a | l2=65536,4\n"
                         "  * CONFIG_RTL: b | FOO\n");
  ASSERT_TRUE(plan.usable());
  EXPECT_THAT(ids(plan), ElementsAre("a", "b", "c", "d", "e", "f", "g", "h"));
  EXPECT_EQ(task(plan, "a").caches.at("l2"), (CacheOverride{65536, 4}));
  EXPECT_THAT(task(plan, "b").config_rtl, ElementsAre("FOO"));
  EXPECT_EQ(task(plan, "e").instruction, "numbered paren");
}

TEST(PlanParser, TagsInMarkdownBold) {
  // REQ-PLAN-7
  Plan plan = parse_plan("1. **TASK:** a | deps= | kind=config | bold colon inside\n"
                         "2. **TASK**: b | deps=a | kind=workload | bold colon outside\n"
                         "- **TASK: c | deps= | kind=config | whole line bold**\n"
                         "**CACHES:** a | l1i=8192,2\n");
  ASSERT_TRUE(plan.usable());
  EXPECT_THAT(ids(plan), ElementsAre("a", "b", "c"));
  EXPECT_EQ(task(plan, "a").instruction, "bold colon inside");
  EXPECT_EQ(task(plan, "c").instruction, "whole line bold");
  EXPECT_EQ(task(plan, "a").caches.at("l1i"), (CacheOverride{8192, 2}));
}

TEST(PlanParser, ToleratesCrlfAndExtraSpaces) {
  // REQ-PLAN-7
  Plan plan = parse_plan("Plan:\r\n"
                         "TASK :  a  |  deps =  |  kind = config  |  Build it   \r\n"
                         "TASK:b|deps=a|kind=workload|Run it\r\n"
                         "CACHES:  a  |  l1d = 16384 , 8    l15=16384,8  \r\n"
                         "TASK: bad | deps= | kind=nope | x\r\n");
  ASSERT_TRUE(plan.usable());
  EXPECT_THAT(ids(plan), ElementsAre("a", "b"));
  EXPECT_EQ(task(plan, "a").instruction, "Build it");
  EXPECT_EQ(task(plan, "a").kind, TaskKind::config);
  EXPECT_EQ(task(plan, "a").caches.at("l1d"), (CacheOverride{16384, 8}));
  EXPECT_EQ(task(plan, "a").caches.at("l15"), (CacheOverride{16384, 8}));
  // Verbatim, but without the line ending.
  EXPECT_THAT(plan.skipped, ElementsAre("TASK: bad | deps= | kind=nope | x"));
}

TEST(PlanParser, WordsThatOnlyStartLikeATagAreProse) {
  // REQ-PLAN-7
  Plan plan = parse_plan("TASKS:\n"
                         "Tasking: none\n"
                         "The TASK: a | deps= | kind=config | x line is below\n"
                         "TASK: a | deps= | kind=config | x\n");
  EXPECT_THAT(ids(plan), ElementsAre("a"));
  EXPECT_THAT(plan.skipped, IsEmpty());
}

// ---------------------------------------------------------------- kinds

TEST(PlanParser, AcceptsTheFourKindsOnly) {
  // REQ-PLAN-8
  Plan plan = parse_plan("TASK: a | deps= | kind=config | a\n"
                         "TASK: b | deps= | kind=workload | b\n"
                         "TASK: c | deps= | kind=unit_test | piton/design/chip/tile/l15/rtl/l15.v\n"
                         "TASK: d | deps= | kind=rtl | edit\n"
                         "TASK: e | deps= | kind=test | a test task only enters through a hook\n"
                         "TASK: f | deps= | kind=build | not a kind\n"
                         "TASK: g | deps= | kind= | empty\n");
  EXPECT_THAT(ids(plan), ElementsAre("a", "b", "c", "d"));
  ASSERT_EQ(plan.skipped.size(), 3u);
  EXPECT_THAT(plan.skip_reasons[0], HasSubstr("unknown kind \"test\""));
  EXPECT_TRUE(plan.usable());
}

// ---------------------------------------------------------------- malformed lines

TEST(PlanParser, SkipsMalformedTaskLinesAndKeepsTheRest) {
  // REQ-PLAN-9
  const char* reply =
      "TASK: a | deps= | kind=config | fine\n"
      "TASK: b | kind=config | missing deps field\n"
      "TASK: c | deps= | config | kind without key\n"
      "TASK: | deps= | kind=config | no id\n"
      "TASK: d | deps= | kind=config |\n"
      "TASK: e | deps=a! | kind=config | bad dep id\n"
      "TASK: f\n"
      "TASK: g | deps=a | kind=workload | fine too\n";
  Plan plan = parse_plan(reply);
  EXPECT_TRUE(plan.usable());
  EXPECT_THAT(ids(plan), ElementsAre("a", "g"));
  EXPECT_THAT(plan.skipped, ElementsAre("TASK: b | kind=config | missing deps field",
                                        "TASK: c | deps= | config | kind without key",
                                        "TASK: | deps= | kind=config | no id",
                                        "TASK: d | deps= | kind=config |",
                                        "TASK: e | deps=a! | kind=config | bad dep id", "TASK: f"));
  ASSERT_EQ(plan.skip_reasons.size(), plan.skipped.size());
  EXPECT_THAT(plan.skip_reasons[3], HasSubstr("empty instruction"));
}

// ---------------------------------------------------------------- CACHES:

TEST(PlanParser, CachesSetsAllFourCaches) {
  // REQ-PLAN-10
  Plan plan = parse_plan("TASK: t | deps= | kind=config | x\n"
                         "CACHES: t | l1i=16384,4 l1d=32768,8 l15=16384,8 l2=262144,8\n");
  ASSERT_TRUE(plan.usable());
  const auto& c = plan.tasks[0].caches;
  EXPECT_EQ(c.size(), 4u);
  EXPECT_EQ(c.at("l1i"), (CacheOverride{16384, 4}));
  EXPECT_EQ(c.at("l1d"), (CacheOverride{32768, 8}));
  EXPECT_EQ(c.at("l15"), (CacheOverride{16384, 8}));
  EXPECT_EQ(c.at("l2"), (CacheOverride{262144, 8}));
}

TEST(PlanParser, CachesAcceptsOnlyPositiveIntegers) {
  // REQ-PLAN-10
  for (const char* entry : {"l1d=0,4", "l1d=8192,0", "l1d=-8192,4", "l1d=8192,-4", "l1d=8k,4",
                            "l1d=8192.0,4", "l1d=", "l1d=,", "l1d=8192,4,2", "l1d=+8192,4",
                            "l1d=99999999999999999999,4", "l3=8192,4", "l1d:8192,4", "l1d=0x2000,4"}) {
    Plan plan = parse_plan(std::string("TASK: t | deps= | kind=config | x\nCACHES: t | l2=65536,4 ") +
                           entry + "\n");
    EXPECT_THAT(plan.tasks[0].caches, IsEmpty()) << entry;
    EXPECT_EQ(plan.skipped.size(), 1u) << entry;
    EXPECT_TRUE(plan.usable()) << entry;
  }
}

// A size alone, or an associativity alone, keeps the other as the checkout has it (0).
TEST(PlanParser, ACacheEntryMayLeaveOneParameterToTheCheckout) {
  Plan plan = parse_plan("TASK: t | deps= | kind=config | x\nCACHES: t | l15=4096 l2=,8\n");
  ASSERT_TRUE(plan.usable());
  EXPECT_THAT(plan.skipped, IsEmpty());
  EXPECT_EQ(plan.tasks[0].caches.at("l15"), (CacheOverride{4096, 0}));
  EXPECT_EQ(plan.tasks[0].caches.at("l2"), (CacheOverride{0, 8}));
  EXPECT_EQ(describe(plan.tasks[0].caches.at("l2")), "the default size 8-way");
}

TEST(PlanParser, CachesWithoutEntriesOrTaskIsSkipped) {
  // REQ-PLAN-10
  Plan plan = parse_plan("TASK: t | deps= | kind=config | x\n"
                         "CACHES: t |\n"
                         "CACHES: t l1d=8192,4\n"
                         "CACHES: | l1d=8192,4\n");
  EXPECT_THAT(plan.tasks[0].caches, IsEmpty());
  EXPECT_EQ(plan.skipped.size(), 3u);
}

TEST(PlanParser, DirectivesForUnknownTasksAreSkippedWithTheReason) {
  // REQ-PLAN-10
  // REQ-PLAN-11
  Plan plan = parse_plan("CACHES: ghost | l1d=8192,4\n"
                         "TASK: t | deps= | kind=config | x\n"
                         "CONFIG_RTL: phantom | FOO\n");
  EXPECT_TRUE(plan.usable());
  EXPECT_THAT(plan.skipped, ElementsAre("CACHES: ghost | l1d=8192,4", "CONFIG_RTL: phantom | FOO"));
  EXPECT_THAT(plan.skip_reasons,
              ElementsAre("CACHES: names unknown task ghost", "CONFIG_RTL: names unknown task phantom"));
}

TEST(PlanParser, DirectivesMayComeBeforeTheirTask) {
  // REQ-PLAN-10
  Plan plan = parse_plan("CACHES: t | l1d=8192,4\n"
                         "CONFIG_RTL: t | FOO\n"
                         "TASK: t | deps= | kind=config | x\n");
  EXPECT_EQ(plan.tasks[0].caches.at("l1d"), (CacheOverride{8192, 4}));
  EXPECT_THAT(plan.tasks[0].config_rtl, ElementsAre("FOO"));
  EXPECT_THAT(plan.skipped, IsEmpty());
}

// ---------------------------------------------------------------- NETWORK:

TEST(PlanParser, OnlyACodesignGrammarReadsNetworkLines) {
  // REQ-EXEC-5: only a co-design search sets a task's network; any other planner's
  // NETWORK: line is skipped with the reason and the task keeps OpenPiton's default.
  const std::string reply = "TASK: d1 | deps= | kind=config | x\n"
                            "NETWORK: d1 | xbar_config\n";
  Plan ordinary = parse_plan(reply);
  ASSERT_TRUE(ordinary.usable());
  EXPECT_EQ(ordinary.tasks[0].network, "");
  EXPECT_THAT(ordinary.skipped, ElementsAre("NETWORK: d1 | xbar_config"));
  EXPECT_THAT(ordinary.skip_reasons, ElementsAre(HasSubstr("co-design")));

  Plan codesign = parse_plan(reply, {.network = true});
  EXPECT_EQ(codesign.tasks[0].network, "xbar_config");
  EXPECT_THAT(codesign.skipped, IsEmpty());
}

TEST(PlanParser, NetworkNamesAreSimsOwnOnly) {
  // REQ-EXEC-5, an allowlist: a name sims would refuse (or that could pose as another
  // option) never reaches a build.
  Plan plan = parse_plan("TASK: a | deps= | kind=config | x\n"
                         "NETWORK: a | XBAR_CONFIG\n"
                         "TASK: b | deps= | kind=config | x\n"
                         "NETWORK: b | torus\n"
                         "NETWORK: b | xbar_config -config_rtl=EVIL\n"
                         "NETWORK: b |\n"
                         "NETWORK: ghost | 2dmesh_config\n",
                         {.network = true});
  EXPECT_EQ(task(plan, "a").network, "xbar_config");  // case-insensitive, stored lower-case
  EXPECT_EQ(task(plan, "b").network, "");
  EXPECT_THAT(plan.skip_reasons,
              ElementsAre(HasSubstr("\"torus\" is not one sims builds"),
                          HasSubstr("is not one sims builds"), HasSubstr("is not one sims builds"),
                          "NETWORK: names unknown task ghost"));
  EXPECT_EQ(plan_to_json(plan).find("\"network\":\"xbar_config\"") != std::string::npos, true);
}

// ---------------------------------------------------------------- CONFIG_RTL:

TEST(PlanParser, ConfigRtlAcceptsUpperSnakeCaseOnly) {
  // REQ-PLAN-11
  Plan plan = parse_plan("TASK: t | deps= | kind=config | x\n"
                         "CONFIG_RTL: t | PITON_FPU_ENABLE, CONFIG_L2_WAYS_8 NO_RTL_CSM\n"
                         "CONFIG_RTL: t | lower_case\n"
                         "CONFIG_RTL: t | Mixed_Case\n"
                         "CONFIG_RTL: t | 9LIVES\n"
                         "CONFIG_RTL: t | +define+FOO\n"
                         "CONFIG_RTL: t | GOOD BAD-DASH\n"
                         "CONFIG_RTL: t |\n");
  EXPECT_THAT(plan.tasks[0].config_rtl, ElementsAre("CONFIG_L2_WAYS_8", "NO_RTL_CSM", "PITON_FPU_ENABLE"));
  EXPECT_EQ(plan.skipped.size(), 6u);
  EXPECT_THAT(plan.skip_reasons[0], HasSubstr("\"lower_case\""));
}

// ---------------------------------------------------------------- merging

TEST(PlanParser, LaterCacheValueReplacesEarlier) {
  // REQ-PLAN-12
  Plan plan = parse_plan("TASK: t | deps= | kind=config | x\n"
                         "CACHES: t | l1d=8192,4 l2=65536,4\n"
                         "CACHES: t | l1d=16384,8\n"
                         "CACHES: t | l1i=4096,2 l1i=8192,2\n");
  const auto& c = plan.tasks[0].caches;
  EXPECT_EQ(c.at("l1d"), (CacheOverride{16384, 8}));
  EXPECT_EQ(c.at("l2"), (CacheOverride{65536, 4}));
  EXPECT_EQ(c.at("l1i"), (CacheOverride{8192, 2}));
}

TEST(PlanParser, ConfigRtlLinesMergeIntoTheSortedUnion) {
  // REQ-PLAN-12
  Plan plan = parse_plan("TASK: t | deps= | kind=config | x\n"
                         "CONFIG_RTL: t | ZED ALPHA\n"
                         "CONFIG_RTL: t | ALPHA MIDDLE\n"
                         "TASK: u | deps= | kind=config | y\n");
  EXPECT_THAT(task(plan, "t").config_rtl, ElementsAre("ALPHA", "MIDDLE", "ZED"));
  EXPECT_THAT(task(plan, "u").config_rtl, IsEmpty());
}

TEST(PlanParser, ABadDirectiveLineChangesNothing) {
  // REQ-PLAN-12
  Plan plan = parse_plan("TASK: t | deps= | kind=config | x\n"
                         "CACHES: t | l1d=8192,4\n"
                         "CACHES: t | l1d=16384,8 l2=0,4\n");
  EXPECT_EQ(plan.tasks[0].caches.at("l1d"), (CacheOverride{8192, 4}));
  EXPECT_FALSE(plan.tasks[0].caches.count("l2"));
}

// ---------------------------------------------------------------- unusable plans

TEST(PlanParser, NoValidTaskIsUnusable) {
  // REQ-PLAN-13
  for (const char* reply : {"", "I could not come up with a plan.", "TASK: a | deps= | kind=magic | x\n",
                            "CACHES: a | l1d=8192,4\n"}) {
    Plan plan = parse_plan(reply);
    EXPECT_FALSE(plan.usable()) << reply;
    EXPECT_THAT(plan.errors, ElementsAre("no valid TASK: line")) << reply;
  }
}

TEST(PlanParser, DuplicateIdIsUnusable) {
  // REQ-PLAN-13
  Plan plan = parse_plan("TASK: a | deps= | kind=config | x\n"
                         "TASK: b | deps= | kind=config | y\n"
                         "TASK: a | deps= | kind=workload | z\n"
                         "TASK: a | deps= | kind=workload | w\n");
  EXPECT_FALSE(plan.usable());
  EXPECT_THAT(plan.errors, ElementsAre("duplicate task id a"));
  EXPECT_EQ(plan.tasks.size(), 4u);
}

TEST(PlanParser, DependencyOnUndefinedTaskIsUnusable) {
  // REQ-PLAN-13
  Plan plan = parse_plan("TASK: a | deps= | kind=config | x\n"
                         "TASK: b | deps=a, missing | kind=workload | y\n");
  EXPECT_FALSE(plan.usable());
  EXPECT_THAT(plan.errors, ElementsAre("task b depends on undefined task missing"));
}

TEST(PlanParser, DependencyOnSkippedTaskIsUnusable) {
  // REQ-PLAN-13
  Plan plan = parse_plan("TASK: a | deps= | kind=tset | x\n"
                         "TASK: b | deps=a | kind=workload | y\n");
  EXPECT_THAT(plan.errors, ElementsAre("task b depends on undefined task a"));
}

TEST(PlanParser, CyclesAreUnusable) {
  // REQ-PLAN-13
  Plan plan = parse_plan("TASK: a | deps=c | kind=config | x\n"
                         "TASK: b | deps=a | kind=config | y\n"
                         "TASK: c | deps=b | kind=config | z\n"
                         "TASK: d | deps= | kind=config | fine\n");
  EXPECT_FALSE(plan.usable());
  EXPECT_THAT(plan.errors, ElementsAre("dependency cycle a -> c -> b -> a"));

  Plan self = parse_plan("TASK: a | deps=a | kind=config | x\n");
  EXPECT_THAT(self.errors, ElementsAre("dependency cycle a -> a"));

  Plan two = parse_plan("TASK: a | deps=b | kind=config | x\nTASK: b | deps=a | kind=config | y\n"
                        "TASK: c | deps=d | kind=config | x\nTASK: d | deps=c | kind=config | y\n");
  EXPECT_THAT(two.errors, ElementsAre("dependency cycle a -> b -> a", "dependency cycle c -> d -> c"));
}

TEST(PlanParser, EveryReasonIsReported) {
  // REQ-PLAN-13
  Plan plan = parse_plan("TASK: a | deps=b | kind=config | x\n"
                         "TASK: b | deps=a | kind=config | y\n"
                         "TASK: a | deps=zz | kind=rtl | z\n");
  EXPECT_THAT(plan.errors, ElementsAre("duplicate task id a", "task a depends on undefined task zz",
                                       "dependency cycle a -> b -> a"));
}

// ---------------------------------------------------------------- a whole reply

TEST(PlanParser, RealisticMarkdownReply) {
  // REQ-PLAN-6
  // REQ-PLAN-7
  // REQ-PLAN-12
  const char* reply =
      "## Plan\r\n"
      "\r\n"
      "The objective asks for a 2x2 Ariane mesh with a larger L2, so:\r\n"
      "\r\n"
      "1. **TASK:** baseline | deps= | kind=config | Build the 2x2 mesh with default caches\r\n"
      "2. **TASK:** l2_big | deps=baseline | kind=config | Grow the L2 to 512 KiB, 16 ways\r\n"
      "   - CACHES: l2_big | l2=524288,16\r\n"
      "   - CACHES: l2_big | l15=8192,4\r\n"
      "   - CONFIG_RTL: l2_big | PITON_ARIANE\r\n"
      "3. **TASK:** hello | deps=l2_big | kind=workload | Run hello_world on the big-L2 build\r\n"
      "   - CONFIG_RTL: hello | MINIMAL_MONITORING\r\n"
      "   - CONFIG_RTL: hello | pitonDebug\r\n"
      "\r\n"
      "This keeps each step attributable.\r\n";
  Plan plan = parse_plan(reply);
  ASSERT_TRUE(plan.usable());
  EXPECT_THAT(ids(plan), ElementsAre("baseline", "l2_big", "hello"));
  EXPECT_EQ(task(plan, "l2_big").caches.size(), 2u);
  EXPECT_THAT(task(plan, "hello").config_rtl, ElementsAre("MINIMAL_MONITORING"));
  EXPECT_THAT(plan.skipped, ElementsAre("   - CONFIG_RTL: hello | pitonDebug"));
}

// ---------------------------------------------------------------- JSON

TEST(PlanParser, JsonRendersTheWholePlan) {
  // REQ-PLAN-6
  Plan plan = parse_plan("TASK: a | deps= | kind=config | Say \"hi\"\n"
                         "TASK: b | deps=a | kind=workload | y\n"
                         "CACHES: b | l1d=8192,4 l2=65536,8\n"
                         "CONFIG_RTL: b | FOO BAR\n"
                         "TASK: c | deps= | kind=nope | z\n");
  EXPECT_EQ(plan_to_json(plan),
            R"({"tasks":[)"
            R"({"id":"a","deps":[],"kind":"config","instruction":"Say \"hi\"","caches":{},"config_rtl":[]},)"
            R"({"id":"b","deps":["a"],"kind":"workload","instruction":"y","caches":{"l1d":{"size":8192,"associativity":4},"l2":{"size":65536,"associativity":8}},"config_rtl":["BAR","FOO"]}],)"
            R"("skipped":["TASK: c | deps= | kind=nope | z"],"errors":[]})");
}

TEST(PlanParser, JsonCarriesErrors) {
  // REQ-PLAN-13
  EXPECT_EQ(plan_to_json(parse_plan("nothing here")),
            R"({"tasks":[],"skipped":[],"errors":["no valid TASK: line"]})");
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

std::string cyclic_reply(size_t n) {
  std::string reply;
  for (size_t i = 0; i < n; ++i)
    reply += "TASK: t" + std::to_string(i) + " | deps=t" + std::to_string((i + n - 1) % n) +
             " | kind=config | x\n";
  return reply;
}

// REQ-PLAN-13 with a hostile reply: tens of thousands of tasks in one cycle crashed
// `mace plan parse` and maced with a stack overflow; now the plan is refused for its
// size, at once.
TEST(PlanParserLimits, APlanOfTooManyTasksIsRefusedNotWalked) {
  Plan plan = parse_plan(cyclic_reply(20000));
  ASSERT_EQ(plan.errors.size(), 1u);
  EXPECT_EQ(plan.errors[0], "the plan has 20000 tasks; at most 256 are run");
  Plan small = parse_plan(cyclic_reply(kMaxPlanTasks));
  EXPECT_FALSE(small.usable());
  EXPECT_THAT(small.errors[0], ::testing::HasSubstr("dependency cycle t0 -> t255 -> "));
}

TEST(PlanParserLimits, ATaskWithTooManyDependenciesIsSkipped) {
  std::string deps;
  for (int i = 0; i < 100000; ++i) deps += (i ? "," : "") + std::string("d") + std::to_string(i);
  Plan plan = parse_plan("TASK: a | deps=" + deps + " | kind=config | x\nTASK: b | deps= | kind=config | y\n");
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.skip_reasons[0], "task a depends on more than 256 tasks");
}

TEST(PlanParserLimits, OversizedPiecesAreRefusedWithTheLimit) {
  EXPECT_EQ(parse_plan(std::string(kMaxReplyBytes + 1, 'x')).errors[0],
            "the reply is over 1048576 bytes, the most a plan may be");
  Plan long_id = parse_plan("TASK: " + std::string(65, 'a') + " | deps= | kind=config | x\n");
  EXPECT_TRUE(long_id.tasks.empty());
  Plan long_instruction =
      parse_plan("TASK: a | deps= | kind=config | " + std::string(20000, 'x') + "\n");
  EXPECT_EQ(long_instruction.skip_reasons[0], "task a: instruction longer than 16384 bytes");
  std::string defines;
  for (int i = 0; i < 65; ++i) defines += " D_" + std::to_string(i);
  Plan many_defines = parse_plan("TASK: a | deps= | kind=config | x\nCONFIG_RTL: a |" + defines + "\n");
  EXPECT_EQ(many_defines.skip_reasons[0], "CONFIG_RTL: line for a names more than 64 defines");
}

TEST(PlanParserLimits, ManyErrorsAreCountedNotListed) {
  std::string reply;
  for (int i = 0; i < 100; ++i)
    reply += "TASK: t" + std::to_string(i) + " | deps=missing" + std::to_string(i) + " | kind=config | x\n";
  Plan plan = parse_plan(reply);
  ASSERT_EQ(plan.errors.size(), kMaxPlanErrors + 1);
  EXPECT_EQ(plan.errors.back(), "and 80 more errors");
}

}  // namespace
}  // namespace mace

// topological_levels, inherited_defines and builds_on_rtl_edits.

#include "core/task_graph.h"

#include <stdexcept>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;

PlannedTask t(std::string id, std::vector<std::string> deps = {}, TaskKind kind = TaskKind::config,
              std::vector<std::string> defines = {}) {
  PlannedTask task;
  task.id = std::move(id);
  task.deps = std::move(deps);
  task.kind = kind;
  task.instruction = "do " + task.id;
  task.config_rtl = std::move(defines);
  return task;
}

std::vector<std::vector<std::string>> ids(const std::vector<TaskLevel>& levels) {
  std::vector<std::vector<std::string>> out;
  for (const auto& level : levels) {
    out.emplace_back();
    for (const auto& task : level) out.back().push_back(task.id);
  }
  return out;
}

std::string thrown_by(const std::vector<PlannedTask>& tasks) {
  try {
    topological_levels(tasks);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// ---------------------------------------------------------------- levels

TEST(TaskGraphLevels, IndependentTasksShareOneLevelInPlanOrder) {
  // REQ-EXEC-1
  auto levels = topological_levels({t("c"), t("a"), t("b")});
  EXPECT_THAT(ids(levels), ElementsAre(ElementsAre("c", "a", "b")));
}

TEST(TaskGraphLevels, EveryDependencyLiesInAnEarlierLevel) {
  // REQ-EXEC-1
  auto levels = topological_levels({t("d", {"b", "c"}), t("b", {"a"}), t("e"), t("c", {"a"}), t("a"),
                                    t("f", {"a", "d"})});
  EXPECT_THAT(ids(levels), ElementsAre(ElementsAre("e", "a"), ElementsAre("b", "c"), ElementsAre("d"),
                                       ElementsAre("f")));
}

TEST(TaskGraphLevels, ALongChainIsOneTaskPerLevel) {
  // REQ-EXEC-1
  auto levels = topological_levels({t("a"), t("b", {"a"}), t("c", {"b"}), t("d", {"c"})});
  EXPECT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[3][0].instruction, "do d");
}

TEST(TaskGraphLevels, EmptyPlanHasNoLevels) {
  // REQ-EXEC-1
  EXPECT_THAT(topological_levels({}), IsEmpty());
}

TEST(TaskGraphLevels, ThrowsOnDuplicateUnknownAndCycle) {
  // REQ-EXEC-1
  EXPECT_EQ(thrown_by({t("a"), t("a")}), "duplicate task id a");
  EXPECT_EQ(thrown_by({t("a", {"x"})}), "task a depends on undefined task x");
  EXPECT_EQ(thrown_by({t("a", {"b"}), t("b", {"a"})}), "dependency cycle a -> b -> a");
  EXPECT_EQ(thrown_by({t("a", {"a"})}), "dependency cycle a -> a");
}

TEST(TaskGraphLevels, CyclesAreFoundBehindHealthyTasks) {
  // REQ-EXEC-1
  auto cycles = dependency_cycles({t("root"), t("x", {"root", "z"}), t("y", {"x"}), t("z", {"y"}),
                                   t("tail", {"x"})});
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_THAT(cycles[0], ElementsAre("x", "z", "y", "x"));
}

// ---------------------------------------------------------------- inheritance

TEST(TaskGraphInheritance, DefinesComeFromEveryAncestor) {
  // REQ-EXEC-1 (what a level's task builds with; spec: REQ-EXEC-5)
  Plan plan;
  plan.tasks = {t("a", {}, TaskKind::config, {"A_DEF"}), t("b", {"a"}, TaskKind::config, {"B_DEF"}),
                t("c", {"b"}, TaskKind::workload, {"A_DEF", "C_DEF"}), t("other", {}, TaskKind::config, {"OTHER"}),
                t("d", {"c", "a"}, TaskKind::workload)};
  EXPECT_THAT(inherited_defines(plan, plan.tasks[0]), ElementsAre("A_DEF"));
  EXPECT_THAT(inherited_defines(plan, plan.tasks[2]), ElementsAre("A_DEF", "B_DEF", "C_DEF"));
  EXPECT_THAT(inherited_defines(plan, plan.tasks[4]), ElementsAre("A_DEF", "B_DEF", "C_DEF"));
  EXPECT_THAT(inherited_defines(plan, plan.tasks[3]), ElementsAre("OTHER"));
}

TEST(TaskGraphInheritance, SurvivesCyclesAndUnknownDeps) {
  // REQ-EXEC-1
  Plan plan;
  plan.tasks = {t("a", {"b", "ghost"}, TaskKind::config, {"A"}), t("b", {"a"}, TaskKind::config, {"B"})};
  EXPECT_THAT(inherited_defines(plan, plan.tasks[0]), ElementsAre("A", "B"));
}

TEST(TaskGraphInheritance, BuildsOnRtlEditsThroughAnyAncestor) {
  // REQ-PLAN-15
  Plan plan;
  plan.tasks = {t("edit", {}, TaskKind::rtl), t("cfg", {"edit"}), t("run", {"cfg"}, TaskKind::workload), t("plain")};
  EXPECT_TRUE(builds_on_rtl_edits(plan, plan.tasks[0]));
  EXPECT_TRUE(builds_on_rtl_edits(plan, plan.tasks[1]));
  EXPECT_TRUE(builds_on_rtl_edits(plan, plan.tasks[2]));
  EXPECT_FALSE(builds_on_rtl_edits(plan, plan.tasks[3]));
}

TEST(TaskGraphLevels, WorksOnAParsedPlan) {
  // REQ-EXEC-1
  Plan plan = parse_plan("- TASK: run | deps=cfg | kind=workload | run\n"
                         "- TASK: cfg | deps= | kind=config | build\n"
                         "- TASK: ut | deps= | kind=unit_test | piton/design/x.v\n");
  ASSERT_TRUE(plan.usable());
  EXPECT_THAT(ids(topological_levels(plan.tasks)), ElementsAre(ElementsAre("cfg", "ut"), ElementsAre("run")));
}

}  // namespace
}  // namespace mace

namespace mace {
namespace {

// A chain of 50,000 tasks, closed into a cycle: what a hostile reply could hold. Recursion
// this deep overflowed the stack; the walks are iterative now.
std::vector<PlannedTask> long_chain(size_t n, bool closed) {
  std::vector<PlannedTask> tasks(n);
  for (size_t i = 0; i < n; ++i) {
    tasks[i].id = "t" + std::to_string(i);
    tasks[i].instruction = "x";
    if (i > 0) tasks[i].deps = {"t" + std::to_string(i - 1)};
  }
  if (closed) tasks[0].deps = {"t" + std::to_string(n - 1)};
  return tasks;
}

TEST(TaskGraphLimits, AVeryLongCycleIsFoundWithoutRecursion) {
  auto cycles = dependency_cycles(long_chain(50000, true));
  ASSERT_EQ(cycles.size(), 1u);
  EXPECT_EQ(cycles[0].size(), 50001u);
  EXPECT_THROW(topological_levels(long_chain(50000, true)), std::invalid_argument);
}

TEST(TaskGraphLimits, AVeryLongChainLevelsWithoutRecursion) {
  auto levels = topological_levels(long_chain(50000, false));
  ASSERT_EQ(levels.size(), 50000u);
  EXPECT_EQ(levels.back()[0].id, "t49999");
}

TEST(TaskGraphLimits, CyclesReportedAreBounded) {
  std::vector<PlannedTask> tasks;
  for (int i = 0; i < 100; ++i) {  // 100 separate two-task cycles
    PlannedTask a, b;
    a.id = "a" + std::to_string(i);
    b.id = "b" + std::to_string(i);
    a.deps = {b.id};
    b.deps = {a.id};
    tasks.push_back(a);
    tasks.push_back(b);
  }
  EXPECT_EQ(dependency_cycles(tasks).size(), kMaxReportedCycles);
}

}  // namespace
}  // namespace mace

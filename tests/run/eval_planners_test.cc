// The planners an evaluation wraps around the run's own: the LLM baseline keeps one
// configuration of each reply (REQ-EVAL-5, 6), a seeded-fault run lays its config fault
// over the first plan only (REQ-EVAL-10).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/plan.h"
#include "run/baseline_planner.h"
#include "run/seeded_fault_planner.h"
#include "support/run_spec_of.h"

namespace mace::run {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;

// Answers each plan call with the next of its replies, and keeps the prompts it was given.
class ScriptedPlanner final : public loop::Planner {
 public:
  std::vector<loop::PlannerReply> replies;
  std::vector<std::string> prompts;
  loop::PlannerReply plan(const std::string& prompt) override {
    prompts.push_back(prompt);
    loop::PlannerReply reply = replies.at(calls_++);
    return reply;
  }
  bool can_triage() const override { return true; }
  loop::PlannerReply triage(loop::TriagePhase, const std::function<std::string(bool)>&,
                            const loop::TaskOutcome*) override {
    return {true, "DIAGNOSIS: scripted", 0.01, ""};
  }

 private:
  std::size_t calls_ = 0;
};

const RunSpec kPico = mace::testing::run_spec_of(Core::pico, 1, 1);

const std::string kTwoDesigns =
    "TASK: wl | deps= | kind=workload | run it\n"
    "TASK: small | deps= | kind=config | halve the L1D\n"
    "CACHES: small | l1d=4096,2\n"
    "CONFIG_RTL: small | NO_RTL_CSM\n"
    "TASK: big | deps=small | kind=config | double the L2\n"
    "CACHES: big | l2=131072,4\n";

TEST(BaselinePlannerTest, KeepsOnlyTheFirstConfigTaskWithItsCachesAndDefines) {
  Plan plan = parse_plan(single_configuration_reply(kPico, kTwoDesigns));
  ASSERT_TRUE(plan.usable());
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.tasks[0].kind, TaskKind::config);
  EXPECT_EQ(plan.tasks[0].caches.at("l1d"), (CacheOverride{4096, 2}));
  EXPECT_FALSE(plan.tasks[0].caches.contains("l2"));
  EXPECT_THAT(plan.tasks[0].config_rtl, ElementsAre("NO_RTL_CSM"));
}

TEST(BaselinePlannerTest, AReplyWithoutAConfigTaskIsLeftForTheLoopToRefuse) {
  const std::string only_workload = "TASK: wl | deps= | kind=workload | run it\n";
  EXPECT_EQ(single_configuration_reply(kPico, only_workload), only_workload);
  EXPECT_EQ(single_configuration_reply(kPico, "no plan at all"), "no plan at all");
}

TEST(BaselinePlannerTest, AsksForOneConfigurationAndMakesNoTriageCall) {
  auto llm = std::make_unique<ScriptedPlanner>();
  ScriptedPlanner& seen = *llm;
  llm->replies = {{true, kTwoDesigns, 0.25, ""}, {false, "", 0, "rate limited"}};
  BaselinePlanner baseline(std::move(llm), kPico);
  const loop::PlannerReply first = baseline.plan("PLAN THIS");
  EXPECT_TRUE(first.ok);
  EXPECT_EQ(first.cost_usd, 0.25);  // what the call cost still counts
  EXPECT_EQ(parse_plan(first.text).tasks.size(), 1u);
  EXPECT_THAT(seen.prompts[0], EndsWith(std::string(kBaselineInstruction)));
  const loop::PlannerReply failed = baseline.plan("PLAN THIS");
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.error, "rate limited");
  EXPECT_FALSE(baseline.can_triage());
  EXPECT_FALSE(baseline.triage(loop::TriagePhase::diagnosis, [](bool) { return ""; }, nullptr).ok);
}

eval::SuiteConfig broken_l15() {
  return {.caches = {{"l15", CacheOverride{12288, 3}}}, .defines = {"BREAK_IT"}};
}

TEST(SeededFaultPlannerTest, TheFaultIsLaidOverEveryConfigAndWorkloadTaskOfTheFirstPlanOnly) {
  auto llm = std::make_unique<ScriptedPlanner>();
  llm->replies = {{true, kTwoDesigns, 0, ""}, {true, kTwoDesigns, 0, ""}};
  SeededFaultPlanner seeded(std::move(llm), broken_l15());
  Plan first = parse_plan(seeded.plan("p").text);
  ASSERT_EQ(first.tasks.size(), 3u);
  for (const auto& task : first.tasks) {
    EXPECT_EQ(task.caches.at("l15"), (CacheOverride{12288, 3})) << task.id;
    EXPECT_THAT(task.config_rtl, ::testing::Contains("BREAK_IT")) << task.id;
  }
  EXPECT_EQ(first.tasks[1].caches.at("l1d"), (CacheOverride{4096, 2}));  // the planner's own stay
  Plan second = parse_plan(seeded.plan("p").text);
  for (const auto& task : second.tasks) EXPECT_FALSE(task.caches.contains("l15")) << task.id;
}

TEST(SeededFaultPlannerTest, AFailedFirstCallLeavesTheFaultForTheFirstPlanThatComes) {
  auto llm = std::make_unique<ScriptedPlanner>();
  llm->replies = {{false, "", 0, "server error"}, {true, kTwoDesigns, 0, ""}};
  SeededFaultPlanner seeded(std::move(llm), broken_l15());
  EXPECT_FALSE(seeded.plan("p").ok);
  EXPECT_THAT(seeded.plan("p").text, HasSubstr("CACHES: small | l15=12288,3"));
  EXPECT_TRUE(seeded.can_triage());
  EXPECT_EQ(seeded.triage(loop::TriagePhase::diagnosis, [](bool) { return ""; }, nullptr).text,
            "DIAGNOSIS: scripted");  // triage is the run's own planner's
}

TEST(SeededFaultPlannerTest, APlanWithNoConfigOrWorkloadTaskIsUnchanged) {
  EXPECT_EQ(with_seeded_fault("TASK: r | deps= | kind=rtl | edit\n", broken_l15()),
            "TASK: r | deps= | kind=rtl | edit\n");
}

}  // namespace
}  // namespace mace::run

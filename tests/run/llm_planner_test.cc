// The planner of an LLM backend: every attempt recorded and counted (REQ-BUD-5, 12, 14),
// the run's tools offered on every call and the diagnostic tools on triage calls when they
// can start, the prompt told which (REQ-EXEC-7, REQ-FAIL-5, 7).

#include "run/llm_planner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/recorded_run.h"
#include "run/scripted_backend.h"

namespace mace::run {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using mace::run::testing::ScriptedBackend;

llm::Tool tool_named(const std::string& name) {
  return llm::Tool{.name = name, .description = name, .methods = {}, .call = nullptr};
}

std::vector<std::string> tool_names(const llm::Request& request) {
  std::vector<std::string> names;
  for (const auto& tool : request.tools) names.push_back(tool.name);
  return names;
}

class LlmPlannerTest : public testing::RecordedRunTest {
 protected:
  std::unique_ptr<LlmPlanner> planner(LlmPlanner::DiagnosticToolFor diagnostic_tool = nullptr) {
    LlmPlanner::Parts parts;
    parts.backend = std::make_unique<ScriptedBackend>(replies_, requests_, mutex_);
    parts.retry.scale = 0;  // rate-limit waits take no time
    parts.run_tools = {tool_named("rtl_edit")};
    parts.diagnostic_tool = std::move(diagnostic_tool);
    parts.iteration = [] { return 2; };
    return std::make_unique<LlmPlanner>(std::move(parts), *recorder_, cancel_);
  }

  os::CancelToken cancel_;
  std::deque<llm::Reply> replies_;
  std::vector<llm::Request> requests_;
  std::mutex mutex_;
};

TEST_F(LlmPlannerTest, EveryAttemptIsRecordedAndItsCostCounted) {  // REQ-BUD-5, 12, 14
  llm::Reply limited = ScriptedBackend::rate_limited();
  limited.usage.cost_usd = 0.002;  // a vendor that bills the turned-away attempt
  limited.usage.cost_source = llm::CostSource::reported;
  replies_ = {limited, ScriptedBackend::text("TASK: t | deps= | kind=config | go\n", 0.05)};
  const loop::PlannerReply reply = planner()->plan("PLAN");
  EXPECT_TRUE(reply.ok);
  EXPECT_EQ(reply.text, "TASK: t | deps= | kind=config | go\n");
  EXPECT_DOUBLE_EQ(reply.cost_usd, 0.052);
  const auto calls = store_->llm_calls(run_id_);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_FALSE(calls[0].success);
  EXPECT_EQ(calls[0].error_class, LlmErrorClass::rate_limit);
  EXPECT_TRUE(calls[1].success);
  for (const auto& call : calls) {
    EXPECT_EQ(call.phase, LlmPhase::planning);
    EXPECT_EQ(call.iteration, 2);
    EXPECT_EQ(call.prompt_text, "PLAN");
    EXPECT_EQ(call.backend, "scripted");
  }
}

TEST_F(LlmPlannerTest, ATriageCallOffersTheDiagnosticToolWhenItCanStartAndSaysSo) {  // REQ-FAIL-5, 7
  loop::TaskOutcome failed;
  failed.task_id = "t";
  replies_ = {ScriptedBackend::text("DIAGNOSIS: l1d too small"), ScriptedBackend::text("POST_MORTEM: x")};
  std::vector<bool> told;
  auto prompt = [&](bool tools_offered) {
    told.push_back(tools_offered);
    return std::string(tools_offered ? "with tools" : "without tools");
  };
  auto diagnose_only_t = [](const loop::TaskOutcome* task) -> std::optional<llm::Tool> {
    if (task && task->task_id == "t") return tool_named("diagnostics");
    return std::nullopt;
  };
  auto p = planner(diagnose_only_t);
  EXPECT_TRUE(p->triage(loop::TriagePhase::diagnosis, prompt, &failed).ok);
  EXPECT_TRUE(p->triage(loop::TriagePhase::post_mortem, prompt, nullptr).ok);
  EXPECT_THAT(told, ElementsAre(true, false));
  ASSERT_EQ(requests_.size(), 2u);
  EXPECT_THAT(tool_names(requests_[0]), ElementsAre("rtl_edit", "diagnostics"));
  EXPECT_THAT(tool_names(requests_[1]), ElementsAre("rtl_edit"));
  const auto calls = store_->llm_calls(run_id_);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].phase, LlmPhase::diagnosis);
  EXPECT_EQ(calls[0].task_id, "t");
  EXPECT_EQ(calls[0].prompt_text, "with tools");
  EXPECT_EQ(calls[1].phase, LlmPhase::post_mortem);
}

TEST_F(LlmPlannerTest, AnAgentCallOffersTheRunsToolsAndTheTasksOwn) {  // REQ-EXEC-7
  replies_ = {ScriptedBackend::text("done")};
  const auto reply = planner()->agent(3, "r", "EDIT", {tool_named("testbench")});
  EXPECT_TRUE(reply.ok);
  ASSERT_EQ(requests_.size(), 1u);
  EXPECT_THAT(tool_names(requests_[0]), ElementsAre("rtl_edit", "testbench"));
  const auto calls = store_->llm_calls(run_id_);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].phase, LlmPhase::task);
  EXPECT_EQ(calls[0].iteration, 3);  // the executor's, not the loop's
  EXPECT_EQ(calls[0].task_id, "r");
}

TEST_F(LlmPlannerTest, ACallWhoseCostIsUnknownIsSaidOnceInTheRunsLog) {  // REQ-BUD-5
  llm::Reply unpriced = ScriptedBackend::text("TASK: t | deps= | kind=config | go\n");
  unpriced.usage.cost_usd = 0;
  unpriced.usage.cost_source = llm::CostSource::unknown;
  replies_ = {unpriced, unpriced};
  auto p = planner();
  p->plan("PLAN");
  p->plan("PLAN");
  const std::string log = messages();
  EXPECT_THAT(log, HasSubstr("scripted/scripted-1 reported tokens but no cost"));
  EXPECT_THAT(log, HasSubstr("so the budget does not hold"));
  EXPECT_EQ(log.find("reported tokens"), log.rfind("reported tokens")) << log;
}

}  // namespace
}  // namespace mace::run

// The tasks' LLM calls of a run planned by an LLM backend: a config task's prompt call is
// made through the replay cache and its failure is logged, never fatal (REQ-EXEC-10, 11);
// an rtl task's agent call is the planner's, with the task's own tools.

#include "run/planner_task_llm.h"

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/recorded_run.h"
#include "run/scripted_backend.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::run::testing::ScriptedBackend;

class PlannerTaskLlmTest : public testing::RecordedRunTest {
 protected:
  void SetUp() override {
    RecordedRunTest::SetUp();
    spec_ = *parse_run_spec_json(store_->find_run(run_id_)->spec_json).spec;
    LlmPlanner::Parts parts;
    parts.backend = std::make_unique<ScriptedBackend>(replies_, requests_, mutex_);
    parts.retry.scale = 0;
    parts.iteration = [] { return 1; };
    planner_ = std::make_unique<LlmPlanner>(std::move(parts), *recorder_, cancel_);
    replay_ = std::make_unique<RunReplay>(*recorder_, *store_->find_run(run_id_), spec_,
                                          std::vector<std::string>{"prompt"});
    task_llm_ = std::make_unique<PlannerTaskLlm>(*planner_, *replay_, *recorder_, spec_);
    job_.task.id = "t1";
    job_.task.kind = TaskKind::config;
    job_.task.instruction = "double the L1D";
  }

  os::CancelToken cancel_;
  std::deque<llm::Reply> replies_;
  std::vector<llm::Request> requests_;
  std::mutex mutex_;
  RunSpec spec_;
  std::unique_ptr<LlmPlanner> planner_;
  std::unique_ptr<RunReplay> replay_;
  std::unique_ptr<PlannerTaskLlm> task_llm_;
  loop::TaskJob job_;
};

TEST_F(PlannerTaskLlmTest, APromptCallIsMadeWithTheTaskAndItsCostCounted) {  // REQ-EXEC-10
  replies_ = {ScriptedBackend::text("noted", 0.03)};
  EXPECT_DOUBLE_EQ(task_llm_->prompt(1, job_), 0.03);
  ASSERT_EQ(requests_.size(), 1u);
  EXPECT_THAT(requests_[0].prompt, HasSubstr("double the L1D"));
  EXPECT_THAT(messages(), Not(HasSubstr("failed")));
  // Cached under the run's own tag, so a replay of this run is served the same reply.
  EXPECT_TRUE(store_->find_cache_entry(run_id_ + "/iter1/t1/prompt").has_value());
}

TEST_F(PlannerTaskLlmTest, AFailedPromptCallIsLoggedAndTheTaskGoesOn) {  // REQ-EXEC-11
  llm::Reply failed;
  failed.error_class = llm::ErrorClass::server;
  failed.error = "the vendor is down";
  replies_ = {failed};
  EXPECT_DOUBLE_EQ(task_llm_->prompt(1, job_), 0.0);
  EXPECT_THAT(messages(), HasSubstr("the prompt call of t1 failed"));
  EXPECT_THAT(messages(), HasSubstr("building it anyway"));
}

TEST_F(PlannerTaskLlmTest, AnAgentCallIsThePlannersWithTheTasksTools) {  // REQ-EXEC-7
  replies_ = {ScriptedBackend::text("edited", 0.5)};
  std::vector<llm::Tool> tools = {
      llm::Tool{.name = "unit_test", .description = "run it", .methods = {}, .call = nullptr}};
  job_.task.kind = TaskKind::rtl;
  const loop::PlannerReply reply = task_llm_->agent(1, job_, "edit the L1D", tools);
  EXPECT_TRUE(reply.ok);
  EXPECT_EQ(reply.text, "edited");
  ASSERT_EQ(requests_.size(), 1u);
  EXPECT_EQ(requests_[0].prompt, "edit the L1D");
  ASSERT_FALSE(requests_[0].tools.empty());
  EXPECT_EQ(requests_[0].tools.back().name, "unit_test");
  const auto calls = store_->llm_calls(run_id_);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].task_id, "t1");
}

}  // namespace
}  // namespace mace::run

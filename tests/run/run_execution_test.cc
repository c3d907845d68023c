// One run assembled and executed in-process, without maced: the fixture checkout, a real
// SQLite store, the direct planner or a scripted LLM backend (REQ-VER-13, REQ-BUD-12,
// REQ-FAIL-1, REQ-EXEC-7).

#include "run/run_execution.h"

#include <chrono>
#include <deque>
#include <mutex>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/scripted_backend.h"
#include "service/run_service.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::run {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using mace::run::testing::ScriptedBackend;

class RunExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::Store::open(dir_.file("mace.db"));
    service_ = std::make_unique<service::RunService>(*store_);
    settings_.workloads_dir = mace::testing::source_root() + "/workloads";
    settings_.retry.scale = 0;  // rate-limit waits take no time
    settings_.make_backend = [this](const llm::BackendChoice&) {
      return std::make_unique<ScriptedBackend>(replies_, requests_, mutex_);
    };
  }

  std::string submit(const std::string& extra_json) {
    auto outcome = service_->submit_json(
        R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "objective": "run add")" +
            extra_json + "}",
        service::Caller{1000});
    EXPECT_THAT(outcome.errors, IsEmpty());
    return outcome.run_id;
  }

  // Records one at a time, as maced's one service thread makes them: tasks on several
  // checkouts record from their own threads.
  std::function<void(const std::function<void()>&)> service_thread() {
    return [this](const std::function<void()>& work) {
      std::lock_guard lock(service_thread_mutex_);
      ++service_thread_calls_;
      work();
    };
  }

  RunEnding execute(const std::string& run_id) {
    RunRecorder recorder(*service_, *store_, service_thread(), run_id);
    return execute_run(recorder, settings_, own_checkouts({{checkout_.root(), "local"}}), cancel_);
  }

  std::vector<std::string> phases(const std::string& run_id) {
    std::vector<std::string> out;
    for (const auto& call : store_->llm_calls(run_id)) out.emplace_back(to_string(call.phase));
    return out;
  }

  mace::testing::TempDir dir_;
  mace::testing::FixtureCheckout checkout_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<service::RunService> service_;
  RunSettings settings_;
  os::CancelToken cancel_;
  std::deque<llm::Reply> replies_;
  std::vector<llm::Request> requests_;
  std::mutex mutex_;
  std::mutex service_thread_mutex_;
  int service_thread_calls_ = 0;
};

TEST_F(RunExecutionTest, ADirectRunBuildsSimulatesAndRecordsEveryStep) {  // REQ-VER-13
  std::string id = submit(R"(, "backend": "direct", "coverage": true)");
  RunEnding ending = execute(id);
  EXPECT_EQ(ending.state, RunState::passed) << ending.reason;

  auto tasks = store_->tasks(id);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].build_outcome, BuildOutcome::succeeded);
  EXPECT_EQ(tasks[0].stage, TaskStage::passed);
  EXPECT_THAT(tasks[0].extra_flags, ElementsAre("-vlt_build_args=--coverage-line"));
  EXPECT_EQ(tasks[0].cache("l1d"), (std::pair<int64_t, int64_t>{8192, 4}));
  ASSERT_EQ(tasks[0].results.size(), 1u);
  EXPECT_EQ(tasks[0].results[0].verdict, Verdict::pass);
  EXPECT_EQ(checkout_.invocations("build"), 1);

  std::vector<std::string> stages;
  for (const auto& e : store_->events_after(id, 0, 0))
    if (e.kind == EventKind::task_stage) stages.push_back(std::string(to_string(*e.stage)));
  EXPECT_THAT(stages, ElementsAre("building", "running", "passed"));
  EXPECT_THAT(phases(id), IsEmpty()) << "the direct planner calls no LLM";
  // Every record went through the service thread, none around it.
  EXPECT_GT(service_thread_calls_, 5);
}

// REQ-BUD-12, REQ-FAIL-1, REQ-FAIL-10: each call is recorded with its phase; a failed
// iteration is diagnosed and the failed run gets a post-mortem.
TEST_F(RunExecutionTest, AnLlmRunRecordsEachCallAndDiagnosesItsFailure) {
  checkout_.set_control("run", "fail");
  replies_ = {ScriptedBackend::text("TASK: t1 | deps= | kind=config | build it\n"),
              ScriptedBackend::text("DIAGNOSIS: bad_trap\nFIX: look at add.S"),
              ScriptedBackend::text("ASSESSMENT: inconclusive\nEXPLANATION: e\nNEXT_STEPS: n")};
  std::string id = submit(R"(, "backend": "vertex", "budget": {"max_iterations": 1})");
  RunEnding ending = execute(id);
  // Its one iteration failed: the iteration budget is spent (REQ-BUD-3).
  EXPECT_EQ(ending.state, RunState::budget_exceeded) << ending.reason;
  EXPECT_THAT(phases(id), ElementsAre("planning", "diagnosis", "post_mortem"));
  auto diagnoses = store_->diagnoses(id);
  ASSERT_EQ(diagnoses.size(), 1u);
  EXPECT_EQ(diagnoses[0].label, "bad_trap");
  EXPECT_EQ(diagnoses[0].source, DiagnosisSource::llm);
  // REQ-FAIL-5: the diagnosis call was offered the diagnostic tools over the failed run.
  ASSERT_EQ(requests_.size(), 3u);
  ASSERT_EQ(requests_[1].tools.size(), 1u);
  EXPECT_EQ(requests_[1].tools[0].name, "diagnostics");
  EXPECT_EQ(store_->tasks(id)[0].failure_reason, FailureReason::workload_failed);
  EXPECT_NEAR(store_->find_run(id)->cost_usd, 0.03, 1e-9);
}

// REQ-EXEC-7: a run whose spec names a tool maced no longer has (its configuration changed
// since the submit) ends at once, naming it.
TEST_F(RunExecutionTest, ARunNamingAToolMacedLacksEndsInErrorNamingIt) {
  store::RunRecord run;
  run.id = "20261201-000000-000-aaaaaa";
  run.spec_json = R"({"core":"pico","workloads":["add.S"],"objective":"o","tools":["grep_logs"]})";
  run.backend = "vertex";
  store_->insert_run(run);
  replies_ = {ScriptedBackend::text("TASK: t1 | deps= | kind=config | build it\n")};
  RunEnding ending = execute(run.id);
  EXPECT_EQ(ending.state, RunState::error);
  EXPECT_THAT(ending.reason, HasSubstr("grep_logs"));
  EXPECT_EQ(checkout_.invocations(), 0);
}

// REQ-BUD-14: a rate-limited call is tried again; each attempt is recorded with its usage.
TEST_F(RunExecutionTest, ARateLimitedCallIsRetriedAndEachAttemptRecorded) {
  replies_ = {ScriptedBackend::rate_limited(),
              ScriptedBackend::text("TASK: t1 | deps= | kind=config | build it\n")};
  std::string id = submit(R"(, "backend": "vertex")");
  RunEnding ending = execute(id);
  EXPECT_EQ(ending.state, RunState::passed) << ending.reason;
  auto calls = store_->llm_calls(id);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_FALSE(calls[0].success);
  EXPECT_EQ(calls[0].error_class, LlmErrorClass::rate_limit);
  EXPECT_TRUE(calls[1].success);
}

// A cancel does not wait out a rate limit: the run ends cancelled long before the 30 s.
TEST_F(RunExecutionTest, ACancelEndsARateLimitWaitAtOnce) {
  settings_.retry.scale = 1;
  replies_ = {ScriptedBackend::rate_limited(), ScriptedBackend::rate_limited(),
              ScriptedBackend::rate_limited(), ScriptedBackend::rate_limited()};
  std::string id = submit(R"(, "backend": "vertex")");
  std::thread canceller([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel_.cancel();
  });
  const auto start = std::chrono::steady_clock::now();
  RunEnding ending = execute(id);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(ending.state, RunState::cancelled) << ending.reason;
  EXPECT_EQ(checkout_.invocations(), 0);
}

// A run holds what its level uses: it starts with one checkout, asks for a second when its
// plan has two tasks, and runs them at once, each on its own checkout.
TEST_F(RunExecutionTest, ALevelsTasksRunAtOnceOnTheCheckoutsTheRunAsksFor) {  // REQ-EXEC-2, 3
  mace::testing::FixtureCheckout second;
  checkout_.set_control("build_sleep", "1");
  second.set_control("build_sleep", "1");
  replies_ = {ScriptedBackend::text("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                                    "CACHES: b | l2=131072,4\n")};
  std::string id = submit(R"(, "backend": "vertex", "budget": {"max_iterations": 1})");
  RunRecorder recorder(*service_, *store_, service_thread(), id);
  RunEnding ending = execute_run(recorder, settings_,
                                 own_checkouts({{checkout_.root(), "local"}, {second.root(), "local"}}), cancel_);
  EXPECT_EQ(ending.state, RunState::passed) << ending.reason;
  auto tasks = store_->tasks(id);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_NE(tasks[0].checkout, tasks[1].checkout);
  // Each started before the other ended.
  EXPECT_LT(tasks[0].started_at_ms, tasks[1].finished_at_ms);
  EXPECT_LT(tasks[1].started_at_ms, tasks[0].finished_at_ms);
}

TEST_F(RunExecutionTest, ARunWithoutACheckoutIsAnErrorNotACrash) {
  std::string id = submit(R"(, "backend": "direct")");
  RunRecorder recorder(*service_, *store_, service_thread(), id);
  RunEnding ending = execute_run(recorder, settings_, own_checkouts({}), cancel_);
  EXPECT_EQ(ending.state, RunState::error);
  EXPECT_THAT(ending.reason, HasSubstr("without a checkout"));
}

}  // namespace
}  // namespace mace::run

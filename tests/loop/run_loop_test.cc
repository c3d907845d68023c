// The MACE loop over a scripted planner, a scripted executor and a clock the test moves.

#include "loop/run_loop.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "loop/direct_planner.h"
#include "loop/simulated_runner.h"

namespace mace::loop {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class ScriptedPlanner : public Planner {
 public:
  std::deque<PlannerReply> replies;
  std::vector<std::string> prompts;
  std::function<void()> during_plan;
  PlannerReply plan(const std::string& prompt) override {
    prompts.push_back(prompt);
    if (during_plan) during_plan();
    if (replies.empty()) return {false, "", 0, "script exhausted"};
    PlannerReply r = replies.front();
    if (replies.size() > 1) replies.pop_front();  // the last reply repeats
    return r;
  }

  // Triage: replies in order; none scripted is a call that failed.
  bool triages = true;
  std::deque<PlannerReply> triage_replies;
  std::vector<std::pair<TriagePhase, std::string>> triage_prompts;
  std::vector<std::string> triage_subjects;  // task ids; "" for none
  bool can_triage() const override { return triages; }
  PlannerReply triage(TriagePhase phase, const std::function<std::string(bool)>& prompt,
                      const TaskOutcome* failed) override {
    triage_prompts.emplace_back(phase, prompt(false));
    triage_subjects.push_back(failed ? failed->task_id : "");
    if (triage_replies.empty()) return {false, "", 0, "no triage scripted"};
    PlannerReply r = triage_replies.front();
    triage_replies.pop_front();
    return r;
  }
  std::size_t triage_calls(TriagePhase phase) const {
    std::size_t n = 0;
    for (const auto& [p, text] : triage_prompts) n += p == phase;
    return n;
  }
};

PlannerReply reply(const std::string& text, double cost = 0.01) { return {true, text, cost, ""}; }

// Outcomes by "iteration/task"; unlisted tasks pass with a pass verdict on "hello".
class ScriptedRunner : public testing::SimulatedRunner {
 public:
  std::map<std::string, TaskOutcome> outcomes;
  std::vector<TaskJob> jobs;  // the plan's tasks, as started
  // Narrowing rebuilds, apart: by default they fail as their task did. An outcome for
  // one is scripted as "iteration/task/<what it undoes>".
  std::vector<TaskJob> narrowing_jobs;
  std::function<void()> during_task;  // as each task starts

  ScriptedRunner() {
    outcome = [this](int iteration, const TaskJob& job) {
      std::string key = std::to_string(iteration) + "/" + job.task.id;
      auto it = job.narrowing.empty() ? outcomes.end() : outcomes.find(key + "/" + job.narrowing);
      if (it == outcomes.end()) it = outcomes.find(key);
      if (it != outcomes.end()) return it->second;
      return TaskOutcome{job.task.id, true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
    };
    on_start = [this](const TaskJob& job) {
      (job.narrowing.empty() ? jobs : narrowing_jobs).push_back(job);
      if (during_task) during_task();
    };
  }
};

TaskOutcome failed(const std::string& id, const std::string& evidence) {
  return {id, false, true, FailureReason::workload_failed, {{"hello", Verdict::fail}}, {evidence}};
}

class RecordingObserver : public LoopObserver {
 public:
  std::vector<std::string> log;
  std::vector<Diagnosis> diagnoses;
  std::vector<std::string> notes;
  std::vector<PostMortem> post_mortems;
  std::vector<std::string> narrowed;  // "<task>: <undone> -> passed|failed"
  std::vector<std::string> lost;      // "<task>: <next>"
  std::vector<std::string> waiting;   // "<task>: <why>"
  bool recovered = false;
  void task_lost(int, const TaskJob& job, const TaskOutcome&, const std::string& next) override {
    lost.push_back(job.task.id + ": " + next);
  }
  void task_waiting(int, const TaskJob& job, const std::string& why) override {
    waiting.push_back(job.task.id + ": " + why);
  }
  void diagnosed(int, const std::string&, const Diagnosis& d) override { diagnoses.push_back(d); }
  void note(const std::string& m) override { notes.push_back(m); }
  void post_mortem_made(const PostMortem& pm) override { post_mortems.push_back(pm); }
  void failures_recovered() override { recovered = true; }
  void narrowing_finished(int, const TaskJob& job, const TaskOutcome& o) override {
    narrowed.push_back(job.task.id + ": " + job.narrowing + " -> " + (o.passed ? "passed" : "failed"));
  }
  void iteration_finished(int n, bool passed, double cost, double) override {
    log.push_back("iter" + std::to_string(n) + (passed ? " passed" : " failed") +
                  " $" + std::to_string(cost).substr(0, 4));
  }
  void level_started(int n, std::size_t level, const std::vector<std::string>& ids) override {
    std::string s = "iter" + std::to_string(n) + " level" + std::to_string(level) + ":";
    for (const auto& id : ids) s += " " + id;
    log.push_back(s);
  }
};

RunSpec pico_spec() {
  RunSpec spec;
  spec.core = Core::pico;
  spec.mesh_x = 2;
  spec.workloads = {"hello", "memstress"};
  spec.objective = "Double the L1D";
  return spec;
}

class RunLoopTest : public ::testing::Test {
 protected:
  RunLoopTest() {
    defaults = {{"l1i", {16384, 4}}, {"l1d", {8192, 4}}, {"l15", {8192, 4}}, {"l2", {65536, 4}}};
  }
  LoopResult run(std::size_t checkouts = 1) {
    runner.pool = checkouts;
    LoopInputs in{.spec = spec, .infrastructure_retries = retries, .expected = expected,
                  .default_caches = defaults, .now = [this] { return now; },
                  .cancelled = [this] { return cancel; },
                  .checksum_problems = [this] { return checksum_problems; }};
    return run_loop(in, planner, runner, observer);
  }

  RunSpec spec = pico_spec();
  CacheGeometry defaults;
  Clock::time_point now{};
  bool cancel = false;
  std::vector<std::string> checksum_problems;
  int retries = 3;
  std::function<ExpectedTime(const TaskJob&)> expected;
  ScriptedPlanner planner;
  ScriptedRunner runner;
  RecordingObserver observer;
};

TEST_F(RunLoopTest, APlanThatPassesFirstTimeEndsThePassed) {  // REQ-VER-10
  planner.replies = {reply("TASK: t1 | deps= | kind=config | build it\n")};
  auto result = run();
  EXPECT_EQ(result.state, RunState::passed);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_EQ(planner.prompts.size(), 1u);
}

TEST_F(RunLoopTest, ThePromptStatesCoreObjectiveMeshAndEveryWorkload) {  // REQ-PLAN-5
  planner.replies = {reply("TASK: t1 | deps= | kind=config | build it\n")};
  run();
  ASSERT_EQ(planner.prompts.size(), 1u);
  EXPECT_THAT(planner.prompts[0], HasSubstr("pico"));
  EXPECT_THAT(planner.prompts[0], HasSubstr("Double the L1D"));
  EXPECT_THAT(planner.prompts[0], HasSubstr("2x1"));
  EXPECT_THAT(planner.prompts[0], HasSubstr("memstress"));
}

TEST_F(RunLoopTest, AChecksumMismatchEndsTheRunBeforeAnyPlan) {  // REQ-BUD-7, REQ-BUD-8
  checksum_problems = {"hello.c: changed"};
  auto result = run();
  EXPECT_EQ(result.state, RunState::checksum_mismatch);
  EXPECT_THAT(result.reason, HasSubstr("hello.c"));
  EXPECT_TRUE(planner.prompts.empty());
  EXPECT_TRUE(runner.starts.empty());
  EXPECT_EQ(result.iterations, 0);
}

TEST_F(RunLoopTest, AFailedIterationIsReplannedWithItsEvidenceThenPasses) {  // REQ-FAIL-13
  // The second plan changes the configuration: repeating the failed one would be rejected.
  planner.replies = {reply("TASK: t1 | deps= | kind=config | build it\n"),
                     reply("TASK: t1 | deps= | kind=config | bigger\nCACHES: t1 | l1d=16384,4\n")};
  runner.outcomes["1/t1"] = failed("t1", "%Error: l15.v:42:7: syntax error");
  auto result = run();
  EXPECT_EQ(result.state, RunState::passed);
  EXPECT_EQ(result.iterations, 2);
  ASSERT_EQ(planner.prompts.size(), 2u);
  EXPECT_THAT(planner.prompts[0], Not(HasSubstr("l15.v:42:7")));
  EXPECT_THAT(planner.prompts[1], HasSubstr("l15.v:42:7"));
}

TEST_F(RunLoopTest, NoUsablePlanAfterTwoReasksIsPlanningFailed) {  // REQ-PLAN-13, REQ-PLAN-16
  planner.replies = {reply("I would rather not.\n")};
  auto result = run();
  EXPECT_EQ(result.state, RunState::planning_failed);
  EXPECT_EQ(planner.prompts.size(), 3u);
  EXPECT_TRUE(runner.starts.empty());
}

TEST_F(RunLoopTest, AnUnusablePlanIsSentBackWithTheReasons) {  // REQ-PLAN-16
  planner.replies = {reply("TASK: a | deps=b | kind=config | x\nTASK: b | deps=a | kind=config | y\n"),
                     reply("TASK: a | deps= | kind=config | x\n")};
  auto result = run();
  EXPECT_EQ(result.state, RunState::passed);
  ASSERT_EQ(planner.prompts.size(), 2u);
  EXPECT_THAT(planner.prompts[1], HasSubstr("cycle"));
}

TEST_F(RunLoopTest, ARejectedPlanStillRunsAsItStandsAfterTwoReasks) {  // REQ-PLAN-16
  spec.core = Core::ariane;  // the way rule rejects an L1D with more ways than the L1.5
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\nCACHES: t1 | l1d=8192,8\n")};
  auto result = run();
  EXPECT_EQ(planner.prompts.size(), 3u);
  EXPECT_THAT(planner.prompts[1], HasSubstr("l1d"));
  EXPECT_EQ(runner.jobs.size(), 1u);
  EXPECT_EQ(result.state, RunState::passed);
}

TEST_F(RunLoopTest, APlannerWithNoReplyEndsTheRunInError) {  // REQ-BUD-14
  planner.replies = {{false, "", 0, "rate limited after 30, 60 and 120 s"}};
  auto result = run();
  EXPECT_EQ(result.state, RunState::error);
  EXPECT_THAT(result.reason, HasSubstr("rate limited"));
}

TEST_F(RunLoopTest, TheIterationLimitEndsTheRunAsBudgetExceeded) {  // REQ-BUD-4
  spec.budget.max_iterations = 2;
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\n")};
  runner.outcomes["1/t1"] = failed("t1", "e1");
  runner.outcomes["2/t1"] = failed("t1", "e2");
  auto result = run();
  EXPECT_EQ(result.state, RunState::budget_exceeded);
  EXPECT_EQ(result.iterations, 2);
}

TEST_F(RunLoopTest, SpendingTheDollarBudgetEndsTheRunBeforeTheNextIteration) {  // REQ-BUD-3, REQ-BUD-5
  spec.budget.max_usd = 1.0;
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\n", 1.5)};
  runner.outcomes["1/t1"] = failed("t1", "e");
  auto result = run();
  EXPECT_EQ(result.state, RunState::budget_exceeded);
  EXPECT_THAT(result.reason, HasSubstr("cost"));
  EXPECT_EQ(result.iterations, 1);
  EXPECT_DOUBLE_EQ(result.cost_usd, 1.5);
}

TEST_F(RunLoopTest, RunningOutOfTimeEndsTheRunAndCapsEveryBuild) {  // REQ-BUD-3, REQ-BUD-11
  spec.budget.max_wall_s = 600;
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\n")};
  runner.outcomes["1/t1"] = failed("t1", "e");
  runner.during_task = [this] { now += std::chrono::seconds(700); };
  auto result = run();
  EXPECT_EQ(result.state, RunState::budget_exceeded);
  EXPECT_THAT(result.reason, HasSubstr("wall-clock"));
  ASSERT_EQ(runner.jobs.size(), 1u);
  EXPECT_EQ(runner.jobs[0].build_limit, std::chrono::seconds(600));
  EXPECT_EQ(runner.jobs[0].run_limit, std::chrono::seconds(600));
}

TEST_F(RunLoopTest, APlanRepeatingAFailedConfigurationIsSentBack) {  // REQ-PLAN-15
  planner.replies = {reply("TASK: t1 | deps= | kind=config | build it\n")};
  runner.outcomes["1/t1"] = failed("t1", "e");
  spec.budget.max_iterations = 2;
  run();
  // Iteration 2 asks three times: the repeat is rejected twice, then runs as it stands.
  ASSERT_EQ(planner.prompts.size(), 4u);
  EXPECT_THAT(planner.prompts[2], HasSubstr("failed"));
}

// REQ-VER-14: the observer hears the iteration's result once its tasks are recorded.
TEST_F(RunLoopTest, LevelsRunInOrderAndStopAfterAFailedLevel) {  // REQ-EXEC-1, REQ-VER-9
  spec.budget.max_iterations = 1;
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps=a | kind=workload | y\n"
                           "CACHES: b | l1d=16384,4\n")};
  runner.outcomes["1/a"] = failed("a", "e");
  run();
  EXPECT_THAT(observer.log, ElementsAre("iter1 level0: a", "iter1 failed $0.01"));
  EXPECT_EQ(runner.jobs.size(), 1u);
}

TEST_F(RunLoopTest, ALevelRunsOneTaskPerCheckoutAtATime) {  // REQ-EXEC-2, REQ-EXEC-3
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                           "TASK: c | deps= | kind=config | z\nCACHES: a | l1d=16384,4\n"
                           "CACHES: b | l2=131072,4\n")};
  runner.duration = [](const TaskJob& job) { return job.task.id == "a" ? 3.0 : 1.0; };
  run(2);
  // a and b at once; c as soon as b's checkout is free, while a still runs.
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "b@1", "c@1"));
  EXPECT_EQ(runner.makespan(), 3.0);
}

TEST_F(RunLoopTest, DispatchBatchesIsTheSeedsLiteralForm) {  // REQ-EXEC-2
  spec.dispatch = Dispatch::batches;
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                           "TASK: c | deps= | kind=config | z\nCACHES: a | l1d=16384,4\n"
                           "CACHES: b | l2=131072,4\n")};
  runner.duration = [](const TaskJob& job) { return job.task.id == "a" ? 3.0 : 1.0; };
  run(2);
  // The i-th task of a batch on the i-th checkout; c waits for the whole first batch.
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "b@1", "c@0"));
  EXPECT_EQ(runner.makespan(), 4.0);
}

TEST_F(RunLoopTest, ATaskBuildsWithTheDefinesOfEveryTaskItDependsOn) {  // REQ-EXEC-5
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps=a | kind=workload | y\n"
                           "CONFIG_RTL: a | PITON_A\nCONFIG_RTL: b | PITON_B\nCACHES: b | l1d=16384,4\n")};
  run();
  ASSERT_EQ(runner.jobs.size(), 2u);
  EXPECT_THAT(runner.jobs[1].defines, ::testing::IsSupersetOf({"PITON_A", "PITON_B"}));
  EXPECT_EQ(runner.jobs[1].caches.at("l1d").size, 16384);
  EXPECT_EQ(runner.jobs[1].caches.at("l2").size, 65536);
}

TEST_F(RunLoopTest, ConfigTasksWithTheSameFlagsRunAsTheLastOneAlone) {  // REQ-PLAN-17
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps=a | kind=workload | y\n")};
  run();
  ASSERT_EQ(runner.jobs.size(), 1u);
  EXPECT_EQ(runner.jobs[0].task.id, "b");
}

TEST_F(RunLoopTest, CancellingStopsBeforeTheNextLevel) {
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps=a | kind=workload | y\n"
                           "CACHES: b | l1d=16384,4\n")};
  runner.during_task = [this] { cancel = true; };
  auto result = run();
  EXPECT_EQ(result.state, RunState::cancelled);
  EXPECT_EQ(runner.jobs.size(), 1u);
}

TEST_F(RunLoopTest, TheQueueStartsALevelsLongestExpectedTaskFirstAndSaysSo) {  // REQ-EXEC-2
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                           "CACHES: a | l1d=16384,4\nCACHES: b | l2=131072,4\n")};
  expected = [](const TaskJob& job) {
    return ExpectedTime{.seconds = job.task.id == "b" ? 400.0 : 50.0, .model = job.task.id,
                        .basis = job.task.id == "b" ? "its last build" : "pico 2x1 builds"};
  };
  run(1);
  EXPECT_THAT(runner.starts, ElementsAre("b@0", "a@0"));
  EXPECT_THAT(observer.notes, ::testing::Contains("level 0, longest expected first: b (about 7 min, its "
                                                  "last build), a (about 50 s, pico 2x1 builds)"));
  EXPECT_THAT(observer.waiting, ::testing::Contains(HasSubstr("a: waiting for a free checkout")));
}

TEST_F(RunLoopTest, ARunHoldsWhatItsLevelsNeedAndOneCheckoutBetweenIterations) {
  spec.budget.max_iterations = 2;
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                           "CACHES: a | l1d=16384,4\nCONFIG_RTL: a | PITON_A\nCACHES: b | l2=131072,4\n"),
                     reply("TASK: d | deps= | kind=config | w\nCACHES: d | l2=32768,4\n")};
  runner.outcomes["1/a"] = failed("a", "FAIL");
  runner.outcomes["1/b"] = failed("b", "FAIL");
  EXPECT_EQ(run(4).state, RunState::passed);
  // Two tasks, then narrowing a's two changes (each undone, then both), then one task.
  ASSERT_FALSE(runner.wants.empty());
  EXPECT_EQ(runner.wants.front(), 2u);
  EXPECT_EQ(*std::max_element(runner.wants.begin(), runner.wants.end()), 3u);
  EXPECT_EQ(runner.wants.back(), 1u);
  EXPECT_EQ(runner.checkouts().size(), 1u) << "what is left after the last level";
}

// A node lost under a task is the infrastructure's doing: the task runs again on another
// checkout, and the iteration, the diagnosis and the budget never hear of it.
TEST_F(RunLoopTest, ANodeLostMidRunCostsARetryNotTheRun) {
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\n")};
  runner.on_start = [this](const TaskJob& job) {
    if (job.slot == 0) runner.down.insert(0);
  };
  auto result = run(2);
  EXPECT_EQ(result.state, RunState::passed);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_THAT(runner.starts, ElementsAre("t1@0", "t1@1"));
  ASSERT_EQ(observer.lost.size(), 1u);
  EXPECT_THAT(observer.lost[0], HasSubstr("run again on another checkout"));
  EXPECT_TRUE(observer.diagnoses.empty());
  EXPECT_TRUE(observer.narrowed.empty());
  EXPECT_EQ(planner.triage_calls(TriagePhase::diagnosis), 0u);
}

TEST_F(RunLoopTest, WhenTheInfrastructureLeavesNothingTheRunEndsNamingItNotTheDesign) {
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\n")};
  runner.on_start = [this](const TaskJob& job) { runner.down.insert(job.slot); };
  retries = 5;
  auto result = run(2);  // both nodes fail under it: no checkout is left
  EXPECT_EQ(result.state, RunState::error);
  EXPECT_THAT(result.reason, HasSubstr("the infrastructure failed, not the design"));
  EXPECT_EQ(result.iterations, 0) << "the iteration is not counted";
  EXPECT_TRUE(observer.diagnoses.empty());
  EXPECT_EQ(planner.triage_calls(TriagePhase::diagnosis), 0u);
  EXPECT_EQ(planner.triage_calls(TriagePhase::post_mortem), 0u);

  retries = 1;
  runner = ScriptedRunner();
  runner.on_start = [this](const TaskJob& job) { runner.down.insert(job.slot); };
  result = run(3);  // lost twice with one retry allowed
  EXPECT_EQ(result.state, RunState::error);
  EXPECT_THAT(result.reason, HasSubstr("task t1 was lost to the infrastructure 2 times"));
  EXPECT_THAT(result.reason, HasSubstr("NODE_FAIL"));
}

// A cancel ends the planner's rate-limit wait, so its call comes back without a reply: the
// run was stopped, not broken.
TEST_F(RunLoopTest, APlannerCallCutShortByACancelEndsCancelled) {
  planner.replies = {{false, "", 0, "rate limited; the wait was cancelled"}};
  planner.during_plan = [this] { cancel = true; };
  EXPECT_EQ(run().state, RunState::cancelled);
  planner.during_plan = nullptr;
  cancel = false;
  auto result = run();
  EXPECT_EQ(result.state, RunState::error);
  EXPECT_THAT(result.reason, ::testing::HasSubstr("the planner gave no reply"));
}

TEST_F(RunLoopTest, TheDirectPlannerBuildsTheSpecsMeshWithDefaults) {
  DirectPlanner direct(spec);
  LoopInputs in{.spec = spec, .default_caches = defaults};
  auto result = run_loop(in, direct, runner, observer);
  EXPECT_EQ(result.state, RunState::passed);
  ASSERT_EQ(runner.jobs.size(), 1u);
  EXPECT_EQ(runner.jobs[0].task.kind, TaskKind::config);
  EXPECT_EQ(runner.jobs[0].caches, defaults);
}

TEST_F(RunLoopTest, TheDirectPlannerNeverRunsAFailedIterationAgain) {
  DirectPlanner direct(spec);
  spec.budget.max_iterations = 10;
  runner.outcomes["1/build"] = failed("build", "hello: verdict fail (4498250 : Simulation -> FAIL(HIT BAD TRAP))");
  LoopInputs in{.spec = spec, .default_caches = defaults};
  auto result = run_loop(in, direct, runner, observer);
  EXPECT_EQ(result.state, RunState::failed);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_EQ(runner.jobs.size(), 1u);
  EXPECT_THAT(result.reason, HasSubstr("iteration 1 failed and the direct planner would plan it again unchanged"));
  EXPECT_THAT(result.reason, HasSubstr("task build failed (workload_failed): hello: verdict fail"));
}

TEST_F(RunLoopTest, AnLlmPlannerIsAskedAgainAfterAFailure) {  // REQ-PLAN-16: it may learn
  spec.budget.max_iterations = 3;
  planner.replies = {reply("TASK: t1 | deps= | kind=config | build it\n")};
  runner.outcomes["1/t1"] = failed("t1", "FAIL");
  runner.outcomes["2/t1"] = failed("t1", "FAIL");
  runner.outcomes["3/t1"] = failed("t1", "FAIL");
  auto result = run();
  EXPECT_EQ(result.state, RunState::budget_exceeded);
  EXPECT_EQ(result.iterations, 3);
}

TEST_F(RunLoopTest, AWorkloadNoPlanCanRunEndsTheRunAtOnceWithItsCause) {
  spec.budget.max_iterations = 10;
  planner.replies = {reply("TASK: t1 | deps= | kind=config | build it\n"
                           "TASK: t2 | deps=t1 | kind=config | then this\nCACHES: t2 | l1d=16384,4\n")};
  TaskOutcome missing{"t1", false, true, FailureReason::workload_not_found, {{"helo", Verdict::none}},
                      {"workload 'helo' for core pico: no such program (looked for /w/helo.c)"}};
  runner.outcomes["1/t1"] = missing;
  auto result = run();
  EXPECT_EQ(result.state, RunState::failed);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_THAT(result.reason, HasSubstr("no such program (looked for /w/helo.c)"));
  EXPECT_THAT(result.reason, HasSubstr("no plan can change this"));
  EXPECT_EQ(runner.jobs.size(), 1u) << "the next level was not run";
  EXPECT_TRUE(runner.narrowing_jobs.empty()) << "nothing to narrow";
  EXPECT_EQ(planner.triage_calls(TriagePhase::diagnosis), 0u);
  EXPECT_EQ(planner.triage_calls(TriagePhase::post_mortem), 0u) << "the cause is known";
}

TEST_F(RunLoopTest, EachWorkloadThatCannotRunIsACauseNoPlanChanges) {
  for (FailureReason reason : {FailureReason::workload_not_built, FailureReason::sims_option_rejected}) {
    EXPECT_TRUE(no_replan_can_change(reason)) << reason;
    EXPECT_TRUE(says_nothing_about_the_design(reason)) << reason;
  }
  for (FailureReason reason : {FailureReason::workload_failed, FailureReason::build_failed, FailureReason::timeout})
    EXPECT_FALSE(no_replan_can_change(reason)) << reason;
}

TEST(DefineCandidates, UpperSnakeWordsOfTheObjective) {  // REQ-PLAN-15
  EXPECT_THAT(define_candidates("Enable PITON_EXTRA_MEMS (and PITON_EXTRA_MEMS) on 2x2; "
                                "keep L1D, use Mixed_Case not_this 9_NO"),
              ElementsAre("PITON_EXTRA_MEMS"));
  EXPECT_THAT(define_candidates(""), ElementsAre());
}

TEST_F(RunLoopTest, EveryBuildingTaskGetsTheDefinesTheObjectiveNeeds) {  // REQ-PLAN-15
  planner.replies = {reply("TASK: a | deps= | kind=config | x\n")};
  LoopInputs in{.spec = spec, .default_caches = defaults,
                .objective_defines = {"PITON_EXTRA_MEMS"}};
  run_loop(in, planner, runner, observer);
  ASSERT_EQ(runner.jobs.size(), 1u);
  EXPECT_THAT(runner.jobs[0].defines, ::testing::Contains("PITON_EXTRA_MEMS"));
}


// --- Failure analysis -------------------------------------------------------------------

// REQ-FAIL-12: undoing one change at a time finds the one that breaks the design, with no
// LLM call; REQ-PLAN-15: a later plan making that change again is sent back.
TEST_F(RunLoopTest, NarrowingFindsTheBreakingChangeWithoutAnLlmCall) {
  planner.replies = {
      reply("TASK: t1 | deps= | kind=config | x\nCACHES: t1 | l1d=16384,4\nCONFIG_RTL: t1 | PITON_A\n"),
      reply("TASK: t1 | deps= | kind=config | y\nCACHES: t1 | l1d=32768,4\nCONFIG_RTL: t1 | PITON_A\n"),
      reply("TASK: t1 | deps= | kind=config | z\nCACHES: t1 | l1d=32768,4\n")};
  runner.outcomes["1/t1"] = failed("t1", "FAIL(HIT BAD TRAP)");
  runner.outcomes["1/t1/undo define PITON_A"] = {"t1", true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
  auto result = run();
  EXPECT_EQ(result.state, RunState::passed);
  EXPECT_THAT(observer.narrowed,
              ElementsAre("t1: undo l1d 16384 B 4-way (default 8192 B 4-way) -> failed",
                          "t1: undo define PITON_A -> passed"))
      << "the all-together rebuild is not needed once one change explains the failure";
  ASSERT_EQ(observer.diagnoses.size(), 1u);
  EXPECT_EQ(observer.diagnoses[0].source, DiagnosisSource::narrowing);
  EXPECT_EQ(observer.diagnoses[0].label, "define_breaks_design");
  EXPECT_THAT(observer.diagnoses[0].fix, HasSubstr("PITON_A"));
  EXPECT_EQ(planner.triage_calls(TriagePhase::diagnosis), 0u);
  ASSERT_EQ(planner.prompts.size(), 3u) << "the plan with PITON_A again was sent back";
  EXPECT_THAT(planner.prompts[2], HasSubstr("narrowing showed breaks the design"));
  EXPECT_THAT(planner.prompts[1], HasSubstr("define_breaks_design"));  // REQ-PLAN-14
  EXPECT_TRUE(observer.recovered);  // REQ-FAIL-9
}

// REQ-FAIL-12: one change at a time, then all together; when nothing passes, the LLM is
// told what narrowing tried.
TEST_F(RunLoopTest, NarrowingThatExplainsNothingTriesAllTogetherThenAsksTheLlm) {
  spec.budget.max_iterations = 1;
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\nCACHES: t1 | l2=131072,4\n"
                           "CONFIG_RTL: t1 | PITON_A\n")};
  runner.outcomes["1/t1"] = failed("t1", "FAIL");
  planner.triage_replies = {reply("DIAGNOSIS: core_bug\nFIX: report it")};
  run(2);
  EXPECT_EQ(observer.narrowed.size(), 3u);
  ASSERT_EQ(runner.narrowing_jobs.size(), 3u);
  EXPECT_EQ(runner.narrowing_jobs[0].slot, 0u) << "rebuilds use every checkout the run may hold";
  EXPECT_EQ(runner.narrowing_jobs[1].slot, 1u);
  EXPECT_TRUE(runner.narrowing_jobs[2].defines.empty());
  EXPECT_EQ(runner.narrowing_jobs[2].caches, defaults);
  ASSERT_EQ(planner.triage_calls(TriagePhase::diagnosis), 1u);
  EXPECT_THAT(planner.triage_prompts[0].second, HasSubstr("undo define PITON_A: failed"));
  ASSERT_EQ(observer.diagnoses.size(), 1u);
  EXPECT_EQ(observer.diagnoses[0].label, "core_bug");
  EXPECT_EQ(observer.diagnoses[0].source, DiagnosisSource::llm);
}

TEST_F(RunLoopTest, NarrowingDoesNotStartWhenTheRunsTimeIsUp) {  // REQ-FAIL-12, REQ-BUD-11
  spec.budget.max_wall_s = 100;
  planner.replies = {reply("TASK: t1 | deps= | kind=config | x\nCACHES: t1 | l2=131072,4\n")};
  runner.outcomes["1/t1"] = failed("t1", "FAIL");
  runner.during_task = [this] { now += std::chrono::seconds(200); };
  auto result = run();
  EXPECT_EQ(result.state, RunState::budget_exceeded);
  EXPECT_TRUE(runner.narrowing_jobs.empty());
}

// REQ-FAIL-1, REQ-FAIL-2, REQ-FAIL-8, REQ-PLAN-14: one diagnosis call about the first failed
// task; its label and fix reach every later planning prompt.
TEST_F(RunLoopTest, TheFirstFailedTaskIsDiagnosedAndTheDiagnosisReachesLaterPrompts) {
  planner.replies = {reply("TASK: a | deps= | kind=config | x\nTASK: b | deps= | kind=config | y\n"
                           "CACHES: b | l2=131072,4\n"),
                     reply("TASK: c | deps= | kind=config | z\nCACHES: c | l1d=16384,4\n")};
  runner.outcomes["1/a"] = failed("a", "4498250 : Simulation -> FAIL(HIT BAD TRAP)");
  runner.outcomes["1/b"] = failed("b", "other");
  planner.triage_replies = {reply("DIAGNOSIS: bad_trap_in_hello\nFIX: use a bigger l1d", 0.5)};
  auto result = run(2);
  EXPECT_EQ(result.state, RunState::passed);
  ASSERT_EQ(planner.triage_calls(TriagePhase::diagnosis), 1u);
  const std::string& prompt = planner.triage_prompts[0].second;
  EXPECT_THAT(prompt, HasSubstr("id: a"));
  EXPECT_THAT(prompt, HasSubstr("FAIL(HIT BAD TRAP)"));
  EXPECT_EQ(planner.triage_subjects[0], "a");
  EXPECT_THAT(planner.prompts[1], HasSubstr("bad_trap_in_hello"));
  EXPECT_THAT(planner.prompts[1], HasSubstr("use a bigger l1d"));
  EXPECT_NEAR(result.cost_usd, 0.52, 1e-9) << "triage cost counts (REQ-BUD-5)";
}

TEST_F(RunLoopTest, AReplyWithoutADiagnosisLineIsRecordedUnknownAndTheRunGoesOn) {  // REQ-FAIL-4
  planner.replies = {reply("TASK: a | deps= | kind=config | x\n"),
                     reply("TASK: a | deps= | kind=config | x\nCACHES: a | l2=131072,4\n")};
  runner.outcomes["1/a"] = failed("a", "FAIL");
  planner.triage_replies = {reply("The L2 is probably too small.")};
  auto result = run();
  EXPECT_EQ(result.state, RunState::passed);
  ASSERT_EQ(observer.diagnoses.size(), 1u);
  EXPECT_EQ(observer.diagnoses[0].label, "unknown");
  EXPECT_EQ(observer.diagnoses[0].fix, "retry with more context");
}

TEST_F(RunLoopTest, AUnitTestPinMismatchIsDiagnosedWithoutACall) {  // REQ-FAIL-3
  spec.budget.max_iterations = 1;
  planner.replies = {reply("TASK: ut | deps= | kind=unit_test | piton/design/a.v\n")};
  TaskOutcome o{"ut", false, false, FailureReason::build_failed, {}, {"%Error-PINNOTFOUND: tb.v:4: Pin not found"}};
  o.build_id = "ut";
  runner.outcomes["1/ut"] = o;
  run();
  ASSERT_EQ(observer.diagnoses.size(), 1u);
  EXPECT_EQ(observer.diagnoses[0].label, "testbench_mismatch");
  EXPECT_EQ(planner.triage_calls(TriagePhase::diagnosis), 0u);
}

// REQ-FAIL-10: a run that ends budget_exceeded after an iteration gets a post-mortem; its
// cost counts but the status stays.
TEST_F(RunLoopTest, ABudgetExceededRunGetsAPostMortemThatDoesNotChangeItsStatus) {
  spec.budget.max_iterations = 1;
  planner.replies = {reply("TASK: a | deps= | kind=config | x\n")};
  runner.outcomes["1/a"] = failed("a", "FAIL");
  planner.triage_replies = {reply("DIAGNOSIS: x\nFIX: y"),
                            reply("ASSESSMENT: inconclusive\nEXPLANATION: e\nNEXT_STEPS: n", 0.25)};
  auto result = run();
  EXPECT_EQ(result.state, RunState::budget_exceeded);
  ASSERT_EQ(planner.triage_calls(TriagePhase::post_mortem), 1u);
  ASSERT_EQ(observer.post_mortems.size(), 1u);
  EXPECT_EQ(observer.post_mortems[0], (PostMortem{"inconclusive", "e", "n"}));
  EXPECT_NEAR(result.cost_usd, 0.01 + 0.01 + 0.25, 1e-9);
  EXPECT_FALSE(observer.recovered);
}

TEST_F(RunLoopTest, APostMortemWithoutAssessmentIsDiscarded) {  // REQ-FAIL-11
  spec.budget.max_iterations = 1;
  planner.replies = {reply("TASK: a | deps= | kind=config | x\n")};
  runner.outcomes["1/a"] = failed("a", "FAIL");
  planner.triage_replies = {reply("DIAGNOSIS: x"), reply("It went badly.")};
  auto result = run();
  EXPECT_EQ(result.state, RunState::budget_exceeded);
  EXPECT_TRUE(observer.post_mortems.empty());
  EXPECT_THAT(observer.notes, ::testing::Contains(HasSubstr("no assessment")));
}

TEST_F(RunLoopTest, NoPostMortemForPassedOrPlanningFailedRuns) {  // REQ-FAIL-10
  planner.replies = {reply("TASK: a | deps= | kind=config | x\n")};
  run();
  EXPECT_EQ(planner.triage_calls(TriagePhase::post_mortem), 0u);
  planner.replies = {reply("nothing useful")};
  planner.prompts.clear();
  EXPECT_EQ(run().state, RunState::planning_failed);
  EXPECT_EQ(planner.triage_calls(TriagePhase::post_mortem), 0u);
}

// The direct planner has no LLM: narrowing alone, then `unknown`, and no post-mortem.
TEST_F(RunLoopTest, WithoutAnLlmAFailureIsRecordedUnknownAndNoPostMortemIsAsked) {
  spec.budget.max_iterations = 1;
  planner.triages = false;
  planner.replies = {reply("TASK: a | deps= | kind=config | x\n")};
  runner.outcomes["1/a"] = failed("a", "FAIL");
  EXPECT_EQ(run().state, RunState::budget_exceeded);
  EXPECT_TRUE(planner.triage_prompts.empty());
  ASSERT_EQ(observer.diagnoses.size(), 1u);
  EXPECT_EQ(observer.diagnoses[0].source, DiagnosisSource::fallback);
}

// REQ-EXEC-18: no prompt call for config or workload tasks unless task prompts are on and
// the fast path is off; REQ-BUD-5: a task's own LLM cost counts.
TEST_F(RunLoopTest, TaskPromptsAreAskedForOnlyWithTheFastPathOff) {
  planner.replies = {reply("TASK: a | deps= | kind=config | x\n")};
  spec.options.task_prompts = true;
  run();
  ASSERT_EQ(runner.jobs.size(), 1u);
  EXPECT_FALSE(runner.jobs[0].prompt);
  spec.options.fast_path = false;
  TaskOutcome passed_with_cost{"a", true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
  passed_with_cost.llm_cost_usd = 0.5;
  runner.outcomes["1/a"] = passed_with_cost;
  auto result = run();
  ASSERT_EQ(runner.jobs.size(), 2u);
  EXPECT_TRUE(runner.jobs[1].prompt);
  EXPECT_NEAR(result.cost_usd, 0.51, 1e-9);
}

// --- RTL edits --------------------------------------------------------------------------

RtlEdits edit_of(const std::string& path, const std::string& content) {
  RtlEdits e;
  e.files.push_back({path, content});
  return e;
}

// REQ-EXEC-15: a task builds on the edits of every rtl task it depends on.
TEST_F(RunLoopTest, ATaskBuildsOnTheEditsOfTheRtlTasksItDependsOn) {
  spec.options.rtl_edits = true;
  planner.replies = {reply("TASK: r | deps= | kind=rtl | widen the bus\n"
                           "TASK: t | deps=r | kind=workload | run it\nCACHES: t | l1d=16384,4\n")};
  TaskOutcome r{"r", true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
  r.applied_edits = edit_of("piton/design/a.v", "new a");
  runner.outcomes["1/r"] = r;
  EXPECT_EQ(run().state, RunState::passed);
  ASSERT_EQ(runner.jobs.size(), 2u);
  EXPECT_TRUE(runner.jobs[0].edits.empty());
  EXPECT_EQ(runner.jobs[1].edits, edit_of("piton/design/a.v", "new a"));
}

// A build that carried edits of its own (a fault check's source fault) and failed would be
// built again from those very edits: a planner that plans alike stops after it too.
TEST_F(RunLoopTest, APlannerThatPlansAlikeStopsAfterAFailedBuildThatCarriedEdits) {
  DirectPlanner direct(spec);
  spec.budget.max_iterations = 10;
  TaskOutcome faulted = failed("build", "hello: verdict fail (4498250 : Simulation -> FAIL(HIT BAD TRAP))");
  faulted.applied_edits = edit_of("piton/design/chip/tile/pico/rtl/picorv32.v", "faulted");
  runner.outcomes["1/build"] = faulted;
  LoopInputs in{.spec = spec, .default_caches = defaults};
  auto result = run_loop(in, direct, runner, observer);
  EXPECT_EQ(result.state, RunState::failed);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_EQ(runner.jobs.size(), 1u);
  EXPECT_THAT(result.reason, HasSubstr("would plan it again unchanged"));
}

// REQ-EXEC-19: after a failed iteration the next starts from the edits of the last task
// whose build succeeded, and its prompt names the edited files.
TEST_F(RunLoopTest, TheNextIterationStartsFromTheEditsOfTheLastTaskThatBuilt) {
  spec.options.rtl_edits = true;
  planner.replies = {reply("TASK: r | deps= | kind=rtl | edit\n"),
                     reply("TASK: t | deps= | kind=config | again\nCACHES: t | l2=131072,4\n")};
  TaskOutcome r = failed("r", "FAIL");
  r.applied_edits = edit_of("piton/design/chip/tile/rtl/tile.v", "edited");
  r.edits_diff = "--- a/piton/design/chip/tile/rtl/tile.v\n+++ b/piton/design/chip/tile/rtl/tile.v\n@@ -1 +1 @@\n-old\n+edited\n";
  runner.outcomes["1/r"] = r;
  EXPECT_EQ(run().state, RunState::passed);
  ASSERT_EQ(runner.jobs.size(), 2u);
  EXPECT_EQ(runner.jobs[1].edits, edit_of("piton/design/chip/tile/rtl/tile.v", "edited"));
  ASSERT_EQ(planner.prompts.size(), 2u);
  EXPECT_THAT(planner.prompts[0], Not(HasSubstr("Files edited so far")));
  EXPECT_THAT(planner.prompts[1], HasSubstr("piton/design/chip/tile/rtl/tile.v"));
  EXPECT_THAT(planner.prompts[1], HasSubstr("  +edited")) << "the diff is quoted to re-planning";
}

// REQ-EXEC-16: an rtl task whose agent recorded no edit still builds and runs; triage is
// told so, with the agent's closing words.
TEST_F(RunLoopTest, AnRtlTaskWithoutAnEditIsReportedToTriageWithTheAgentsWords) {
  spec.options.rtl_edits = true;
  spec.budget.max_iterations = 1;
  planner.replies = {reply("TASK: r | deps= | kind=rtl | edit\n")};
  TaskOutcome r = failed("r", "FAIL");
  r.agent_recorded_no_edit = true;
  r.agent_reply = "The design already does this; no change needed.";
  runner.outcomes["1/r"] = r;
  planner.triage_replies = {reply("DIAGNOSIS: no_change\nFIX: x")};
  run();
  ASSERT_EQ(planner.triage_calls(TriagePhase::diagnosis), 1u);
  EXPECT_THAT(planner.triage_prompts[0].second, HasSubstr("recorded no edit"));
  EXPECT_THAT(planner.triage_prompts[0].second, HasSubstr("already does this"));
}

// REQ-PLAN-15: a unit_test task naming a module the checkout lacks is sent back.
TEST_F(RunLoopTest, AUnitTestOfAMissingModuleIsSentBack) {
  planner.replies = {reply("TASK: u | deps= | kind=unit_test | piton/design/nope.v: test it\n"),
                     reply("TASK: u | deps= | kind=unit_test | piton/design/a.v\n")};
  LoopInputs in{.spec = spec, .default_caches = defaults,
                .now = [this] { return now; }, .cancelled = [this] { return cancel; },
                .checksum_problems = [this] { return checksum_problems; },
                .module_exists = [](const std::string& m) { return m == "piton/design/a.v"; }};
  run_loop(in, planner, runner, observer);
  ASSERT_GE(planner.prompts.size(), 2u);
  EXPECT_THAT(planner.prompts[1], HasSubstr("piton/design/nope.v, which does not exist"));
}

// ---------------------------------------------------------------- the core generic

class GenericRunLoopTest : public RunLoopTest {
 protected:
  GenericRunLoopTest() {
    spec.core = Core::generic;
    spec.options.rtl_edits = true;
    generic_files.files = {{"piton/design/w.v", "skeleton"}, {"piton/design/Flist.g", "w.v"}};
  }
  LoopResult run_generic() {
    LoopInputs in{.spec = spec, .default_caches = defaults,
                  .now = [this] { return now; }, .cancelled = [this] { return cancel; }};
    in.unsupported_core = [this] { return unsupported; };
    in.generic_files = generic_files;
    in.generic_wrapper_path = "piton/design/w.v";
    return run_loop(in, planner, runner, observer);
  }
  std::optional<std::string> unsupported;
  RtlEdits generic_files;
};

// REQ-EXEC-20: the support check ends the run before any LLM call and any build.
TEST_F(GenericRunLoopTest, ACoreTheTileCannotHostEndsTheRunUnsupportedBeforeAnyCall) {
  unsupported = "the Generic Tile cannot host the core: harts 2: one hart";
  planner.replies = {reply("TASK: r | deps= | kind=rtl | write the wrapper\n")};
  auto result = run_generic();
  EXPECT_EQ(result.state, RunState::unsupported_core);
  EXPECT_THAT(result.reason, HasSubstr("harts 2"));
  EXPECT_TRUE(planner.prompts.empty());
  EXPECT_EQ(planner.triage_prompts.size(), 0u) << "no post-mortem call either";
  EXPECT_TRUE(runner.starts.empty());
}

// REQ-EXEC-20: every build carries the descriptor's files, the task's own edits after them.
TEST_F(GenericRunLoopTest, EveryBuildCarriesTheGeneratedFilesFirst) {
  planner.replies = {reply("TASK: r | deps= | kind=rtl | write the wrapper\n"
                           "TASK: t | deps=r | kind=workload | run it\n")};
  TaskOutcome r{"r", true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
  r.applied_edits = generic_files;
  r.applied_edits.append(edit_of("piton/design/w.v", "the wrapper"));
  runner.outcomes["1/r"] = r;
  EXPECT_EQ(run_generic().state, RunState::passed);
  ASSERT_EQ(runner.jobs.size(), 2u);
  EXPECT_EQ(runner.jobs[0].edits, generic_files);
  ASSERT_GE(runner.jobs[1].edits.files.size(), 3u);
  EXPECT_EQ(runner.jobs[1].edits.files.front().content, "skeleton");
  EXPECT_EQ(runner.jobs[1].edits.files.back().content, "the wrapper");
}

// REQ-PLAN-15: while the wrapper is a skeleton, a plan without an rtl task is sent back;
// once an iteration carries a written wrapper, a config task alone is accepted.
TEST_F(GenericRunLoopTest, APlanWithoutAnRtlTaskIsSentBackWhileTheWrapperIsASkeleton) {
  planner.replies = {reply("TASK: c | deps= | kind=config | build\n"),
                     reply("TASK: r | deps= | kind=rtl | write the wrapper\n"
                           "TASK: c | deps=r | kind=config | build\n")};
  TaskOutcome r{"r", true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
  runner.outcomes["1/r"] = r;
  EXPECT_EQ(run_generic().state, RunState::passed);
  ASSERT_EQ(planner.prompts.size(), 2u);
  EXPECT_THAT(planner.prompts[1], HasSubstr("no rtl task while the generic core's wrapper is still a skeleton"));
  EXPECT_THAT(planner.prompts[1], HasSubstr("task c: does not depend on an rtl task"));
}

TEST_F(GenericRunLoopTest, OnceAWrittenWrapperIsCarriedAConfigTaskAloneIsAccepted) {
  spec.budget.max_iterations = 2;
  planner.replies = {reply("TASK: r | deps= | kind=rtl | write the wrapper\n"),
                     reply("TASK: c | deps= | kind=config | build\nCACHES: c | l2=131072,4\n")};
  TaskOutcome r = failed("r", "FAIL");
  r.applied_edits = generic_files;
  r.applied_edits.append(edit_of("piton/design/w.v", "the wrapper"));
  runner.outcomes["1/r"] = r;
  EXPECT_EQ(run_generic().state, RunState::passed);
  ASSERT_EQ(planner.prompts.size(), 2u) << "the second plan was not sent back";
  ASSERT_EQ(runner.jobs.size(), 2u);
  EXPECT_EQ(runner.jobs[1].edits.files.back().content, "the wrapper");
}

}  // namespace
}  // namespace mace::loop

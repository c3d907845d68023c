// Replaying a recorded run's LLM calls, and comparing its decisions with the original's:
// pure functions over records, no daemon.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "replay/divergence.h"
#include "replay/replay_planner.h"

namespace mace::replay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

store::LlmCallRecord attempt(int64_t id, LlmPhase phase, int64_t iteration,
                             const std::string& task_id, const std::string& reply,
                             bool success = true, LlmErrorClass error_class = LlmErrorClass::none,
                             double cost = 0.01) {
  store::LlmCallRecord r;
  r.id = id;
  r.run_id = "R1";
  r.phase = phase;
  r.iteration = iteration;
  r.task_id = task_id;
  r.reply_text = reply;
  r.success = success;
  r.error_class = error_class;
  r.cost_usd = cost;
  r.backend = "vertex";
  r.model = "gemini-2.5-flash";
  return r;
}

TEST(GroupCalls, ARateLimitedAttemptBelongsToTheCallItsRetryAnswers) {
  std::vector<store::LlmCallRecord> attempts = {
      attempt(1, LlmPhase::planning, 1, "", "", false, LlmErrorClass::rate_limit, 0),
      attempt(2, LlmPhase::task, 1, "a", "prompt a"),  // another thread, between the retries
      attempt(3, LlmPhase::planning, 1, "", "TASK: a"),
      attempt(4, LlmPhase::diagnosis, 1, "a", "", false, LlmErrorClass::server, 0),  // a final failure
      attempt(5, LlmPhase::planning, 2, "", "TASK: b"),
  };
  auto calls = group_calls(attempts);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].attempts.size(), 2u);
  EXPECT_EQ(calls[0].reply().reply_text, "TASK: a");
  EXPECT_EQ(calls[1].describe(), "task call (iteration 1, task a)");
  EXPECT_EQ(calls[2].describe(), "diagnosis call (iteration 1, task a)");
  EXPECT_FALSE(calls[2].reply().success);
  EXPECT_EQ(calls[3].reply().reply_text, "TASK: b");
  // Once the waits run out the last rate-limited attempt is the call's reply.
  std::vector<store::LlmCallRecord> exhausted;
  for (int i = 1; i <= 5; ++i) exhausted.push_back(attempt(i, LlmPhase::planning, 1, "", "", false, LlmErrorClass::rate_limit, 0));
  EXPECT_EQ(group_calls(exhausted, 4).size(), 2u);
}

class ReplayPlannerTest : public ::testing::Test {
 protected:
  ReplayPlannerTest() {
    original_.run.id = "R1";
    original_.run.backend = "vertex";
    original_.llm_calls = {attempt(1, LlmPhase::planning, 1, "", "TASK: a", true, LlmErrorClass::none, 0.5),
                           attempt(2, LlmPhase::task, 1, "a", "prompt of a", true, LlmErrorClass::none, 0.25),
                           attempt(3, LlmPhase::diagnosis, 1, "a", "DIAGNOSIS: x"),
                           attempt(4, LlmPhase::planning, 2, "", "TASK: b")};
  }
  ReplayPlanner make() {
    return ReplayPlanner(original_, spec_, state_, "R2", [this] { return iteration_; },
                         [this](const store::LlmCallRecord& r) { recorded_.push_back(r); },
                         [] { return int64_t{99}; });
  }
  OriginalRun original_;
  RunSpec spec_;
  ReplayState state_;
  int iteration_ = 1;
  std::vector<store::LlmCallRecord> recorded_;
};

TEST_F(ReplayPlannerTest, ServesTheRecordedRepliesInOrderAndRecordsThemForTheReplay) {
  ReplayPlanner planner = make();
  EXPECT_TRUE(planner.can_triage());
  auto plan = planner.plan("any prompt");
  EXPECT_TRUE(plan.ok);
  EXPECT_EQ(plan.text, "TASK: a");
  EXPECT_EQ(plan.cost_usd, 0.5);  // REQ-BUD-5: the replay's budget sees the original's cost
  EXPECT_EQ(planner.task(1, "a").text, "prompt of a");
  loop::TaskOutcome failed;
  failed.task_id = "a";
  EXPECT_EQ(planner.triage(loop::TriagePhase::diagnosis, [](bool) { return std::string(); }, &failed).text,
            "DIAGNOSIS: x");
  iteration_ = 2;
  EXPECT_EQ(planner.plan("p").text, "TASK: b");
  EXPECT_TRUE(planner.unasked().empty());
  EXPECT_FALSE(state_.divergence());
  ASSERT_EQ(recorded_.size(), 4u);
  EXPECT_EQ(recorded_[0].run_id, "R2");
  EXPECT_EQ(recorded_[0].phase, LlmPhase::planning);
  EXPECT_EQ(recorded_[0].cost_usd, 0.5);
  EXPECT_EQ(recorded_[0].created_at_ms, 99);
  EXPECT_EQ(recorded_[1].task_id, "a");
}

TEST_F(ReplayPlannerTest, ACallTheRecordDoesNotHaveIsADivergence) {
  ReplayPlanner planner = make();
  planner.plan("p");
  // The original's next loop call is a diagnosis of a; the replay asks for a plan.
  iteration_ = 2;
  auto reply = planner.plan("p");
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(*state_.divergence(),
            "replay diverged at iteration 2: the replay makes a planning call (iteration 2) where "
            "the original made a diagnosis call (iteration 1, task a)");
  EXPECT_TRUE(state_.stopping());
  EXPECT_THAT(planner.unasked(), ElementsAre("planning call (iteration 2)", "task call (iteration 1, task a)"));
}

TEST_F(ReplayPlannerTest, ATaskCallTheOriginalsTaskDidNotMakeIsADivergence) {
  ReplayPlanner planner = make();
  EXPECT_FALSE(planner.task(1, "b").ok);
  EXPECT_EQ(*state_.divergence(),
            "replay diverged at iteration 1, task b: the task makes an LLM call the original's did not make");
}

TEST_F(ReplayPlannerTest, UntilRefusesThePlanOfTheNextIteration) {
  ReplayState until(1);
  ReplayPlanner planner(original_, spec_, until, "R2", [] { return 2; }, {}, [] { return int64_t{0}; });
  until.reach_until();
  EXPECT_FALSE(planner.plan("p").ok);
  EXPECT_FALSE(until.divergence());
}

TEST_F(ReplayPlannerTest, AnOriginalOfTheDirectPlannerIsPlannedDirectlyAgain) {
  original_.run.backend = "direct";
  original_.llm_calls.clear();
  spec_.workloads = {"hello"};
  ReplayPlanner planner = make();
  EXPECT_FALSE(planner.can_triage());
  EXPECT_TRUE(planner.plan("p").ok);
  EXPECT_FALSE(state_.divergence());
}

// ---------------------------------------------------------------- comparisons

store::TaskRecord task_record(const std::string& id, bool passed, const std::string& reason) {
  store::TaskRecord t;
  t.iteration = 2;
  t.task_id = id;
  t.kind = TaskKind::config;
  t.l1d_size = 8192;
  t.l1d_assoc = 4;
  t.rtl_defines = {"A_DEF", "B_DEF"};
  t.build_outcome = BuildOutcome::succeeded;
  t.passed = passed;
  t.failure_reason = *failure_reason_from_string(reason);
  t.results = {{0, "hello", passed ? Verdict::pass : Verdict::fail, 0, "", 1.0}};
  return t;
}

loop::TaskJob job_for(const std::string& id) {
  loop::TaskJob job;
  job.task.id = id;
  job.task.kind = TaskKind::config;
  job.caches["l1d"] = {8192, 4};
  job.defines = {"B_DEF", "A_DEF"};
  return job;
}

loop::TaskOutcome outcome(bool passed, const std::string& reason, const std::string& verdict) {
  loop::TaskOutcome o;
  o.passed = passed;
  o.built = true;
  o.build_id = "mace_x";
  o.failure_reason = *failure_reason_from_string(reason);
  o.verdicts = {{"hello", *verdict_from_string(verdict)}};
  return o;
}

TEST(CompareTask, SaysWhatDiffered) {
  auto original = task_record("t1", true, "");
  EXPECT_EQ(compare_task(&original, job_for("t1"), outcome(true, "", "pass")), "");
  EXPECT_EQ(divergence_message(2, "t1", compare_task(&original, job_for("t1"),
                                                     outcome(false, "workload_failed", "fail"))),
            "replay diverged at iteration 2, task t1: original passed, replay failed (workload_failed)");
  auto other_caches = job_for("t1");
  other_caches.caches["l1d"] = {16384, 4};
  EXPECT_EQ(compare_task(&original, other_caches, outcome(true, "", "pass")),
            "l1d: original 8192 B 4-way, replay 16384 B 4-way");
  auto other_defines = job_for("t1");
  other_defines.defines = {"A_DEF"};
  EXPECT_EQ(compare_task(&original, other_defines, outcome(true, "", "pass")),
            "original defines [A_DEF, B_DEF], replay defines [A_DEF]");
  auto reused = outcome(true, "", "pass");
  reused.reused = true;
  EXPECT_EQ(compare_task(&original, job_for("t1"), reused), "original build succeeded, replay build reused");
  auto other_verdicts = outcome(true, "", "pass");
  other_verdicts.verdicts.push_back({"memstress", Verdict::pass});
  EXPECT_EQ(compare_task(&original, job_for("t1"), other_verdicts),
            "original verdicts hello pass, replay verdicts hello pass, memstress pass");
  EXPECT_EQ(compare_task(nullptr, job_for("t9"), outcome(true, "", "pass")),
            "the original ran no such task in this iteration");
}

TEST(ComparePlan, ShowsTheFirstLineThatDiffers) {
  store::IterationRecord it;
  it.plan_text = "TASK: a | deps= | kind=config | x\nCACHES: a | l1d=16384,4\n";
  EXPECT_EQ(compare_plan(&it, it.plan_text), "");
  EXPECT_EQ(compare_plan(&it, "TASK: a | deps= | kind=config | x\nCACHES: a | l1d=32768,4\n"),
            R"(the plan came from another reply: original "CACHES: a | l1d=16384,4", replay "CACHES: a | l1d=32768,4")");
  EXPECT_EQ(compare_plan(nullptr, "x"), "the original made no plan in this iteration");
}

TEST(CompareDiagnosis, ComparesLabelFixAndSource) {
  store::DiagnosisRecord d{1, "t1", "l1d_too_small", "double it", DiagnosisSource::llm, "", false, 0};
  EXPECT_EQ(compare_diagnosis(&d, 1, "t1", {"l1d_too_small", "double it", DiagnosisSource::llm, "other evidence"}), "");
  EXPECT_EQ(compare_diagnosis(&d, 1, "t1", {"unknown", "retry with more context", DiagnosisSource::fallback, ""}),
            R"(diagnosis: original l1d_too_small (llm), fix "double it", replay unknown (fallback), fix "retry with more context")");
  EXPECT_EQ(compare_diagnosis(&d, 2, "t1", {"l1d_too_small", "double it", DiagnosisSource::llm, ""}),
            "the original's next diagnosis is of task t1 in iteration 1");
}

TEST(CompareIterationEnd, ATaskTheReplayDidNotRunOrAnotherOutcome) {
  store::IterationRecord it;
  it.passed = false;
  EXPECT_EQ(compare_iteration_end(&it, false, {"a", "b"}, {"a", "b"}), "");
  EXPECT_EQ(compare_iteration_end(&it, false, {"a", "b"}, {"a"}), "the original ran task b, the replay did not");
  EXPECT_EQ(compare_iteration_end(&it, true, {"a"}, {"a"}), "original iteration failed, replay iteration passed");
}

TEST(Conclude, EndsWithTheDivergenceTheUntilOrTheOriginalsState) {
  OriginalRun original;
  original.run.id = "R1";
  original.run.state = RunState::passed;
  loop::LoopResult passed;
  passed.state = RunState::passed;
  ReplayState clean;
  auto c = conclude(original, clean, passed, {});
  EXPECT_EQ(c.state, RunState::passed);
  EXPECT_EQ(c.reason, "replay of R1: every decision matched the original");

  loop::LoopResult failed;
  failed.state = RunState::budget_exceeded;
  failed.reason = "3 iterations without a pass";
  c = conclude(original, clean, failed, {});
  EXPECT_EQ(c.state, RunState::error);
  EXPECT_EQ(c.reason, "replay diverged at the end: original ended passed, replay ended budget_exceeded "
                      "(3 iterations without a pass)");

  c = conclude(original, clean, passed, {"post_mortem call (iteration 3)"});
  EXPECT_EQ(c.state, RunState::error);
  EXPECT_EQ(c.reason, "replay diverged at the end: the original made LLM calls the replay did not: "
                      "post_mortem call (iteration 3)");

  ReplayState diverged;
  diverged.diverge("replay diverged at iteration 2, task t1: first");
  diverged.diverge("a consequence");
  c = conclude(original, diverged, failed, {});
  EXPECT_EQ(c.state, RunState::error);
  EXPECT_EQ(c.reason, "replay diverged at iteration 2, task t1: first");

  ReplayState until(1);
  until.reach_until();
  c = conclude(original, until, failed, {"planning call (iteration 2)"});
  EXPECT_EQ(c.state, RunState::cancelled);
  EXPECT_EQ(c.reason, "replay of R1 stopped after iteration 1 as asked (--until); every decision so far matched");
}

// The observer compares as the loop reports and passes everything on.
class Recorder final : public loop::LoopObserver {
 public:
  std::vector<std::string> seen;
  void iteration_started(int i) override { seen.push_back("iteration " + std::to_string(i)); }
  void task_finished(int, const loop::TaskJob& job, const loop::TaskOutcome&) override {
    seen.push_back("task " + job.task.id);
  }
  void diagnosed(int, const std::string& id, const Diagnosis& d) override {
    seen.push_back("diagnosis " + id + " " + d.label);
  }
};

TEST(ReplayObserver, StopsAtTheFirstDifferenceAndStillRecordsEverything) {
  OriginalRun original;
  original.tasks = {task_record("t1", true, "")};
  original.diagnoses = {{2, "t1", "l1d_too_small", "", DiagnosisSource::llm, "", false, 0}};
  ReplayState state(2);
  Recorder recorder;
  ReplayObserver observer(original, state, recorder);
  observer.iteration_started(2);
  observer.task_finished(2, job_for("t1"), outcome(true, "", "pass"));
  EXPECT_FALSE(state.stopping());
  observer.diagnosed(2, "t1", {"clock_too_fast", "", DiagnosisSource::llm, ""});
  EXPECT_TRUE(state.stopping());
  EXPECT_EQ(*state.divergence(),
            "replay diverged at iteration 2, task t1: diagnosis: original l1d_too_small (llm), replay "
            "clock_too_fast (llm)");
  // --until 2: iteration 3 is not begun, so not recorded.
  observer.iteration_started(3);
  EXPECT_TRUE(state.until_reached());
  EXPECT_THAT(recorder.seen, ElementsAre("iteration 2", "task t1", "diagnosis t1 clock_too_fast"));
}

}  // namespace
}  // namespace mace::replay

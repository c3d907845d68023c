// Which task goes on which checkout, and when: the queue and the seeds' batches over a
// simulated runner whose clock the tests read, the checkouts a run asks for and gives
// back, tasks waiting for a model, and tasks lost to the infrastructure.

#include "loop/dispatcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "loop/simulated_runner.h"

namespace mace::loop {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::SimulatedRunner;

TaskJob job(const std::string& id) {
  TaskJob j;
  j.task.id = id;
  j.task.kind = TaskKind::config;
  return j;
}

std::vector<TaskJob> jobs(std::initializer_list<std::string> ids) {
  std::vector<TaskJob> out;
  for (const auto& id : ids) out.push_back(job(id));
  return out;
}

// Expected times in seconds, each its own model unless `models` says otherwise.
std::vector<ExpectedTime> expect(std::initializer_list<double> seconds,
                                 std::vector<std::string> models = {}) {
  std::vector<ExpectedTime> out;
  std::size_t i = 0;
  for (double s : seconds) {
    out.push_back({.seconds = s, .model = i < models.size() ? models[i] : "m" + std::to_string(i)});
    ++i;
  }
  return out;
}

class Calls : public DispatchCalls {
 public:
  bool cancel = false;
  std::function<void(const TaskJob&)> when_started;
  std::vector<std::string> waits;  // "task: why"
  std::vector<std::string> losses;  // "task: evidence; next"
  std::vector<std::string> ended;
  bool cancelled() override { return cancel; }
  bool prepare(TaskJob&) override { return true; }
  void waiting(const TaskJob& j, const std::string& why) override { waits.push_back(j.task.id + ": " + why); }
  void started(const TaskJob& j) override {
    if (when_started) when_started(j);
  }
  void finished(const TaskJob& j, const TaskOutcome&) override { ended.push_back(j.task.id); }
  void lost(const TaskJob& j, const TaskOutcome& o, const std::string& next) override {
    losses.push_back(j.task.id + ": " + o.lost_detail + "; " + next);
  }
};

// The durations the simulated tasks take: by task id.
std::function<double(const TaskJob&)> durations(std::map<std::string, double> by_id) {
  return [by_id](const TaskJob& j) { return by_id.at(j.task.id); };
}

TEST(Dispatcher, TheQueueStartsTheLongestFirstAndAFreeCheckoutTakesTheNext) {  // REQ-EXEC-2
  SimulatedRunner runner(2);
  runner.duration = durations({{"a", 1}, {"b", 4}, {"c", 1}, {"d", 4}});
  Calls calls;
  DispatchResult r = dispatch(runner, 1, jobs({"a", "b", "c", "d"}), expect({1, 4, 1, 4}), {}, calls);
  EXPECT_EQ(r.end, DispatchResult::End::done);
  EXPECT_THAT(runner.starts, ElementsAre("b@0", "d@1", "a@0", "c@1"));
  EXPECT_EQ(runner.makespan(), 5.0);
  ASSERT_EQ(r.finished.size(), 4u);
  for (const auto& f : r.finished) ASSERT_TRUE(f.has_value());
  EXPECT_EQ(r.finished[0]->job.task.id, "a") << "outcomes come back in the order given";
}

TEST(Dispatcher, BatchesRunInPlanOrderAndEachWaitsForItsSlowestTask) {  // REQ-EXEC-2, REQ-EXEC-3
  SimulatedRunner runner(2);
  runner.duration = durations({{"a", 1}, {"b", 4}, {"c", 1}, {"d", 4}});
  Calls calls;
  DispatchSettings settings{.mode = Dispatch::batches};
  dispatch(runner, 1, jobs({"a", "b", "c", "d"}), expect({1, 4, 1, 4}), settings, calls);
  // The i-th task of a batch on the i-th checkout; the second batch starts at 4.
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "b@1", "c@0", "d@1"));
  EXPECT_EQ(runner.ran[2].start, 4.0);
  EXPECT_EQ(runner.makespan(), 8.0);
  EXPECT_THAT(calls.waits, Contains("c: waiting for the batch under way to end"));
}

TEST(Dispatcher, NeverTwoTasksOnOneCheckoutAtOnce) {  // REQ-EXEC-2
  SimulatedRunner runner(3);
  runner.duration = [](const TaskJob& j) { return 1.0 + static_cast<double>(j.task.id[0] % 5); };
  Calls calls;
  std::vector<TaskJob> many;
  for (char c = 'a'; c <= 'p'; ++c) many.push_back(job(std::string(1, c)));
  dispatch(runner, 1, many, {}, {}, calls);
  for (std::size_t i = 0; i < runner.ran.size(); ++i) {
    for (std::size_t k = i + 1; k < runner.ran.size(); ++k) {
      if (runner.ran[i].job.slot != runner.ran[k].job.slot) continue;
      EXPECT_TRUE(runner.ran[i].end <= runner.ran[k].start || runner.ran[k].end <= runner.ran[i].start)
          << runner.ran[i].job.task.id << " and " << runner.ran[k].job.task.id;
    }
  }
  EXPECT_EQ(runner.ran.size(), 16u);
}

TEST(Dispatcher, ATaskWaitsForTheModelAnotherIsBuildingAndSaysSo) {
  SimulatedRunner runner(2);
  runner.duration = durations({{"a", 5}, {"b", 1}, {"c", 2}});
  Calls calls;
  // a and b need the same model; c another.
  dispatch(runner, 1, jobs({"a", "b", "c"}), expect({5, 5, 2}, {"mx", "mx", "my"}), {}, calls);
  // b waits for a's model instead of building it a second time on checkout 1, which goes
  // back once c is done; b takes a's checkout when a has built mx.
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "c@1", "b@0"));
  EXPECT_THAT(calls.waits, Contains("b: waiting for the model task a is building (mx)"));
  EXPECT_EQ(runner.ran[2].start, 5.0);
  EXPECT_THAT(runner.given_back, ElementsAre(1));
}

TEST(Dispatcher, AModelAlreadyInTheStoreMakesNobodyWait) {
  SimulatedRunner runner(2);
  Calls calls;
  std::vector<ExpectedTime> expected = expect({5, 5}, {"mx", "mx"});
  for (auto& e : expected) e.model_ready = true;
  dispatch(runner, 1, jobs({"a", "b"}), expected, {}, calls);
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "b@1"));
}

// a builds mx on checkout 1 while c runs on checkout 0; b needs mx. When a ends, b goes on
// a's checkout before d, which is ahead of it in the queue: without a shared store that
// is the only checkout where mx is found. With one, the queue's order holds.
TEST(Dispatcher, WithoutASharedStoreTheWaitingTaskRunsWhereItsModelWasBuilt) {
  const std::map<std::string, std::string> model = {{"a", "mx"}, {"b", "mx"}, {"c", "my"}, {"d", "mz"}};
  auto run = [&](bool shared) {
    SimulatedRunner runner(2);
    runner.duration = durations({{"a", 2}, {"b", 1}, {"c", 2.5}, {"d", 1}});
    runner.outcome = [&](int, const TaskJob& j) {
      TaskOutcome o{j.task.id, true, true, FailureReason::none, {{"hello", Verdict::pass}}, {}};
      o.build_id = model.at(j.task.id);
      return o;
    };
    Calls calls;
    DispatchSettings settings{.models_shared = shared};
    dispatch(runner, 1, jobs({"a", "b", "c", "d"}), expect({8, 7, 9, 7.5}, {"mx", "mx", "my", "mz"}),
             settings, calls);
    return runner.starts;
  };
  EXPECT_THAT(run(false), ElementsAre("c@0", "a@1", "b@1", "d@0"));
  EXPECT_THAT(run(true), ElementsAre("c@0", "a@1", "d@1", "b@0"));
}

TEST(Dispatcher, ARunAsksForWhatItCanUseUpToItsSpecAndGivesBackTheRest) {
  SimulatedRunner runner(4);
  runner.duration = durations({{"a", 4}, {"b", 1}, {"c", 1}});
  Calls calls;
  DispatchSettings settings{.max_checkouts = 2};
  dispatch(runner, 1, jobs({"a", "b", "c"}), expect({4, 1, 1}), settings, calls);
  EXPECT_EQ(runner.wants.front(), 2u) << "three tasks ready, the spec allows two";
  for (std::size_t w : runner.wants) EXPECT_LE(w, 2u);
  // Once nothing is left to start, the idle checkout goes back while a still runs.
  EXPECT_THAT(runner.given_back, ElementsAre(1));
  EXPECT_THAT(runner.checkouts(), ElementsAre(0));
  EXPECT_THAT(calls.waits, Contains("c: waiting for a free checkout (all 2 of the run's checkouts "
                                      "are busy; its spec allows 2)"));
}

TEST(Dispatcher, KeepCheckoutsGivesBackAllButTheFirst) {
  SimulatedRunner runner(3);
  runner.want_checkouts(3);
  keep_checkouts(runner, 1);
  EXPECT_THAT(runner.checkouts(), ElementsAre(0));
  EXPECT_THAT(runner.given_back, ElementsAre(2, 1));
}

TEST(Dispatcher, ATaskLostToItsNodeRunsAgainOnAnotherCheckout) {
  SimulatedRunner runner(2);
  Calls calls;
  // Node n0 fails under the first task started there: the simulated runner loses it.
  runner.on_start = [&](const TaskJob& j) {
    if (j.slot == 0) runner.down.insert(0);
  };
  DispatchResult r = dispatch(runner, 1, jobs({"a"}), {}, {}, calls);
  EXPECT_EQ(r.end, DispatchResult::End::done);
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "a@1"));
  ASSERT_TRUE(r.finished[0]);
  EXPECT_TRUE(r.finished[0]->outcome.passed) << "the loss is not its outcome";
  EXPECT_THAT(runner.given_back, Contains(0)) << "a failed node's checkout goes back";
  ASSERT_EQ(calls.losses.size(), 1u);
  EXPECT_THAT(calls.losses[0], HasSubstr("node n0 ended NODE_FAIL"));
  EXPECT_THAT(calls.losses[0], HasSubstr("run again on another checkout (retry 1 of 3)"));
  EXPECT_THAT(calls.ended, ElementsAre("a"));
}

TEST(Dispatcher, ATaskLostMoreOftenThanTheRetriesEndsTheDispatchNamingTheInfrastructure) {
  SimulatedRunner runner(3);
  runner.on_start = [&](const TaskJob& j) { runner.down.insert(j.slot); };  // every node fails
  Calls calls;
  DispatchSettings settings{.infrastructure_retries = 1};
  DispatchResult r = dispatch(runner, 1, jobs({"a"}), {}, settings, calls);
  EXPECT_EQ(r.end, DispatchResult::End::infrastructure);
  EXPECT_THAT(r.why, HasSubstr("task a was lost to the infrastructure 2 times"));
  EXPECT_THAT(r.why, HasSubstr("NODE_FAIL"));
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "a@1"));
}

TEST(Dispatcher, WhenNoCheckoutIsLeftTheDispatchEndsSayingWhy) {
  SimulatedRunner runner(1);
  runner.on_start = [&](const TaskJob& j) { runner.down.insert(j.slot); };
  Calls calls;
  DispatchResult r = dispatch(runner, 1, jobs({"a", "b"}), {}, {}, calls);
  EXPECT_EQ(r.end, DispatchResult::End::no_checkout_left);
  EXPECT_EQ(r.why, "every node is down");
  EXPECT_THAT(calls.waits, Contains("a: lost to the infrastructure, waiting for a checkout (the run "
                                      "holds none; asked of maced)"));
}

TEST(Dispatcher, StopAfterAPassStartsNothingMoreOnceOnePassed) {
  SimulatedRunner runner(1);
  runner.outcome = [](int, const TaskJob& j) {
    TaskOutcome o{j.task.id, j.task.id == "b", true, FailureReason::none, {}, {}};
    if (!o.passed) o.failure_reason = FailureReason::build_failed;
    return o;
  };
  Calls calls;
  DispatchSettings settings{.mode = Dispatch::batches, .stop_after_a_pass = true};
  DispatchResult r = dispatch(runner, 1, jobs({"a", "b", "c"}), {}, settings, calls);
  EXPECT_THAT(runner.starts, ElementsAre("a@0", "b@0"));
  EXPECT_FALSE(r.finished[2].has_value());
}

TEST(Dispatcher, ACancelStartsNothingMoreAndWaitsForWhatRuns) {
  SimulatedRunner runner(2);
  Calls calls;
  calls.when_started = [&](const TaskJob&) { calls.cancel = true; };
  DispatchResult r = dispatch(runner, 1, jobs({"a", "b", "c"}), {}, {}, calls);
  EXPECT_EQ(r.end, DispatchResult::End::cancelled);
  EXPECT_EQ(runner.starts.size(), 2u) << "both free checkouts were filled in the same turn";
  EXPECT_EQ(calls.ended.size(), 2u);
}

TEST(Dispatcher, TheOrderIsDescribedForTheRunsLog) {
  std::vector<ExpectedTime> expected = {{.seconds = 50, .basis = "pico 1x1 builds"},
                                        {.seconds = 420, .basis = "its last build"},
                                        {.seconds = 1, .basis = "the model store"}};
  EXPECT_EQ(describe_order(jobs({"t1", "t2", "t3"}), expected),
            "t2 (about 7 min, its last build), t1 (about 50 s, pico 1x1 builds), "
            "t3 (about 1 s, the model store)");
}

}  // namespace
}  // namespace mace::loop

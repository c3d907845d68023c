// A run's lease of checkouts and its mailbox, as the loop sees them through LeasedRunner:
// what is granted is held before want_checkouts returns, a checkout given back can be had
// again, a task started where the run holds nothing ends at once, and the waits end on a
// grant, on "none left" and on cancel.
#include "run/leased_runner.h"

#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/child_process.h"

namespace mace::run {
namespace {

using ::testing::ElementsAre;
using Kind = loop::RunnerEvent::Kind;

class LeasedRunnerTest : public ::testing::Test {
 protected:
  LeasedRunnerTest() : executor_(spec_, settings(cancel_)) {}
  static executor::ExecutorSettings settings(const os::CancelToken& cancel) {
    executor::ExecutorSettings s;
    s.cancel = &cancel;
    return s;
  }

  // Checkouts named a, b, ...: directories a Checkout accepts (nothing is built in them).
  std::unique_ptr<LeasedRunner> runner_over(const std::vector<std::string>& names) {
    std::vector<service::PooledCheckout> checkouts;
    for (const auto& name : names) {
      dir_.write(name + "/piton/piton_settings.bash", "");
      dir_.write(name + "/piton/tools/bin/sims", "");
      checkouts.push_back({dir_.file(name), "local"});
    }
    return std::make_unique<LeasedRunner>(
        executor_, own_checkouts(checkouts),
        [](const service::PooledCheckout& c) { return openpiton::Checkout(c.path); },
        [this](const openpiton::Checkout& c) { taken_.push_back(c.root().filename().string()); },
        cancel_);
  }

  testing::TempDir dir_;
  RunSpec spec_;
  os::CancelToken cancel_;
  executor::LocalExecutor executor_;
  std::vector<std::string> taken_;
};

TEST_F(LeasedRunnerTest, ARunStartsWithOneCheckoutAndHoldsWhatWasFreeOnceItAsks) {
  auto runner = runner_over({"a", "b", "c"});
  EXPECT_THAT(runner->checkouts(), ElementsAre(0));
  EXPECT_THAT(taken_, ElementsAre("a")) << "told of each checkout before anything runs on it";
  runner->want_checkouts(2);
  EXPECT_THAT(runner->checkouts(), ElementsAre(0, 1)) << "never more than asked for";
  runner->want_checkouts(3);
  EXPECT_THAT(runner->checkouts(), ElementsAre(0, 1, 2));
  EXPECT_THAT(taken_, ElementsAre("a", "b", "c"));
  ASSERT_EQ(runner->held().size(), 3u);
  EXPECT_EQ(runner->held()[2].root(), dir_.file("c"));
}

TEST_F(LeasedRunnerTest, ACheckoutGivenBackCanBeHadAgain) {
  auto runner = runner_over({"a", "b"});
  runner->want_checkouts(2);
  runner->give_back(0);
  EXPECT_THAT(runner->checkouts(), ElementsAre(1));
  runner->give_back(0);  // not held: nothing happens
  EXPECT_THAT(runner->checkouts(), ElementsAre(1));
  runner->want_checkouts(2);
  EXPECT_THAT(runner->checkouts(), ElementsAre(1, 0)) << "in the order given";
}

TEST_F(LeasedRunnerTest, ATaskStartedWhereTheRunHoldsNothingEndsAtOnceForWantOfACheckout) {
  auto runner = runner_over({"a"});
  loop::TaskJob job;
  job.task.id = "t1";
  job.slot = 5;
  runner->start(1, job);
  const loop::RunnerEvent event = runner->wait();
  ASSERT_EQ(event.kind, Kind::task_finished);
  ASSERT_TRUE(event.finished);
  EXPECT_EQ(event.finished->job.task.id, "t1");
  EXPECT_EQ(event.finished->outcome.failure_reason, FailureReason::no_checkout);
  EXPECT_THAT(event.finished->outcome.evidence, ElementsAre("the run holds no checkout 5"));
}

TEST_F(LeasedRunnerTest, ARunWithNoCheckoutLeftIsToldWhy) {
  auto runner = runner_over({"a"});
  runner->give_back(0);
  // The pool is the run's alone, so its only checkout is granted again at once.
  runner->want_checkouts(1);
  EXPECT_THAT(runner->checkouts(), ElementsAre(0));
  auto empty = runner_over({});
  EXPECT_TRUE(empty->checkouts().empty());
  empty->want_checkouts(1);
  const loop::RunnerEvent event = empty->wait();
  EXPECT_EQ(event.kind, Kind::no_checkout_left);
  EXPECT_EQ(event.why, "the run has no checkout");
}

TEST_F(LeasedRunnerTest, AWaitEndsWhenTheRunIsCancelled) {
  auto runner = runner_over({"a"});
  std::thread canceller([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel_.cancel();
  });
  const loop::RunnerEvent event = runner->wait();
  canceller.join();
  EXPECT_EQ(event.kind, Kind::interrupted);
}

}  // namespace
}  // namespace mace::run

// The supervisor that gives each run a thread of its own and its checkouts from the pool,
// with everything the run records carried back to the event-loop thread; driven here by a
// KJ event loop in the test, without a maced process.

#include "maced/run_supervisor.h"

#include <chrono>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kj/async-io.h>

#include "service/run_service.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace {
namespace {

using ::testing::IsEmpty;

class RunSupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::Store::open(dir_.file("mace.db"));
    service_ = std::make_unique<service::RunService>(*store_);
    settings_.workloads_dir = mace::testing::source_root() + "/workloads";
  }

  std::string submit(const std::string& extra = "") {
    auto outcome = service_->submit_json(
        R"({"core": "pico", "workloads": ["add.S"], "objective": "o", "backend": "direct")" +
            extra + "}",
        service::Caller{1000});
    EXPECT_THAT(outcome.errors, IsEmpty());
    return outcome.run_id;
  }

  // Turns the event loop until `done` holds or the time runs out.
  bool turn_until(const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > give_up) return false;
      io_->provider->getTimer().afterDelay(10 * kj::MILLISECONDS).wait(io_->waitScope);
    }
    return true;
  }

  RunState state(const std::string& id) { return service_->run(id).state; }

  // Held by pointer: KJ's destructors may throw, which a test fixture's may not.
  std::unique_ptr<kj::AsyncIoContext> io_ =
      std::make_unique<kj::AsyncIoContext>(kj::setupAsyncIo());
  mace::testing::TempDir dir_;
  mace::testing::FixtureCheckout checkout_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<service::RunService> service_;
  run::RunSettings settings_;
};

// REQ-EXEC-2: one checkout, two runs: the second waits for the first's checkout.
TEST_F(RunSupervisorTest, RunsTakeTurnsOnTheCheckoutsOfThePool) {
  RunSupervisor supervisor(*service_, *store_, {{checkout_.root(), "local"}}, settings_);
  std::string first = submit();
  std::string second = submit();
  supervisor.start_queued();
  EXPECT_EQ(state(first), RunState::running);
  EXPECT_EQ(state(second), RunState::queued);
  ASSERT_TRUE(turn_until([&] { return is_final(state(second)); }, std::chrono::seconds(60)));
  EXPECT_EQ(state(first), RunState::passed);
  EXPECT_EQ(state(second), RunState::passed);
  EXPECT_EQ(supervisor.active(), 0u);
}

// A run holds what its level uses: three runs of one task each, submitted together on
// three free checkouts, start together, each on a checkout of its own.
TEST_F(RunSupervisorTest, ThreeRunsSubmittedTogetherOnThreeFreeCheckoutsStartTogether) {
  mace::testing::FixtureCheckout second, third;
  for (auto* checkout : {&checkout_, &second, &third}) checkout->set_control("build_sleep", "2");
  RunSupervisor supervisor(*service_, *store_,
                           {{checkout_.root(), "local"}, {second.root(), "local"}, {third.root(), "local"}},
                           settings_);
  std::vector<std::string> ids = {submit(), submit(), submit()};
  supervisor.start_queued();
  for (const auto& id : ids) EXPECT_EQ(state(id), RunState::running) << id;
  ASSERT_TRUE(turn_until([&] {
    for (const auto& id : ids)
      if (!is_final(state(id))) return false;
    return true;
  }, std::chrono::seconds(60)));
  std::set<std::string> used;
  for (const auto& id : ids) {
    EXPECT_EQ(state(id), RunState::passed);
    for (const auto& task : store_->tasks(id)) used.insert(task.checkout);
  }
  EXPECT_EQ(used.size(), 3u);
}

// REQ-BUD-13: cancel stops the run's build at once; the run ends cancelled.
TEST_F(RunSupervisorTest, CancelStopsARunMidBuild) {
  checkout_.set_control("build", "hang");
  RunSupervisor supervisor(*service_, *store_, {{checkout_.root(), "local"}}, settings_);
  std::string id = submit();
  supervisor.start_queued();
  ASSERT_TRUE(turn_until([&] { return checkout_.invocations("build") == 1; }, std::chrono::seconds(30)));
  supervisor.cancel(id);
  ASSERT_TRUE(turn_until([&] { return supervisor.active() == 0; }, std::chrono::seconds(30)));
  EXPECT_EQ(state(id), RunState::cancelled);
}

// Stopping maced ends its runs in `error`, never `cancelled`: nobody asked for that.
TEST_F(RunSupervisorTest, StopAllEndsRunsAsMacedStopping) {
  checkout_.set_control("build", "hang");
  RunSupervisor supervisor(*service_, *store_, {{checkout_.root(), "local"}}, settings_);
  std::string id = submit();
  supervisor.start_queued();
  ASSERT_TRUE(turn_until([&] { return checkout_.invocations("build") == 1; }, std::chrono::seconds(30)));
  supervisor.stop_all().wait(io_->waitScope);
  EXPECT_EQ(state(id), RunState::error);
  EXPECT_EQ(service_->run(id).reason, "maced stopped during the run");
}

// The store refusing writes mid-run (as on a full disk; sqlite_test shows that message):
// the run ends, its checkout goes back to the pool, and its end is recorded, in words, once
// the store takes writes again; it does not stay `running`.
TEST_F(RunSupervisorTest, ARunEndedWhileTheStoreRefusesWritesIsRecordedLater) {
  checkout_.set_control("build", "hang");
  RunSupervisor supervisor(*service_, *store_, {{checkout_.root(), "local"}}, settings_);
  std::string id = submit();
  std::string waiting = submit();
  supervisor.start_queued();
  ASSERT_TRUE(turn_until([&] { return checkout_.invocations("build") == 1; }, std::chrono::seconds(30)));
  store_->database().exec("PRAGMA query_only = ON");
  supervisor.cancel(id);
  ASSERT_TRUE(turn_until([&] { return supervisor.active() == 0; }, std::chrono::seconds(30)));
  EXPECT_EQ(state(id), RunState::running) << "nothing could be written";

  store_->database().exec("PRAGMA query_only = OFF");
  checkout_.clear_control();
  supervisor.retry_unrecorded();
  EXPECT_EQ(state(id), RunState::error);
  const std::string reason = service_->run(id).reason;
  EXPECT_THAT(reason, ::testing::HasSubstr("readonly database"));
  EXPECT_THAT(reason, ::testing::HasSubstr("recorded late"));
  EXPECT_THAT(reason, ::testing::Not(::testing::HasSubstr("stack:")));
  EXPECT_THAT(reason, ::testing::Not(::testing::HasSubstr("INSERT")));
  // The checkout is free again: the waiting run gets it.
  supervisor.start_queued();
  ASSERT_TRUE(turn_until([&] { return is_final(state(waiting)); }, std::chrono::seconds(60)));
  EXPECT_EQ(state(waiting), RunState::passed);
}

}  // namespace
}  // namespace mace

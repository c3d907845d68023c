// One build server shared between users (docs/operating-maced.md, "Sharing a server"): the
// state on disk is maced's user's alone, so members read only through the API; turns on a
// checkout alternate between users, however long one user's queue is; one user's
// connections cannot take everyone's places, and administrators always have a place.
// maced runs as root here; `mace` runs as uids 65533 and 65534, as access_test does.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr uint32_t kAlice = 65533;
constexpr uint32_t kBob = 65534;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

class SharingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::getuid() != 0) GTEST_SKIP() << "needs root to act as two other users";
    ::chmod(dir_.path().c_str(), 0755);
    dir_.write("spec.json", R"({"core": "pico", "workloads": ["add.S"], "backend": "direct",
      "objective": "the secret L2 of project falcon"})");
    ::chmod(dir_.file("spec.json").c_str(), 0644);
  }

  void start(const std::string& config) {
    dir_.write("maced.json", config);
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
    ::chmod(maced_->socket_path().c_str(), 0666);  // let the two users reach it
  }
  std::string with_checkout(const std::string& more = "") const {
    return R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}])" + more + "}";
  }

  ProcessResult as(uint32_t uid, const std::vector<std::string>& args) {
    ProcessOptions options;
    options.uid = uid;
    options.timeout = 120s;
    return maced_->mace(args, options);
  }
  std::string submit_as(uint32_t uid) {
    auto r = as(uid, {"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return first_line(r.out);
  }
  // `mace watch` as `uid`, left running once it is served: one connection of that user's,
  // held. (The connection of a command that just ended may still count for a moment.)
  std::unique_ptr<BackgroundProcess> hold_connection(uint32_t uid, const std::string& run_id) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      ProcessOptions options;
      options.uid = uid;
      auto watch = std::make_unique<BackgroundProcess>(
          std::vector<std::string>{mace_binary(), "--socket", maced_->socket_path(), "watch", run_id}, options);
      if (eventually([&] { return watch->output_so_far().find("submitted") != std::string::npos || !watch->running(); }) &&
          watch->running())
        return watch;
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "no watch of " << run_id << " was served";
    return nullptr;
  }
  int64_t started_at_ms(const std::string& run_id) {
    const std::string json = maced_->mace({"--json", "list"}).out;
    const auto at = json.find("\"run_id\":\"" + run_id + "\"");
    const auto field = json.find("\"started_at_ms\":", at);
    if (at == std::string::npos || field == std::string::npos) return -1;
    return std::stoll(json.substr(field + 16));
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// A member of the group who may not `mace status` another user's run cannot read it off the
// disk either: neither the database nor the run's kept logs.
TEST_F(SharingTest, AnotherUserCannotReadTheStoreOrTheKeptLogsOffTheDisk) {
  start(with_checkout());
  const std::string id = submit_as(kAlice);
  as(kAlice, {"watch", id});
  const std::string state = maced_->state_dir();
  ASSERT_TRUE(fs::exists(state + "/runs/" + id + "/iter1/build/sims/add.S/sim.log"));
  for (const std::string& path : {state + "/mace.db", state + "/runs/" + id + "/iter1/build/sims/add.S/sim.log"}) {
    ProcessOptions options;
    options.uid = kBob;
    auto read = run_process({"/bin/cat", path}, options);
    EXPECT_NE(read.exit_code, 0) << path;
    EXPECT_THAT(read.err, HasSubstr("Permission denied")) << path;
    EXPECT_THAT(read.out, ::testing::Not(HasSubstr("falcon")));
  }
  EXPECT_EQ(as(kAlice, {"logs", id, "--sim", "add.S", "--tail", "1"}).exit_code, 0) << "the owner reads through the API";
}

// One checkout, Alice's four runs queued before Bob's one: when the checkout frees after
// Alice's first, Bob has been served longest ago (never), so his run goes next, not last.
TEST_F(SharingTest, OneUsersLongQueueDelaysAnothersRunByOneTurnNotTheWholeQueue) {
  checkout_.set_control("run_sleep", "1");
  start(with_checkout());
  std::vector<std::string> alices;
  for (int i = 0; i < 4; ++i) alices.push_back(submit_as(kAlice));
  const std::string bobs = submit_as(kBob);
  for (const auto& id : alices) as(kAlice, {"watch", id});
  as(kBob, {"watch", bobs});

  std::map<int64_t, std::string> by_start;
  for (const auto& id : alices) by_start[started_at_ms(id)] = "alice";
  by_start[started_at_ms(bobs)] = "bob";
  std::vector<std::string> order;
  for (const auto& [at, who] : by_start) order.push_back(who);
  EXPECT_THAT(order, ::testing::ElementsAre("alice", "bob", "alice", "alice", "alice"));
}

// Bob's clients hold as many connections as one user may; his next is refused saying so,
// while Alice and root are served as ever.
TEST_F(SharingTest, OneUsersConnectionsCannotTakeEveryonesPlaces) {
  start(R"({"connections": {"max": 20, "max_per_user": 3}})");
  const std::string id = submit_as(kBob);  // no checkout: it stays queued, watches wait
  std::vector<std::unique_ptr<BackgroundProcess>> held;
  for (int i = 0; i < 3; ++i) held.push_back(hold_connection(kBob, id));
  ASSERT_TRUE(eventually([&] {
    auto r = as(kBob, {"list"});
    return r.exit_code != 0 && r.err.find("you have 3 connections open") != std::string::npos;
  })) << as(kBob, {"list"}).err;
  const auto refused = as(kBob, {"list"});
  EXPECT_EQ(first_line(refused.err), "maced: you have 3 connections open, the most one user may have "
                                     "(connections.max_per_user in maced's configuration); close some and try again");
  EXPECT_EQ(as(kAlice, {"list"}).exit_code, 0);
  EXPECT_EQ(maced_->mace({"list"}).exit_code, 0);
  held.pop_back();
  EXPECT_TRUE(eventually([&] { return as(kBob, {"list"}).exit_code == 0; })) << "a place freed is his again";
}

// With every place but the administrators' reserve taken, users are refused and root is not.
TEST_F(SharingTest, AdministratorsHaveAReserveOfPlaces) {
  start(R"({"connections": {"max": 5, "max_per_user": 5, "admin_reserve": 2}})");
  const std::string id = submit_as(kBob);
  std::vector<std::unique_ptr<BackgroundProcess>> held;
  for (int i = 0; i < 3; ++i) held.push_back(hold_connection(kBob, id));
  ASSERT_TRUE(eventually([&] { return as(kAlice, {"list"}).exit_code != 0; }));
  EXPECT_EQ(first_line(as(kAlice, {"list"}).err),
            "maced: too many connections (limit 5, of which 2 are kept for administrators); try again");
  const auto root = maced_->mace({"list"});
  EXPECT_EQ(root.exit_code, 0) << root.err;
}

}  // namespace
}  // namespace mace::testing

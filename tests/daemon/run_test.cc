// Runs executed end to end: a real maced with the fixture checkout in its pool, driven by
// the real mace, with the direct planner (no LLM).

#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"
#include "submit_spec.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

std::string spec_json(const std::string& extra = "") {
  return R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "backend": "direct",
             "objective": "build the tile and run add")" +
         extra + "}";
}

// Whether every one of `pids` has ended.
bool none_alive(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids)
    if (::kill(pid, 0) == 0) return false;
  return true;
}

class RunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    workloads_ = source_root() + "/workloads";
    start();
  }
  void start() {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", workloads_};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string submit(const std::string& spec) { return submit_spec(*maced_, dir_, spec); }
  ProcessResult wait_for(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(60);
    return maced_->mace({"watch", id}, options);
  }
  std::string status(const std::string& id) { return maced_->mace({"status", id, "--json"}).out; }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::string workloads_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(RunTest, ADirectRunBuildsRunsAndPasses) {  // REQ-VER-1, REQ-VER-10, REQ-VER-13
  std::string id = submit(spec_json());
  auto watched = wait_for(id);
  EXPECT_EQ(watched.exit_code, 0) << watched.out << watched.err;
  // On a pipe, watch prints JSON Lines.
  EXPECT_THAT(watched.out, HasSubstr("\"stage\":\"building\""));
  EXPECT_THAT(watched.out, HasSubstr("\"workload\":\"add.S\",\"verdict\":\"pass\""));
  std::string s = status(id);
  EXPECT_THAT(s, HasSubstr("\"state\":\"passed\""));
  EXPECT_THAT(s, HasSubstr("\"build_outcome\":\"succeeded\""));
  EXPECT_THAT(s, HasSubstr("\"checkout\":\"" + checkout_.root() + "\""));
  EXPECT_THAT(maced_->mace({"metrics", id, "--json"}).out, HasSubstr("\"successful_tasks\":1"));
  EXPECT_EQ(checkout_.invocations("build"), 1);
  EXPECT_EQ(checkout_.invocations("run"), 1);
}

// spec-hardening finding 1: options the allowlist keeps and a workload's own limits reach
// sims as given, after MACE's own flags, on the fixture checkout.
TEST_F(RunTest, AllowedOptionsAndAWorkloadsOwnLimitsReachSims) {
  std::string id = submit(spec_json(R"(, "max_cycle": 9000000, "workload_args": {"add.S": {
      "options": ["-sim_run_args=+turn_off_exu_monitor", "-midas_args=-DTHREAD_COUNT=1",
                  "-nofast_boot"],
      "rtl_timeout": 50000, "max_cycle": 400000}})"));
  auto watched = wait_for(id);
  EXPECT_EQ(watched.exit_code, 0) << watched.out << watched.err;
  std::vector<std::string> run_args;
  for (const auto& args : checkout_.invocation_args())
    if (std::find(args.begin(), args.end(), "-vlt_run") != args.end()) run_args = args;
  ASSERT_FALSE(run_args.empty());
  EXPECT_THAT(run_args, ::testing::IsSupersetOf({"-rtl_timeout=50000", "-max_cycle=400000",
                                                 "-sim_run_args=+turn_off_exu_monitor",
                                                 "-midas_args=-DTHREAD_COUNT=1", "-nofast_boot"}));
  EXPECT_THAT(run_args, ::testing::Not(::testing::Contains("-max_cycle=9000000")));
  EXPECT_EQ(run_args.back(), "add.S");
  // The stored spec keeps the workload's own limits.
  EXPECT_THAT(status(id), HasSubstr(R"("rtl_timeout":50000,"max_cycle":400000)"));
}

TEST_F(RunTest, AnIdenticalSecondRunReusesTheBuild) {  // REQ-VER-12
  ASSERT_EQ(wait_for(submit(spec_json())).exit_code, 0);
  std::string second = submit(spec_json());
  ASSERT_EQ(wait_for(second).exit_code, 0);
  EXPECT_THAT(status(second), HasSubstr("\"build_outcome\":\"reused\""));
  EXPECT_EQ(checkout_.invocations("build"), 1);
}

// REQ-VER-9; the direct planner would build the same design again, so one failed
// iteration ends its run, saying which and why (the budget allowed ten).
TEST_F(RunTest, AFailedBuildEndsADirectRunAfterOneIterationNamingItsError) {
  checkout_.set_control("build", "fail");
  std::string id = submit(spec_json(R"(, "budget": {"max_iterations": 10})"));
  auto watched = wait_for(id);
  EXPECT_EQ(watched.exit_code, 1);
  std::string s = status(id);
  EXPECT_THAT(s, HasSubstr("\"state\":\"failed\""));
  EXPECT_THAT(s, HasSubstr("\"iterations\":1,"));
  EXPECT_THAT(s, HasSubstr("iteration 1 failed and the direct planner would plan it again unchanged: "
                           "task build failed (build_failed): %Error: "));
  EXPECT_THAT(s, HasSubstr("\"failure_reason\":\"build_failed\""));
  EXPECT_EQ(checkout_.invocations("run"), 0);
  EXPECT_EQ(checkout_.invocations("build"), 1);
}

TEST_F(RunTest, ChangedWorkloadsEndTheRunBeforeAnyBuild) {  // REQ-BUD-7, REQ-BUD-8
  std::filesystem::copy(source_root() + "/workloads", dir_.file("workloads"),
                        std::filesystem::copy_options::recursive);
  std::ofstream(dir_.file("workloads/hello.c"), std::ios::app) << "/* changed */\n";
  workloads_ = dir_.file("workloads");
  maced_.reset();
  start();
  std::string id = submit(spec_json());
  EXPECT_EQ(wait_for(id).exit_code, 1);
  std::string s = status(id);
  EXPECT_THAT(s, HasSubstr("\"state\":\"checksum_mismatch\""));
  EXPECT_THAT(s, HasSubstr("hello.c"));
  EXPECT_EQ(checkout_.invocations(), 0);
}

TEST_F(RunTest, CancelStopsABuildAndLeavesNoProcessBehind) {
  checkout_.set_control("build", "hang");
  std::string id = submit(spec_json());
  ASSERT_TRUE(eventually([&] { return !checkout_.recorded_pids().empty(); },
                         std::chrono::seconds(20)));
  auto pids = checkout_.recorded_pids();
  ASSERT_EQ(maced_->mace({"cancel", id}).exit_code, 0);
  EXPECT_TRUE(eventually([&] { return none_alive(pids); }, std::chrono::seconds(15)));
  EXPECT_THAT(status(id), HasSubstr("\"state\":\"cancelled\""));
  // The checkout is free again for the next run.
  checkout_.clear_control();
  EXPECT_EQ(wait_for(submit(spec_json())).exit_code, 0);
}

// Workloads side by side (executor/gate_workloads.h): a cancel while two simulations hang
// at once stops both, their grandchildren included, and starts no third.
TEST_F(RunTest, CancelStopsSimulationsSideBySideAndLeavesNoProcessBehind) {
  for (const char* name : {"sub.S", "xor.S"})
    checkout_.write(std::string("piton/verif/diag/assembly/riscv/pico/") + name,
                    checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  checkout_.set_control("run", "hang");
  std::string id = submit(R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "objective": "hang",
      "workloads": ["add.S", "sub.S", "xor.S"], "parallel_workloads": 2})");
  // Each hang records its sleeping grandchild and sims: two simulations at once.
  ASSERT_TRUE(eventually([&] { return checkout_.recorded_pids().size() >= 4; }, std::chrono::seconds(30)));
  auto pids = checkout_.recorded_pids();
  ASSERT_EQ(maced_->mace({"cancel", id}).exit_code, 0);
  EXPECT_TRUE(eventually([&] { return none_alive(pids); }, std::chrono::seconds(15)));
  EXPECT_THAT(status(id), HasSubstr("\"state\":\"cancelled\""));
  EXPECT_EQ(checkout_.invocations("run"), 2) << "the third never started";
}

// REQ-EXEC-2; REQ-EXEC-4: each run's builds and simulations happen in the checkout it
// leased (the local executor: this machine holds both), and the task row names it.
TEST(RunPool, TwoRunsShareAPoolOfTwoCheckoutsAtTheSameTime) {
  TempDir dir;
  FixtureCheckout a, b;
  for (auto* c : {&a, &b}) c->set_control("build_sleep", "2");
  // Without a model store: each run must build in its own checkout, whichever ends first.
  dir.write("maced.json", R"({"checkouts": [{"path": ")" + a.root() + R"("}, {"path": ")" +
                              b.root() + R"("}], "model_store": {"enabled": false}})");
  MacedOptions options;
  options.extra_args = {"--config", dir.file("maced.json"), "--workloads",
                        source_root() + "/workloads"};
  MacedInstance maced(dir, options);
  dir.write("spec.json", spec_json(R"(, "checkouts": 1)"));
  std::vector<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    auto r = maced.mace({"submit", dir.file("spec.json")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ids.push_back(r.out.substr(0, r.out.find('\n')));
  }
  // Both run at once: each holds one checkout.
  EXPECT_TRUE(eventually([&] {
    return maced.mace({"list", "--state", "running", "--json"}).out.find(ids[1]) != std::string::npos &&
           maced.mace({"list", "--state", "running", "--json"}).out.find(ids[0]) != std::string::npos;
  }));
  ProcessOptions wait;
  wait.timeout = std::chrono::seconds(60);
  for (const auto& id : ids) EXPECT_EQ(maced.mace({"watch", id}, wait).exit_code, 0);
  EXPECT_EQ(a.invocations("build"), 1);
  EXPECT_EQ(b.invocations("build"), 1);
  EXPECT_EQ(a.invocations("run"), 1);
  EXPECT_EQ(b.invocations("run"), 1);
  std::string both = maced.mace({"status", ids[0], "--json"}).out + maced.mace({"status", ids[1], "--json"}).out;
  EXPECT_THAT(both, HasSubstr(R"("checkout":")" + a.root() + "\""));
  EXPECT_THAT(both, HasSubstr(R"("checkout":")" + b.root() + "\""));
}

TEST_F(RunTest, SigtermStopsRunningBuildsAndRecordsTheirRuns) {  // REQ-BUD-13
  checkout_.set_control("build", "hang");
  std::string id = submit(spec_json());
  ASSERT_TRUE(eventually([&] { return !checkout_.recorded_pids().empty(); },
                         std::chrono::seconds(20)));
  auto pids = checkout_.recorded_pids();
  maced_->process().signal(SIGTERM);
  auto exited = maced_->process().wait(std::chrono::seconds(30));
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code, 0) << exited->err;
  // Killed processes may linger as zombies until init reaps them (seconds here).
  EXPECT_TRUE(eventually(
      [&] {
        for (pid_t pid : pids)
          if (::kill(pid, 0) == 0) return false;
        return true;
      },
      std::chrono::seconds(5)))
      << "a build process survived maced";
  checkout_.clear_control();
  start();
  std::string s = status(id);
  EXPECT_THAT(s, HasSubstr("\"state\":\"error\""));
  EXPECT_THAT(s, HasSubstr("maced stopped during the run"));
}

}  // namespace
}  // namespace mace::testing

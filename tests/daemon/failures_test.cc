// `mace failures` over several real runs of a real maced on the fixture: the signatures
// across runs, the most frequent first, when each was first and last seen, whether a later
// run passed the same configuration and workload, the window and core filters, the bound on
// the runs read, bad options refused, and another user's runs never counted.

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

class FailuresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"lw.S", "sw.S"})
      checkout_.write(std::string("piton/verif/diag/assembly/riscv/pico/") + name,
                      checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
    dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "run_every_workload": true,
        "objective": "regression", "workloads": ["add.S", "lw.S", "sw.S"]})");
    maced_ = std::make_unique<MacedInstance>(dir_, options_for_checkout(dir_, checkout_.root()));
  }
  std::string run_to_end() {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(90);
    const auto r = maced_->mace({"submit", dir_.file("spec.json"), "--watch"}, options);
    return r.out.substr(0, r.out.find('\n'));
  }
  // `mace failures --json ARGS`, parsed.
  simdjson::dom::element failures(const std::vector<std::string>& args = {}, const ProcessOptions& options = {}) {
    std::vector<std::string> all = {"--json", "failures"};
    all.insert(all.end(), args.begin(), args.end());
    last_ = maced_->mace(all, options);
    EXPECT_EQ(last_.exit_code, 0) << last_.err;
    simdjson::dom::element root;
    EXPECT_EQ(parser_.parse(last_.out).get(root), simdjson::SUCCESS) << last_.out;
    return root;
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
  simdjson::dom::parser parser_;
  ProcessResult last_;
};

TEST_F(FailuresTest, SignaturesAcrossRunsMostFrequentFirstWithWhetherALaterRunPassed) {
  checkout_.set_control("run.lw", "fail");
  const std::string first = run_to_end();
  checkout_.set_control("run.lw", "fail");
  checkout_.set_control("run.sw", "fail");
  const std::string second = run_to_end();
  checkout_.clear_control();
  checkout_.set_control("run.add", "timeout");
  const std::string third = run_to_end();  // lw.S and sw.S pass again; add.S times out

  auto history = failures();
  EXPECT_EQ(int64_t(history["runs_read"]), 3);
  EXPECT_FALSE(bool(history["more_runs"]));
  simdjson::dom::array signatures = history["signatures"];
  ASSERT_EQ(signatures.size(), 2u) << last_.out;
  auto bad_trap = signatures.at(0);
  EXPECT_EQ(std::string_view(bad_trap["signature"]), "fail: N : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_EQ(int64_t(bad_trap["occurrences"]), 3);
  EXPECT_EQ(int64_t(bad_trap["runs"]), 2);
  EXPECT_EQ(std::string_view(bad_trap["first_run_id"]), first);
  EXPECT_EQ(std::string_view(bad_trap["last_run_id"]), second);
  EXPECT_EQ(int64_t(bad_trap["workloads_total"]), 2);
  EXPECT_EQ(int64_t(bad_trap["passed_later"]), 2) << "the third run passed lw.S and sw.S on the same design";
  EXPECT_EQ(int64_t(bad_trap["still_failing"]), 0);
  simdjson::dom::array configurations = bad_trap["configurations"];
  ASSERT_EQ(configurations.size(), 1u);
  EXPECT_THAT(std::string(std::string_view(configurations.at(0))), HasSubstr("pico 1x1"));
  auto timeout = signatures.at(1);
  EXPECT_EQ(std::string_view(timeout["verdict"]), "timeout");
  EXPECT_EQ(std::string_view(timeout["first_run_id"]), third);
  EXPECT_EQ(int64_t(timeout["still_failing"]), 1);

  const auto human = maced_->mace({"failures"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_THAT(human.out, HasSubstr("2 failure signatures in 3 runs read"));
  EXPECT_THAT(human.out, HasSubstr("3 x fail: N : Simulation -> FAIL(HIT BAD TRAP)\n  in 2 runs: first "));
  EXPECT_THAT(human.out, HasSubstr("fixed: 2 of 2 configuration and workload pairs passed in a later run"));
  EXPECT_THAT(human.out, HasSubstr("open: 0 of 1 configuration and workload pair passed in a later run"));

  // The window, the core and the bound on runs read.
  EXPECT_EQ(int64_t(failures({"--since", "2099-01-01"})["runs_read"]), 0);
  EXPECT_EQ(int64_t(failures({"--since", "1h"})["runs_read"]), 3);
  EXPECT_EQ(int64_t(failures({"--core", "sparc"})["runs_read"]), 0);
  auto newest = failures({"--max-runs", "1"});
  EXPECT_EQ(int64_t(newest["runs_read"]), 1);
  EXPECT_TRUE(bool(newest["more_runs"]));
  EXPECT_EQ(simdjson::dom::array(newest["signatures"]).size(), 1u) << "only the third run's timeout";
}

TEST_F(FailuresTest, BadOptionsAreRefusedNamingThem) {
  auto r = maced_->mace({"failures", "--since", "last tuesday"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--since: must be a time back from now"));
  r = maced_->mace({"failures", "--max-runs", "-3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-runs"));
  r = maced_->mace({"failures", "--max-runs", "6000"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("query.maxRuns: must be 0"));
  r = maced_->mace({"failures", "extra"});
  EXPECT_EQ(r.exit_code, 2);
}

// Another user's failures are not theirs to see: they read none of root's runs.
TEST_F(FailuresTest, AnotherUserSeesNoneOfTheRunsTheyMayNotRead) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  checkout_.set_control("run.lw", "fail");
  run_to_end();
  ::chmod(dir_.path().c_str(), 0755);
  ::chmod(maced_->socket_path().c_str(), 0666);
  ProcessOptions nobody;
  nobody.uid = 65534;
  auto theirs = failures({}, nobody);
  EXPECT_EQ(int64_t(theirs["runs_read"]), 0);
  EXPECT_EQ(simdjson::dom::array(theirs["signatures"]).size(), 0u);
  EXPECT_EQ(int64_t(failures()["runs_read"]), 1) << "root administers maced and reads every run";
}

}  // namespace
}  // namespace mace::testing

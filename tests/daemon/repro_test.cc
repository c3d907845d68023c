// `mace repro` on the fixture with a real maced: the script it writes, run by hand with
// /bin/sh outside maced, rebuilds the failed task's model under a build ID of its own,
// recreates what the run directory held (a pico C program MACE compiled), reruns the
// recorded simulation command and reproduces the recorded verdict and its time; a checkout
// that no longer fails says "NOT reproduced"; bad names are refused naming the field.

#include <sys/stat.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/checkout_files.h"
#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ReproTest : public ::testing::Test {
 protected:
  void SetUp() override {
    maced_ = std::make_unique<MacedInstance>(dir_, options_for_checkout(dir_, checkout_.root()));
  }
  // A design whose define makes every simulation fail (the fixture's FAKE_BREAK_RUN), with
  // an OpenPiton diag and a C program MACE compiles for pico.
  std::string failing_run() {
    dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "baseline": false,
        "run_every_workload": true, "objective": "a design that fails", "workloads": ["add.S", "hello"],
        "designs": [{"name": "broken", "config_rtl": ["FAKE_BREAK_RUN"]}]})");
    ProcessOptions options;
    options.timeout = std::chrono::seconds(120);
    const auto r = maced_->mace({"submit", dir_.file("spec.json"), "--watch"}, options);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  // The script run by hand: /bin/sh with only PATH and HOME of the caller's environment.
  ProcessResult run_script(const std::string& script, const std::string& work) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(120);
    options.set_env["MACE_REPRO_DIR"] = work;
    return run_process({"/bin/sh", script}, options);
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-VER-13: a failure an engineer can rerun by hand.
TEST_F(ReproTest, TheScriptRebuildsAndReproducesTheRecordedFailureOutsideMaced) {
  const std::string id = failing_run();
  const std::string script = dir_.file("repro.sh");
  const auto made = maced_->mace({"repro", id, "--workload", "hello", "-o", script});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  struct stat st{};
  ASSERT_EQ(::stat(script.c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR) << "the script is executable";
  const std::string text = read_file(script);
  EXPECT_THAT(text, HasSubstr("-config_rtl=FAKE_BREAK_RUN")) << "the recorded build command";
  EXPECT_THAT(text, HasSubstr("base64 -d")) << "the compiled program, recreated";
  EXPECT_THAT(text, HasSubstr("'-build_id=repro_mace_"));

  const int maced_builds = checkout_.invocations("build");
  const auto ran = run_script(script, dir_.file("work"));
  EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("mace repro: verdict fail: 4498250 : Simulation -> FAIL(HIT BAD TRAP)"));
  EXPECT_THAT(ran.out, HasSubstr("mace repro: reproduced"));
  EXPECT_EQ(checkout_.invocations("build"), maced_builds + 1) << "the script built once";
  EXPECT_THAT(read_file(dir_.file("work/run/sim.log")), HasSubstr("FAIL(HIT BAD TRAP)"));
  // Its model is its own; maced's is where it was.
  bool own_model = false;
  for (const auto& entry : std::filesystem::directory_iterator(checkout_.root() + "/build/manycore"))
    own_model = own_model || entry.path().filename().string().rfind("repro_mace_", 0) == 0;
  EXPECT_TRUE(own_model);

  // The checkout fixed (the define no longer breaks a run): not reproduced, exit 1.
  checkout_.set_control("run", "pass");
  const auto fixed = run_script(script, dir_.file("work2"));
  EXPECT_EQ(fixed.exit_code, 1) << fixed.out << fixed.err;
  EXPECT_THAT(fixed.err, HasSubstr("NOT reproduced"));
}

TEST_F(ReproTest, WithoutAWorkloadTheFirstFailureIsChosenAndJsonHasTheFacts) {
  const std::string id = failing_run();
  const auto json = maced_->mace({"--json", "repro", id});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr(R"("workload":"add.S")"));
  EXPECT_THAT(json.out, HasSubstr(R"("verdict":"fail")"));
  EXPECT_THAT(json.out, HasSubstr(R"("verdict_time":4498250)"));
  EXPECT_THAT(json.out, HasSubstr(R"("build_argv":["sims","-sys=manycore")"));
  EXPECT_THAT(json.out, HasSubstr("PITON_ROOT=" + checkout_.root()));
  EXPECT_THAT(json.out, ::testing::ContainsRegex(R"("checkout_commit":"[0-9a-f]{40}")"));
}

TEST_F(ReproTest, ANameThatMatchesNothingIsRefusedNamingTheField) {
  const std::string id = failing_run();
  auto r = maced_->mace({"repro", id, "--workload", "nosuch.S"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("workload: run " + id + " has no recorded a simulation of nosuch.S"));
  r = maced_->mace({"repro", id, "--task", "nosuch"});
  EXPECT_THAT(r.err, HasSubstr("taskId: "));
  r = maced_->mace({"repro", "no-such-run"});
  EXPECT_THAT(r.err, HasSubstr("no run named 'no-such-run'"));
  r = maced_->mace({"repro", id, "--iteration", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out, Not(HasSubstr("#!/bin/sh")));
}

}  // namespace
}  // namespace mace::testing

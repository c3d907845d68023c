// A regression over a diag group, end to end with a real maced and mace on the fixture
// checkout: with run_every_workload every gate workload of the task is simulated whatever
// the others gave, and the run's failures come back grouped by signature in `mace status`
// and its JSON. Without it the task stops at its first failure (REQ-VER-1).

#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class RegressionRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}]})");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
    for (const char* name : {"lw.S", "sw.S", "bne.S", "jal.S"})
      checkout_.write(std::string("piton/verif/diag/assembly/riscv/pico/") + name,
                      checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
    checkout_.set_control("run.lw", "fail");
    checkout_.set_control("run.bne", "fail");
    checkout_.set_control("run.jal", "maxcycles");
  }
  std::string run(const std::string& extra) {
    dir_.write("spec.json", R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
        "objective": "the pico diag group", "workloads": ["add.S", "lw.S", "sw.S", "bne.S", "jal.S"],
        "waveform": false)" +
                                extra + "}");
    auto submitted = maced_->mace({"submit", dir_.file("spec.json"), "--watch"});
    EXPECT_NE(submitted.exit_code, 0) << "the run must fail: " << submitted.out;
    return submitted.out.substr(0, submitted.out.find('\n'));
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(RegressionRunTest, EveryWorkloadRunsAndTheFailuresAreGroupedBySignature) {  // REQ-VER-5
  const std::string id = run(R"(, "run_every_workload": true)");
  EXPECT_EQ(checkout_.invocations("run"), 5);

  const auto json = maced_->mace({"status", id, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  // Every diag's verdict, in order.
  EXPECT_THAT(json.out, HasSubstr(R"("workload":"add.S","verdict":"pass")"));
  EXPECT_THAT(json.out, HasSubstr(R"("workload":"lw.S","verdict":"fail")"));
  EXPECT_THAT(json.out, HasSubstr(R"("workload":"sw.S","verdict":"pass")"));
  EXPECT_THAT(json.out, HasSubstr(R"("workload":"bne.S","verdict":"fail")"));
  EXPECT_THAT(json.out, HasSubstr(R"("workload":"jal.S","verdict":"maxcycles")"));
  // Two signatures: the two bad traps together, the largest group first.
  EXPECT_THAT(json.out,
              HasSubstr(R"j("failure_groups":[{"signature":"fail: N : Simulation -> FAIL(HIT BAD TRAP)",)j"
                        R"j("verdict":"fail","error_line":"4498250 : Simulation -> FAIL(HIT BAD TRAP)",)j"
                        R"j("workloads":[{"iteration":1,"task_id":"build","workload":"lw.S"},)j"
                        R"j({"iteration":1,"task_id":"build","workload":"bne.S"}]},)j"
                        R"j({"signature":"maxcycles: N : Simulation -> (terminated by reaching max cycles = N)")j"));
  EXPECT_THAT(json.out, HasSubstr(R"(: 4498250 : Simulation -> FAIL(HIT BAD TRAP)\n)"));  // the excerpt

  const auto human = maced_->mace({"status", id});
  EXPECT_THAT(human.out, HasSubstr("failures   3 workloads did not pass, 2 signatures\n"
                                   "  2 x fail: N : Simulation -> FAIL(HIT BAD TRAP)\n"
                                   "    iter1 build: lw.S bne.S\n"
                                   "    reproduce: mace repro " + id + " --iteration 1 --task build --workload lw.S -o repro.sh\n"
                                   "  1 x maxcycles: N : Simulation -> (terminated by reaching max cycles = N)\n"
                                   "    iter1 build: jal.S\n"
                                   "    reproduce: mace repro " + id + " --iteration 1 --task build --workload jal.S -o repro.sh\n"));
}

// Side by side, with every workload: the same verdicts and cycles, in the same order, as
// one at a time, whatever order the simulations end in (the later ones end first here).
TEST_F(RegressionRunTest, SideBySideTheVerdictsAndCyclesAreTheSerialOnes) {
  checkout_.set_control("run_sleep.add", "0.5");
  const std::string serial = run(R"(, "run_every_workload": true, "parallel_workloads": 1)");
  const std::string side_by_side = run(R"(, "run_every_workload": true, "parallel_workloads": 4)");
  auto results = [&](const std::string& id) {
    const std::string json = maced_->mace({"status", id, "--json"}).out;
    const auto at = json.find("\"results\":");
    return json.substr(at, json.find("\"waiting_for\"", at) - at);
  };
  std::string a = results(serial), b = results(side_by_side);
  // Wall times differ; everything else is equal.
  const std::regex wall(R"("wall_s":[0-9.e-]+)");
  EXPECT_EQ(std::regex_replace(a, wall, ""), std::regex_replace(b, wall, ""));
  EXPECT_THAT(b, HasSubstr(R"("workload":"add.S","verdict":"pass")"));
}

TEST_F(RegressionRunTest, WithoutItTheTaskStopsAtItsFirstFailure) {  // REQ-VER-1
  // One at a time, no later workload starts at all (side by side, later ones that started
  // are stopped and not reported: tests/executor/gate_workloads_test.cc).
  const std::string id = run(R"(, "parallel_workloads": 1)");
  EXPECT_EQ(checkout_.invocations("run"), 2);
  const auto human = maced_->mace({"status", id});
  EXPECT_THAT(human.out, HasSubstr("add.S=pass lw.S=fail\n"));
  EXPECT_THAT(human.out, Not(HasSubstr("sw.S=")));
  EXPECT_THAT(human.out, HasSubstr("failures   1 workload did not pass, 1 signature\n"));
}

}  // namespace
}  // namespace mace::testing

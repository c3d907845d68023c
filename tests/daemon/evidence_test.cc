// Each run owns its evidence, end to end with a real maced and mace on the fixture
// checkout: a run's build log and sim.log are its own copies, which a later run on the same
// model, the model's removal, an evaluation job's clean-up cannot change; a log over the
// per-log limit keeps its head and tail; the retention rule removes the oldest finished
// run's logs and `mace logs` says so. And mistakes fail fast: a misspelt workload is
// refused before it is queued, a workload that cannot run ends its run at once with the
// cause, a JSON error says where it is.

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/fixture_checkout.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

class EvidenceTest : public ::testing::Test {
 protected:
  void start(const std::string& evidence = "") {
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + checkout_.root() + R"("}])" +
                                 (evidence.empty() ? "" : ", \"evidence\": " + evidence) + "}");
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  std::string spec(const std::string& workloads, const std::string& extra = "") const {
    return R"({"core": "pico", "mesh": [1, 1], "backend": "direct", "objective": "build and run",
               "workloads": )" + workloads + extra + "}";
  }
  std::string submit(const std::string& workloads, const std::string& extra = "") {
    dir_.write("spec.json", spec(workloads, extra));
    auto r = maced_->mace({"submit", dir_.file("spec.json")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  ProcessResult watch(const std::string& id) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(120);
    return maced_->mace({"watch", id}, options);
  }
  std::string run(const std::string& workloads, const std::string& extra = "") {
    const std::string id = submit(workloads, extra);
    watch(id);
    return id;
  }
  ProcessResult logs(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"logs"};
    argv.insert(argv.end(), args.begin(), args.end());
    return maced_->mace(argv);
  }
  void add_diag(const std::string& name) {
    checkout_.write("piton/verif/diag/assembly/riscv/pico/" + name,
                    checkout_.read("piton/verif/diag/assembly/riscv/pico/add.S"));
  }
  void remove_mace_models() {
    for (const auto& entry : fs::directory_iterator(checkout_.root() + "/build/manycore"))
      if (entry.path().filename().string().rfind("mace_", 0) == 0) fs::remove_all(entry.path());
  }

  TempDir dir_;
  FixtureCheckout checkout_;
  std::unique_ptr<MacedInstance> maced_;
};

// The first run's logs, read after a second run on the same model and after every mace_*
// model directory is gone, are what they were when it ended.
TEST_F(EvidenceTest, ARunsLogsStayItsOwnAfterAnotherRunOnItsModelAndTheModelsRemoval) {
  start();
  add_diag("sub.S");
  const std::string a = run(R"(["add.S"])");
  const auto a_build = logs({a, "--build"});
  const auto a_sim = logs({a, "--sim", "add.S"});
  ASSERT_EQ(a_build.exit_code, 0) << a_build.err;
  ASSERT_EQ(a_sim.exit_code, 0) << a_sim.err;
  EXPECT_THAT(a_build.out, HasSubstr("sims: make -j -C ")) << "the build ran";
  EXPECT_THAT(a_sim.out, HasSubstr("HIT GOOD TRAP"));
  EXPECT_THAT(a_build.err, Not(HasSubstr("mace logs:"))) << "no warning: it is the run's own copy";

  const std::string b = run(R"(["sub.S"])");
  const auto b_build = logs({b, "--build"});
  EXPECT_THAT(b_build.out, Not(HasSubstr("sims: make -j -C "))) << "the second run reused the model";
  EXPECT_THAT(b_build.out, HasSubstr("reused in place"));
  EXPECT_NE(b_build.out, a_build.out);
  EXPECT_EQ(logs({a, "--build"}).out, a_build.out) << "the second run's transcript is not the first's";

  remove_mace_models();
  EXPECT_EQ(logs({a, "--build"}).out, a_build.out);
  EXPECT_EQ(logs({a, "--sim", "add.S"}).out, a_sim.out);
  EXPECT_EQ(logs({b, "--sim", "sub.S", "--tail", "1"}).exit_code, 0);
  // Where they are: the run's own directory under the state directory.
  EXPECT_TRUE(fs::exists(maced_->state_dir() + "/runs/" + a + "/iter1/build/build.log"));
  EXPECT_TRUE(fs::exists(maced_->state_dir() + "/runs/" + a + "/iter1/build/sims/add.S/sim.log"));
  const auto list = logs({a, "--list"});
  EXPECT_THAT(list.out, HasSubstr("iter1 build  build log"));
  EXPECT_THAT(list.out, HasSubstr("iter1 build  sim.log add.S"));
}

// REQ-EVAL-4 removes models before each job: the logs of runs that used them stay.
TEST_F(EvidenceTest, AnEvaluationJobsModelRemovalLeavesEarlierRunsLogs) {
  start();
  const std::string a = run(R"(["add.S"])");
  const auto before = logs({a, "--sim", "add.S"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  dir_.write("suite.json", R"({"suite": "one", "tasks": [{"id": "add", "expert": {},
      "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "objective": "o", "backend": "direct"}}]})");
  auto batch = maced_->mace({"eval", "submit", dir_.file("suite.json"), "--methods", "mace"});
  ASSERT_EQ(batch.exit_code, 0) << batch.err;
  const std::string id = batch.out.substr(0, batch.out.find('\n'));
  ASSERT_TRUE(eventually([&] { return maced_->mace({"eval", "status", id}).out.find("): done, ") != std::string::npos; },
                         std::chrono::seconds(120)));
  const std::string listed = maced_->mace({"list", "--json", "--limit", "1"}).out;
  const auto at = listed.find("\"run_id\":\"") + 10;
  const std::string job_run = listed.substr(at, listed.find('"', at) - at);
  ASSERT_NE(job_run, a);
  EXPECT_THAT(logs({job_run}).out, HasSubstr("removed 1 mace_* model directory before the job"));
  EXPECT_EQ(logs({a, "--sim", "add.S"}).out, before.out);
  EXPECT_THAT(logs({a, "--build"}).out, HasSubstr("sims: make -j -C "));
}

TEST_F(EvidenceTest, ALogOverTheLimitKeepsItsHeadAndTailAndSaysWhatWasCut) {
  start(R"({"max_log_mb": 1})");
  checkout_.set_control("run", "huge");
  checkout_.set_control("huge_mb", "3");
  const std::string id = run(R"(["add.S"])");
  const auto sim = logs({id, "--sim", "add.S"});
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_LE(sim.out.size(), (1u << 20) + 512);
  EXPECT_GT(sim.out.size(), (1u << 20) - 2 * 65536);
  EXPECT_THAT(sim.out, HasSubstr("bytes cut here. The log was "));
  EXPECT_THAT(sim.out, HasSubstr("(evidence.max_log_mb)"));
  EXPECT_THAT(sim.out, HasSubstr("Started\nVcmp_top created")) << "its head";
  EXPECT_THAT(sim.out, HasSubstr("Simulation -> PASS (HIT GOOD TRAP)")) << "its tail";
  const auto tail = logs({id, "--sim", "add.S", "--tail", "2"});
  EXPECT_THAT(tail.out, HasSubstr("PASS (HIT GOOD TRAP)"));
  // Kept compressed: far less on disk than it holds.
  const auto list = logs({id, "--list"});
  EXPECT_THAT(list.out, HasSubstr("cut from its middle"));
  EXPECT_THAT(list.out, HasSubstr("(compressed)"));
  EXPECT_TRUE(fs::exists(maced_->state_dir() + "/runs/" + id + "/iter1/build/sims/add.S/sim.log.gz"));
}

// The directories in `model`'s runs/ of the checkout (`<workload>-<n>`).
std::vector<std::string> run_directories(const FixtureCheckout& checkout) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& model : fs::directory_iterator(checkout.root() + "/build/manycore", ec))
    for (const auto& run : fs::directory_iterator(model.path() / "runs", ec)) names.push_back(run.path().filename());
  return names;
}

// A checkout keeps no simulation of a run that ended: its sim.log is kept with the run,
// and the run's log says what left the checkout. Before, every simulation ever run stayed.
TEST_F(EvidenceTest, ARunsSimulationDirectoriesLeaveTheCheckoutWhenItEndsAndItsLogSaysSo) {
  start();
  add_diag("sub.S");
  const std::string id = run(R"(["add.S", "sub.S"])");
  EXPECT_THAT(maced_->mace({"status", id}).out, HasSubstr("passed"));
  EXPECT_THAT(run_directories(checkout_), ::testing::IsEmpty());
  EXPECT_THAT(logs({id}).out, HasSubstr("removed 2 simulation directories ("));
  EXPECT_THAT(logs({id}).out, HasSubstr(") from the checkouts; their logs are kept with the run"));
  EXPECT_THAT(logs({id, "--sim", "sub.S"}).out, HasSubstr("HIT GOOD TRAP")) << "the kept copy is served";
}

TEST_F(EvidenceTest, WithKeepRunDirsTheSimulationDirectoriesStay) {
  start(R"({"keep_run_dirs": true})");
  const std::string id = run(R"(["add.S"])");
  EXPECT_THAT(run_directories(checkout_), ::testing::ElementsAre("add.S-1"));
  EXPECT_THAT(logs({id}).out, Not(HasSubstr("simulation director")));
}

// A design printing without end fills no disk: its simulation stops at the limit and the
// run fails saying why. The fake sims writes 64 MiB; the limit is 8.
TEST_F(EvidenceTest, ASimulationWritingPastTheOutputLimitIsStoppedAndFailsSayingSo) {
  start(R"({"max_sim_output_mb": 8})");
  checkout_.set_control("run", "huge");
  checkout_.set_control("huge_mb", "64");
  const std::string id = run(R"(["add.S"])");
  const auto status = maced_->mace({"status", id});
  EXPECT_THAT(status.out, Not(HasSubstr("passed"))) << status.out;
  const auto shown = maced_->mace({"--json", "status", id});
  EXPECT_THAT(shown.out, HasSubstr("sim.log reached the limit on a simulation's output (8 MiB, "
                                   "evidence.max_sim_output_mb in maced's configuration)"))
      << shown.out;
  EXPECT_THAT(run_directories(checkout_), ::testing::IsEmpty()) << "and its directory left the checkout";
  EXPECT_THAT(logs({id, "--list"}).out, HasSubstr("sim.log add.S  8.0 MiB")) << "what it wrote, kept";
  EXPECT_THAT(logs({id}).out, HasSubstr("removed 1 simulation directory ("));
}

TEST_F(EvidenceTest, TheRetentionRuleRemovesTheOldestFinishedRunsLogsAndLogsSaysSo) {
  start(R"({"max_mb": 1, "keep_recent_hours": 0})");
  checkout_.set_control("noise_kb", "700");  // a sim.log no compressor shrinks below the limit
  const std::string a = run(R"(["add.S"])");
  ASSERT_EQ(logs({a, "--sim", "add.S", "--tail", "1"}).exit_code, 0);
  const std::string b = run(R"(["add.S"])");
  const std::string c = run(R"(["add.S"])");
  const auto removed = logs({a, "--sim", "add.S"});
  EXPECT_EQ(removed.exit_code, 2);
  EXPECT_THAT(removed.err, HasSubstr("the sim.log of add.S (iteration 1, task build) was removed by the "
                                     "retention rule on "));
  EXPECT_THAT(removed.err, HasSubstr("above evidence.max_mb (1 MiB)"));
  EXPECT_THAT(removed.err, Not(HasSubstr("(yet)")));
  EXPECT_THAT(logs({a}).out, HasSubstr("the retention rule removed this run's 2 kept log files"));
  EXPECT_THAT(logs({a, "--list"}).out, HasSubstr("removed by the retention rule on"));
  EXPECT_FALSE(fs::exists(maced_->state_dir() + "/runs/" + a));
  EXPECT_EQ(logs({c, "--sim", "add.S", "--tail", "1"}).exit_code, 0) << "the newest run keeps its logs";
  (void)b;
}

// The run's copy is made when its simulation ends; a follower that was reading the log as
// it was written reads on from the copy, to the end.
TEST_F(EvidenceTest, FollowingALogReadsItWhileWrittenAndOnFromTheRunsCopy) {
  start();
  checkout_.set_control("run_sleep", "2");
  const std::string id = submit(R"(["add.S"])");
  ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  const auto followed = maced_->mace({"logs", id, "--sim", "add.S", "--follow"}, options);
  ASSERT_EQ(followed.exit_code, 0) << followed.err;
  EXPECT_EQ(followed.out, logs({id, "--sim", "add.S"}).out);
  EXPECT_THAT(followed.out, EndsWith("Verilog $finish\n"));
}

TEST_F(EvidenceTest, AMisspeltWorkloadIsRefusedBySpecCheckAndSubmitNamingItAndWhereItWasLooked) {
  start();
  dir_.write("helo.json", spec(R"(["helo"])"));
  for (const std::string command : {"spec", "submit"}) {
    std::vector<std::string> argv = command == "spec" ? std::vector<std::string>{"spec", "check", dir_.file("helo.json")}
                                                      : std::vector<std::string>{"submit", dir_.file("helo.json")};
    const auto r = maced_->mace(argv);
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_THAT(r.err, HasSubstr("workloads[0]: workload 'helo' for core pico: no such program (looked for " +
                                 source_root() + "/workloads/helo.c)"))
        << command;
  }
  dir_.write("addd.json", spec(R"(["add.S", "addd.S"])"));
  const auto diag = maced_->mace({"submit", dir_.file("addd.json")});
  EXPECT_EQ(diag.exit_code, 2);
  EXPECT_THAT(diag.err, HasSubstr("workloads[1]: workload 'addd.S': no diag of that name under " +
                                  checkout_.root() + "/piton/verif/diag"));
  EXPECT_THAT(maced_->mace({"list", "--json"}).out, Not(HasSubstr("helo"))) << "nothing was queued";
  // The spec's own fields are checked without maced, which is said.
  const auto offline = run_process({mace_binary(), "--socket", dir_.file("none.sock"), "spec", "check",
                                    dir_.file("helo.json")});
  EXPECT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_THAT(offline.err, HasSubstr("gate workloads, tools and backend were not checked"));
}

TEST_F(EvidenceTest, AJsonErrorInASpecSaysItsLineAndColumn) {
  start();
  dir_.write("bad.json", "{\n  \"core\": \"pico\",\n  \"workloads\": [\"add.S\"]\n  \"objective\": \"x\"\n}\n");
  for (const std::string command : {"check", "submit"}) {
    const auto r = command == "check" ? maced_->mace({"spec", "check", dir_.file("bad.json")})
                                      : maced_->mace({"submit", dir_.file("bad.json")});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr("invalid JSON at line 4, column 3: expected ',' or '}' after a member's "
                                 "value, found '\"' (a comma missing before it?)"))
        << command;
  }
}

// A workload that was there at submit and is gone when the run starts: sims cannot find it
// on any model, so the direct planner's run ends after its first iteration, with the cause.
TEST_F(EvidenceTest, AWorkloadThatCannotRunEndsTheRunAtOnceWithTheCauseAsItsReason) {
  start();
  add_diag("gone.S");
  checkout_.set_control("build_sleep", "2");
  const std::string busy = submit(R"(["add.S"])");  // holds the only checkout a while
  const std::string id = submit(R"(["gone.S"])", R"(, "budget": {"max_iterations": 10})");
  fs::remove(checkout_.root() + "/piton/verif/diag/assembly/riscv/pico/gone.S");
  EXPECT_EQ(watch(id).exit_code, 1);
  const auto status = maced_->mace({"status", id, "--json"});
  EXPECT_THAT(status.out, HasSubstr("\"state\":\"failed\""));
  EXPECT_THAT(status.out, HasSubstr("\"iterations\":1,"));
  EXPECT_THAT(status.out, HasSubstr("no diag with name gone.S found"));
  EXPECT_THAT(status.out, HasSubstr("no plan can change this"));
  EXPECT_THAT(status.out, HasSubstr("\"failure_reason\":\"workload_not_found\""));
  watch(busy);
}

// The direct planner's runs say what they did and did not try, wherever their outcome is.
TEST_F(EvidenceTest, ADirectPlannersRunSaysItDidNotTryTheObjective) {
  start();
  const std::string id = run(R"(["add.S"])");
  EXPECT_THAT(maced_->mace({"status", id}).out,
              HasSubstr("planner    direct planner: built the spec's designs (without any, its core and "
                        "mesh with OpenPiton's defaults) and ran the gate workloads; it did not try to meet "
                        "the objective"));
  EXPECT_THAT(maced_->mace({"list"}).out, HasSubstr(id + " passed (direct)"));
  EXPECT_THAT(maced_->mace({"status", id, "--json"}).out, HasSubstr("\"planner\":\"direct\""));
  EXPECT_THAT(maced_->mace({"watch", id}).out, HasSubstr("\"planner\":\"direct\""));
}

}  // namespace
}  // namespace mace::testing

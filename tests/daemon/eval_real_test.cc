// Evaluation batches on a real, patched OpenPiton checkout named by MACE_TEST_PITON_ROOT
// (skipped without one): a two-task pico batch with the mace method (direct planner), then
// the single-shot baseline (its LLM the fake Vertex server) and the fault checks of the
// shipped suite's two pico faults, each verified here to break the design.
//
//   MACE_TEST_PITON_ROOT=/path/to/openpiton meson test -C build eval_real
//
// Models are kept between jobs (--keep-models) so a configuration is built once: four
// pico 1x1 builds in all (defaults, the doubled L1D, each fault). A second test runs a
// co-design search on a 2x1 pico mesh: two pico 2x1 builds, the 2D mesh and the crossbar;
// a third a build-only check on the default pico 1x1 (REQ-EVAL-7).

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/checkout_files.h"
#include "support/maced_instance.h"
#include "support/real_checkout.h"

namespace mace::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using mace::llm::testing::FakeVertexServer;

// The shipped suite's pico faults (docs/evaluation/suite.json) on two 1x1 tasks with the
// same expert configuration, so each faulted model is built once. REQ-EVAL-11: each task
// names the faults its gate workloads catch.
constexpr const char* kSuite = R"({"suite": "real-pico",
  "faults": [
    {"name": "pico_l15_3way", "kind": "config", "cores": ["pico"], "meshes": [[1, 1]],
     "config": {"caches": {"l15": {"size": 8192, "associativity": 3}}}},
    {"name": "pico_alu_sub_adds", "kind": "source", "cores": ["pico"], "meshes": [[1, 1]],
     "edits": [{"path": "piton/design/chip/tile/pico/rtl/picorv32.v",
                "old": "alu_add_sub = instr_sub ? reg_op1 - reg_op2",
                "new": "alu_add_sub = instr_sub ? reg_op1 + reg_op2"}]}],
  "tasks": [
    {"id": "hello", "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["hello"],
       "objective": "Double the L1D of a 1x1 PicoRV32 tile without breaking hello",
       "budget": {"max_iterations": 2, "max_usd": 1.0, "max_wall_s": 3600}},
     "expert": {"caches": {"l1d": {"size": 16384, "associativity": 4}}},
     "faults": ["pico_alu_sub_adds"]},
    {"id": "memstress", "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
       "objective": "Double the L1D of a 1x1 PicoRV32 tile without breaking hello or memstress",
       "budget": {"max_iterations": 2, "max_usd": 1.0, "max_wall_s": 3600}},
     "expert": {"caches": {"l1d": {"size": 16384, "associativity": 4}}},
     "faults": ["pico_l15_3way", "pico_alu_sub_adds"]}]})";

// A budget only the smallest geometry of the search fits (l1d 4 KiB, l1.5 4 KiB, l2 32 KiB:
// 66.1 of the area model's units; the next is 70.8), so the search is that geometry on the
// 2D mesh and on the crossbar.
constexpr const char* kCodesignSuite = R"({"suite": "real-codesign",
  "tasks": [
    {"id": "mesh2x1", "spec": {"core": "pico", "mesh": [2, 1], "workloads": ["hello", "memstress"],
       "objective": "Find the smallest caches a 2x1 PicoRV32 mesh passes hello and memstress with",
       "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}},
     "expert": {}, "area_budget": 67}]})";

// A build-only check (REQ-EVAL-7) on the default pico 1x1: the run passes on its build, and
// the harness then simulates hello and memstress on the model it accepted.
constexpr const char* kBuildOnlySuite = R"({"suite": "real-build-only",
  "tasks": [
    {"id": "build-only", "spec": {"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
       "objective": "Check that the default 1x1 PicoRV32 tile builds",
       "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600},
       "options": {"build_only": true}},
     "expert": {}}]})";

class EvalRealTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto root = real_checkout_root();
    if (!root)
      GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: this test needs a real OpenPiton "
                      "checkout patched with scripts/patch_openpiton.sh";
    root_ = *root;
    status_before_ = git_status(root_);
    dir_.write("maced.json", R"({"checkouts": [{"path": ")" + root_ + R"("}]})");
    dir_.write("suite.json", kSuite);
    dir_.write("codesign.json", kCodesignSuite);
    dir_.write("build-only.json", kBuildOnlySuite);
    MacedOptions options;
    options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                          source_root() + "/workloads"};
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    maced_ = std::make_unique<MacedInstance>(dir_, options);
  }
  void TearDown() override {
    maced_.reset();
    if (!root_.empty()) EXPECT_EQ(git_status(root_), status_before_) << "the checkout was left changed";
  }
  std::string submit(std::vector<std::string> args, const std::string& suite = "suite.json") {
    std::vector<std::string> argv = {"eval", "submit", dir_.file(suite), "--keep-models"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = maced_->mace(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  bool wait_done(const std::string& batch) {
    return eventually(
        [&] { return maced_->mace({"eval", "status", batch}).out.find("): done, ") != std::string::npos; },
        std::chrono::minutes(40));
  }

  std::string root_;
  std::string status_before_;
  TempDir dir_;
  FakeVertexServer vertex_;
  std::unique_ptr<MacedInstance> maced_;
};

// REQ-EVAL-2, 5, 6, 9, 11, 12 on real hardware models.
TEST_F(EvalRealTest, ATwoTaskPicoBatchPassesAndRealFaultsAreCaught) {
  auto started = std::chrono::steady_clock::now();
  std::string mace = submit({"--methods", "mace", "--backend", "direct"});
  ASSERT_TRUE(wait_done(mace)) << maced_->mace({"eval", "status", mace}).out;
  auto results = maced_->mace({"eval", "results", mace, "--csv"}).out;
  std::cout << results;
  // The direct planner did not try the objective: its gate passes are counted, no success rate.
  EXPECT_THAT(results, HasSubstr("hello,mace (direct),,1,1,,"));
  EXPECT_THAT(results, HasSubstr("memstress,mace (direct),,1,1,,"));

  for (int i = 0; i < 2; ++i)
    vertex_.push(FakeVertexServer::text(
        "TASK: bigger | deps= | kind=config | double the L1D\nCACHES: bigger | l1d=16384,4\n",
        {800, 60, 0}));
  std::string others = submit({"--methods", "baseline,fault_check", "--backend", "vertex", "--seed", "5"});
  ASSERT_TRUE(wait_done(others)) << maced_->mace({"eval", "status", others}).out;
  results = maced_->mace({"eval", "results", others, "--csv"}).out;
  std::cout << results << maced_->mace({"eval", "results", others}).out;
  EXPECT_THAT(results, HasSubstr("hello,baseline,,1,1,1.0000"));
  EXPECT_THAT(results, HasSubstr("memstress,baseline,,1,1,1.0000"));
  // Every real fault caught: the ALU fault fails hello, the 3-way L1.5 fails memstress
  // (hello passes on it, so only the memstress task names it).
  EXPECT_THAT(results, HasSubstr("hello,fault_check,pico_alu_sub_adds,1,1,1.0000"));
  EXPECT_THAT(results, HasSubstr("memstress,fault_check,pico_alu_sub_adds,1,1,1.0000"));
  EXPECT_THAT(results, HasSubstr("memstress,fault_check,pico_l15_3way,1,1,1.0000"));
  EXPECT_EQ(vertex_.requests().size(), 2u);  // one call per baseline job, none for a fault check
  auto json = maced_->mace({"eval", "results", others, "--json"}).out;
  EXPECT_THAT(json, ContainsRegex("\"verilator\":\"Verilator 5"));
  std::cout << "eval_real: both batches in "
            << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count()
            << " s\n";
  // REQ-EVAL-12: the source fault is out of the checkout (TearDown compares git status).
  EXPECT_THAT(read_file(root_ + "/piton/design/chip/tile/pico/rtl/picorv32.v"),
              HasSubstr("alu_add_sub = instr_sub ? reg_op1 - reg_op2"));
}

// REQ-EVAL-8 on real hardware models: the search builds the mesh and the crossbar of the
// same caches (sims -network_config=xbar_config), runs both gate workloads on every tile of
// each, and records each design with its network.
TEST_F(EvalRealTest, ACodesignSearchBuildsThePicoMeshAndTheCrossbar) {
  std::string batch = submit({"--methods", "codesign", "--backend", "direct"}, "codesign.json");
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  auto results = maced_->mace({"eval", "results", batch, "--csv"}).out;
  std::cout << results;
  // One job; a feasible design found; two designs evaluated.
  EXPECT_THAT(results, ContainsRegex("mesh2x1,codesign,,1,1,1\\.0000,[^\\r]*,2,true\r\n"));
  auto json = maced_->mace({"eval", "results", batch, "--json"}).out;
  std::smatch run;
  ASSERT_TRUE(std::regex_search(json, run, std::regex("\"run_id\":\\s*\"([^\"]+)\""))) << json;
  auto status = maced_->mace({"status", run[1].str(), "--json"}).out;
  EXPECT_THAT(status, ContainsRegex("\"task_id\":\\s*\"d1\"[^}]*\"network\":\\s*\"\""));
  EXPECT_THAT(status, ContainsRegex("\"task_id\":\\s*\"d2\"[^}]*\"network\":\\s*\"xbar_config\""));
  auto text = maced_->mace({"status", run[1].str()}).out;
  std::cout << text;
  EXPECT_THAT(text, ContainsRegex("d1 \\[config\\] passed[^\n]* hello=pass memstress=pass"));
  EXPECT_THAT(text, ContainsRegex("d2 \\[config\\] passed[^\n]* network xbar_config hello=pass memstress=pass"));
}

// REQ-EVAL-7 on a real model: after the build-only run passed, each gate workload ran on
// the design it accepted, and the verdicts were recorded with the job.
TEST_F(EvalRealTest, ABuildOnlyRunsDesignIsSimulatedAfterItPasses) {
  std::string batch = submit({"--methods", "mace", "--backend", "direct"}, "build-only.json");
  ASSERT_TRUE(wait_done(batch)) << maced_->mace({"eval", "status", batch}).out;
  auto json = maced_->mace({"eval", "results", batch, "--json"}).out;
  std::cout << json;
  EXPECT_THAT(json, ContainsRegex("\"run_state\":\\s*\"passed\""));
  EXPECT_THAT(json, ContainsRegex("\"hello\":\\s*\"pass\",\\s*\"memstress\":\\s*\"pass\""));
  EXPECT_THAT(maced_->mace({"eval", "results", batch, "--csv"}).out, HasSubstr("build-only,mace (direct),,1,1,,"));
}

}  // namespace
}  // namespace mace::testing

// run_gate_workloads: one call per gate workload, stopping at the first failure unless the
// run asked for every workload (run_every_workload), and what the task then reports.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "executor/task_calls.h"

namespace mace::executor {
namespace {

using ::testing::ElementsAre;

// Answers each workload's call as a test scripted it: pass, or a failure of some kind.
class ScriptedCalls final : public TaskCalls {
 public:
  std::map<std::string, std::string> outcome;  // by workload: pass, fail, not_found, node_failure
  std::vector<std::string> called;

  BuildCall build(const TaskCallSite&, const openpiton::Checkout&,
                  const openpiton::BuildConfig&, const openpiton::BuildOptions&) override {
    return {};
  }
  WorkloadCall run_workload(const TaskCallSite&, std::size_t,
                            const openpiton::SimulationRequest& request) override {
    const std::string& w = request.workloads.front();
    called.push_back(w);
    const std::string o = outcome.count(w) ? outcome[w] : "pass";
    WorkloadCall call;
    call.status_log = "Diag: " + w + " " + o;
    openpiton::WorkloadRunResult run;
    run.workload = w;
    run.passed = o == "pass";
    run.verdict = run.passed ? openpiton::Verdict::pass : openpiton::Verdict::fail;
    if (o == "not_found") run.cannot_run = openpiton::Failure::workload_not_found;
    if (o == "node_failure") run.host_stop = os::HostStop::node_failure;
    call.result.runs.push_back(run);
    call.result.passed = run.passed;
    if (!run.passed) {
      call.result.failure_reason = o == "fail"        ? openpiton::Failure::workload_failed
                                   : o == "not_found" ? openpiton::Failure::workload_not_found
                                                      : openpiton::Failure::node_failure;
      call.result.failure_detail = w + " " + o;
    }
    return call;
  }
};

// The smallest directory Checkout takes for one: nothing here runs in it.
std::filesystem::path minimal_checkout() {
  std::string pattern = (std::filesystem::temp_directory_path() / "mace-gate.XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  const std::filesystem::path root = pattern;
  std::filesystem::create_directories(root / "piton/tools/bin");
  std::ofstream(root / "piton/piton_settings.bash") << "";
  std::ofstream(root / "piton/tools/bin/sims") << "#!/bin/sh\n";
  return root;
}

class GateWorkloadsTest : public ::testing::Test {
 protected:
  ~GateWorkloadsTest() override { std::filesystem::remove_all(root); }
  std::filesystem::path root = minimal_checkout();
  ScriptedCalls calls;
  openpiton::Checkout checkout{root};
  openpiton::SimulationRequest request{.checkout = checkout, .build_id = "b",
                                       .workloads = {"a", "b", "c", "d"}};
  WorkloadCall run() { return run_gate_workloads(calls, {1, "t"}, request); }
};

TEST_F(GateWorkloadsTest, StopsAtTheFirstFailureByDefault) {  // REQ-VER-1
  calls.outcome = {{"b", "fail"}, {"c", "fail"}};
  const WorkloadCall all = run();
  EXPECT_THAT(calls.called, ElementsAre("a", "b"));
  EXPECT_FALSE(all.result.passed);
  EXPECT_EQ(all.result.failure_detail, "b fail");
  EXPECT_EQ(all.status_log, "Diag: b fail");
}

TEST_F(GateWorkloadsTest, RunEveryWorkloadRunsThemAllAndTheFirstFailureDecides) {
  request.run_every_workload = true;
  calls.outcome = {{"b", "fail"}, {"c", "fail"}};
  const WorkloadCall all = run();
  EXPECT_THAT(calls.called, ElementsAre("a", "b", "c", "d"));
  EXPECT_EQ(all.result.runs.size(), 4u);
  EXPECT_FALSE(all.result.passed);
  EXPECT_EQ(all.result.failure_reason, openpiton::Failure::workload_failed);
  EXPECT_EQ(all.result.failure_detail, "b fail");
  EXPECT_EQ(all.status_log, "Diag: b fail");
}

TEST_F(GateWorkloadsTest, AWorkloadNoDesignCanRunDecidesOverADesignsFailure) {
  request.run_every_workload = true;
  calls.outcome = {{"a", "fail"}, {"c", "not_found"}};
  const WorkloadCall all = run();
  EXPECT_EQ(calls.called.size(), 4u);
  EXPECT_EQ(all.result.failure_reason, openpiton::Failure::workload_not_found);
  EXPECT_EQ(all.status_log, "Diag: c not_found");
}

TEST_F(GateWorkloadsTest, TheInfrastructureStillStopsEverything) {
  request.run_every_workload = true;
  calls.outcome = {{"a", "fail"}, {"b", "node_failure"}};
  const WorkloadCall all = run();
  EXPECT_THAT(calls.called, ElementsAre("a", "b"));
  EXPECT_EQ(all.result.failure_reason, openpiton::Failure::node_failure);
}

TEST_F(GateWorkloadsTest, EveryPassIsAPassWithTheLastStatusLog) {
  request.run_every_workload = true;
  const WorkloadCall all = run();
  EXPECT_TRUE(all.result.passed);
  EXPECT_EQ(all.status_log, "Diag: d pass");
}

}  // namespace
}  // namespace mace::executor

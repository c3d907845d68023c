// run_gate_workloads: one call per gate workload, stopping at the first failure unless the
// run asked for every workload (run_every_workload), and what the task then reports; side
// by side, the same outcome whatever order the simulations end in.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "executor/gate_workloads.h"
#include "os/cancel_token.h"

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

// Scripted as ScriptedCalls, from several threads at once: each workload takes the time the
// test gives it (or until its cancel token fires: then it is a cancelled run), and the
// calls record when they started and how many ran at once.
class TimedCalls final : public TaskCalls {
 public:
  std::map<std::string, std::string> outcome;
  std::map<std::string, int> millis;  // how long each takes; default 0
  std::map<std::string, std::int64_t> peak_rss;  // what each says it took at its peak
  std::vector<std::string> started, cancelled;
  std::map<std::string, int> running_with;  // how many ran, itself included, as each started
  int at_once = 0, most_at_once = 0;

  BuildCall build(const TaskCallSite&, const openpiton::Checkout&, const openpiton::BuildConfig&,
                  const openpiton::BuildOptions&) override {
    return {};
  }
  WorkloadCall run_workload(const TaskCallSite&, std::size_t, const openpiton::SimulationRequest& request) override {
    const std::string w = request.workloads.front();
    {
      std::lock_guard lock(mutex_);
      started.push_back(w);
      most_at_once = std::max(most_at_once, ++at_once);
      running_with[w] = at_once;
    }
    const int ms = millis.count(w) ? millis.at(w) : 0;
    const bool stopped = request.cancel && request.cancel->wait_for(std::chrono::milliseconds(ms));
    WorkloadCall call;
    openpiton::WorkloadRunResult run;
    run.workload = w;
    run.peak_rss_bytes = peak_rss.count(w) ? peak_rss.at(w) : 0;
    std::lock_guard lock(mutex_);
    --at_once;
    const std::string o = stopped ? "cancelled" : outcome.count(w) ? outcome.at(w) : "pass";
    if (stopped) cancelled.push_back(w);
    run.passed = o == "pass";
    run.cancelled = stopped;
    run.verdict = run.passed ? openpiton::Verdict::pass : openpiton::Verdict::fail;
    call.result.runs.push_back(run);
    call.result.passed = run.passed;
    call.status_log = "Diag: " + w + " " + o;
    if (!run.passed) {
      call.result.failure_reason = stopped ? openpiton::Failure::cancelled : openpiton::Failure::workload_failed;
      call.result.failure_detail = w + " " + o;
    }
    return call;
  }

 private:
  std::mutex mutex_;
};

class SideBySideTest : public ::testing::Test {
 protected:
  ~SideBySideTest() override { std::filesystem::remove_all(root); }
  std::vector<std::string> reported;
  WorkloadCall run(std::size_t at_once) { return run({.at_once = at_once}); }
  WorkloadCall run(SideBySideLimit limit) {
    return run_gate_workloads(calls, {1, "t"}, request,
                              [this](const openpiton::WorkloadRunResult& r) { reported.push_back(r.workload); },
                              limit);
  }
  std::filesystem::path root = minimal_checkout();
  TimedCalls calls;
  os::CancelToken run_cancel;
  openpiton::Checkout checkout{root};
  openpiton::SimulationRequest request{.checkout = checkout, .build_id = "b", .workloads = {"a", "b", "c", "d"},
                                       .cancel = &run_cancel};
};

std::vector<std::string> workloads_of(const WorkloadCall& call) {
  std::vector<std::string> out;
  for (const auto& r : call.result.runs) out.push_back(r.workload);
  return out;
}

// REQ-VER-1: a later workload that ends first does not change what is reported.
TEST_F(SideBySideTest, ResultsAreTakenInTheSpecsOrderWhateverOrderTheyEnd) {
  calls.millis = {{"a", 300}, {"b", 150}, {"c", 100}, {"d", 100}};
  const WorkloadCall all = run(4);
  EXPECT_TRUE(all.result.passed);
  EXPECT_EQ(calls.most_at_once, 4);
  EXPECT_THAT(reported, ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(workloads_of(all), ElementsAre("a", "b", "c", "d"));
  EXPECT_EQ(all.status_log, "Diag: d pass");
}

// REQ-VER-1: an earlier workload failing while later ones run: the later ones are stopped
// and not reported; the failure is the earlier one's.
TEST_F(SideBySideTest, AnEarlierFailureStopsTheLaterOnesAndOnlyItIsReported) {
  calls.outcome = {{"b", "fail"}};
  calls.millis = {{"b", 100}, {"c", 5000}, {"d", 5000}};
  const auto started = std::chrono::steady_clock::now();
  const WorkloadCall all = run(4);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4)) << "c and d were stopped";
  EXPECT_FALSE(all.result.passed);
  EXPECT_EQ(all.result.failure_reason, openpiton::Failure::workload_failed);
  EXPECT_EQ(all.result.failure_detail, "b fail");
  EXPECT_THAT(reported, ElementsAre("a", "b"));
  EXPECT_THAT(workloads_of(all), ElementsAre("a", "b"));
  EXPECT_THAT(calls.cancelled, ::testing::UnorderedElementsAre("c", "d"));
}

// A later one that fails first while an earlier one still runs: the earlier one's pass is
// reported, then the later failure decides.
TEST_F(SideBySideTest, ALaterFailureEndingFirstWaitsForTheEarlierVerdicts) {
  calls.outcome = {{"c", "fail"}};
  calls.millis = {{"a", 200}, {"d", 5000}};
  const WorkloadCall all = run(4);
  EXPECT_THAT(reported, ElementsAre("a", "b", "c"));
  EXPECT_EQ(all.result.failure_detail, "c fail");
  EXPECT_THAT(calls.cancelled, ElementsAre("d"));
}

TEST_F(SideBySideTest, WithEveryWorkloadEveryVerdictIsReported) {
  request.run_every_workload = true;
  calls.outcome = {{"a", "fail"}, {"c", "fail"}};
  calls.millis = {{"a", 100}};
  const WorkloadCall all = run(2);
  EXPECT_LE(calls.most_at_once, 2);
  EXPECT_THAT(reported, ElementsAre("a", "b", "c", "d"));
  EXPECT_EQ(all.result.failure_detail, "a fail") << "the first failure decides";
  EXPECT_TRUE(calls.cancelled.empty());
}

TEST_F(SideBySideTest, TheRunsCancelStopsEverySimulationUnderWay) {
  calls.millis = {{"a", 5000}, {"b", 5000}, {"c", 5000}, {"d", 5000}};
  std::thread canceller([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    run_cancel.cancel();
  });
  const auto started = std::chrono::steady_clock::now();
  const WorkloadCall all = run(3);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
  EXPECT_FALSE(all.result.passed);
  EXPECT_EQ(all.result.failure_reason, openpiton::Failure::cancelled);
  EXPECT_THAT(calls.started, ::testing::UnorderedElementsAre("a", "b", "c")) << "d never started";
}

TEST_F(SideBySideTest, OneAtATimeIsTheSerialLoop) {
  calls.outcome = {{"b", "fail"}};
  const WorkloadCall all = run(1);
  EXPECT_EQ(calls.most_at_once, 1);
  EXPECT_THAT(calls.started, ElementsAre("a", "b"));
  EXPECT_EQ(all.result.failure_detail, "b fail");
}

constexpr std::int64_t kMiB = 1024 * 1024;

TEST(SimulationsAtOnce, AreTheCapUntilAFootprintIsKnownThenWhatMemoryHolds) {
  EXPECT_EQ(simulations_at_once({.at_once = 8, .memory_bytes = 1000 * kMiB}, 0), 8u);
  EXPECT_EQ(simulations_at_once({.at_once = 8, .memory_bytes = 1000 * kMiB}, 300 * kMiB), 3u);
  EXPECT_EQ(simulations_at_once({.at_once = 2, .memory_bytes = 1000 * kMiB}, 100 * kMiB), 2u);
  EXPECT_EQ(simulations_at_once({.at_once = 8, .memory_bytes = 1000 * kMiB}, 4000 * kMiB), 1u)
      << "one always runs, however big";
  EXPECT_EQ(simulations_at_once({.at_once = 8, .memory_bytes = 0}, 4000 * kMiB), 8u) << "memory not bounded";
  EXPECT_EQ(simulations_at_once({.at_once = 0}, 0), 1u);
}

// A model whose simulations are known to be memory hungry (an earlier task's) starts no
// more of them than the task's memory share holds, whatever its CPUs allow.
TEST_F(SideBySideTest, AKnownMemoryHungryModelRunsOnlyWhatMemoryHolds) {
  calls.millis = {{"a", 100}, {"b", 100}, {"c", 100}, {"d", 100}};
  const WorkloadCall all = run({.at_once = 4, .memory_bytes = 1000 * kMiB, .footprint_bytes = 400 * kMiB});
  EXPECT_TRUE(all.result.passed);
  EXPECT_EQ(calls.most_at_once, 2);
}

// Learned as they go: once the first simulation ends saying what it took, no more start
// than memory holds.
TEST_F(SideBySideTest, AFootprintLearnedFromAnEndedSimulationBoundsTheRest) {
  request.workloads = {"a", "b", "c", "d", "e", "f"};
  // a and b start together, before anything is known; a ends first, b runs on.
  calls.millis = {{"a", 200}, {"b", 600}, {"c", 100}, {"d", 100}, {"e", 100}, {"f", 100}};
  calls.peak_rss = {{"a", 600 * kMiB}};
  const WorkloadCall all = run({.at_once = 2, .memory_bytes = 1000 * kMiB});
  EXPECT_TRUE(all.result.passed);
  EXPECT_LE(calls.most_at_once, 2);
  // After a ended (600 MiB of 1000): one at a time, so c waited for b instead of joining it.
  for (const char* later : {"c", "d", "e", "f"}) EXPECT_EQ(calls.running_with[later], 1) << later;
  EXPECT_THAT(reported, ElementsAre("a", "b", "c", "d", "e", "f"));
}

}  // namespace
}  // namespace mace::executor

// Runs through maced with the Slurm executor on a real Slurm the tests start themselves
// (support/slurm_cluster.h), on fixture checkouts of its first node: every build and
// simulation a job pinned to the checkout's node (REQ-EXEC-4), cancel and kill -9 leave no
// job, a node going down with no other checkout left ends the run naming the node, and is
// not leased until it is back, and Slurm's own time limit is a timeout. Runs across the
// cluster's nodes are slurm_nodes_test.cc.

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>
#include <thread>
#include <tuple>

#include "daemon/slurm_run_fixture.h"
#include "support/real_checkout.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string spec_json(const std::string& extra = "") {
  return R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "backend": "direct",
             "objective": "build the tile and run add")" +
         extra + "}";
}

TEST_F(SlurmRunTest, ARunPassesWithEveryBuildAndSimulationASlurmJobOnTheCheckoutsNode) {  // REQ-EXEC-4
  start();
  const std::string id = submit(spec_json());
  auto watched = wait_for(id);
  EXPECT_EQ(watched.exit_code, 0) << watched.out << watched.err;
  EXPECT_THAT(status(id), HasSubstr("\"state\":\"passed\""));
  EXPECT_EQ(checkouts_[0]->invocations("build"), 1);
  EXPECT_EQ(checkouts_[0]->invocations("run"), 1);

  // Every job recorded, ended, on the checkout's node, named after run, task and purpose.
  const auto names = column(db(), "SELECT name FROM slurm_jobs WHERE run_id = '" + id +
                                      "' ORDER BY submitted_at_ms");
  EXPECT_THAT(names, ::testing::Contains("mace:" + id + ":build:build"));
  EXPECT_THAT(names, ::testing::Contains("mace:" + id + ":build:simulate"));
  // Tasks' jobs have four fields; the run's own (a real checkout's Verilator version
  // probe), three (docs/slurm.md).
  for (const auto& name : names)
    EXPECT_EQ(task_of_job(name).has_value(), !name.ends_with(":verilator-version")) << name;
  EXPECT_THAT(column(db(), "SELECT DISTINCT node FROM slurm_jobs"), ::testing::ElementsAre(cluster().node()));
  EXPECT_THAT(column(db(), "SELECT count(*) FROM slurm_jobs WHERE ended_at_ms IS NULL"),
              ::testing::ElementsAre("0"));
  // Slurm ran them: each recorded ID is a job Slurm knows by that name.
  for (const auto& job : column(db(), "SELECT job_id || ' ' || name FROM slurm_jobs")) {
    const std::string job_id = job.substr(0, job.find(' '));
    EXPECT_EQ(cluster().command({"squeue", "-h", "-t", "all", "-j", job_id, "-o", "%j %T"}),
              job.substr(job.find(' ') + 1) + " COMPLETED\n");
  }
  // The run log says where each job ran.
  EXPECT_THAT(maced_->mace({"logs", id}).out, HasSubstr("on " + cluster().node()));
  // mace status shows the executor and the checkout with its node.
  const std::string daemon = maced_->mace({"status", "--json"}).out;
  EXPECT_THAT(daemon, HasSubstr("\"executor\":\"slurm\""));
  EXPECT_THAT(daemon, HasSubstr("\"path\":\"" + checkouts_[0]->root() + "\",\"node\":\"" +
                                cluster().node() + "\",\"held_by\":\"\""));
}

// Workloads side by side on Slurm (executor/gate_workloads.h): the task's simulations are
// steps of one allocation on the checkout's node holding the CPUs of the steps it runs at
// once, released when they have ended.
TEST_F(SlurmRunTest, SideBySideWorkloadsAreStepsOfOneAllocationOnTheCheckoutsNode) {  // REQ-EXEC-4
  start();
  checkouts_[0]->set_control("run_sleep", "2");
  const std::string id = submit_three_two_at_once();
  auto watched = wait_for(id);
  ASSERT_EQ(watched.exit_code, 0) << watched.out << watched.err;

  const auto names = column(db(), "SELECT name FROM slurm_jobs WHERE run_id = '" + id + "'");
  EXPECT_THAT(names, ::testing::Contains("mace:" + id + ":build:workloads"));
  EXPECT_THAT(names, Not(::testing::Contains("mace:" + id + ":build:simulate")))
      << "no simulation is a job of its own";
  const auto allocation = column(db(), "SELECT job_id FROM slurm_jobs WHERE name = 'mace:" + id +
                                           ":build:workloads'");
  ASSERT_EQ(allocation.size(), 1u);
  EXPECT_EQ(cluster().command({"squeue", "-h", "-t", "all", "-j", allocation[0], "-o", "%C %N"}),
            "2 " + cluster().node() + "\n") << "two simulate steps' CPUs on the checkout's node";
  EXPECT_THAT(column(db(), "SELECT count(*) FROM slurm_jobs WHERE ended_at_ms IS NULL"),
              ::testing::ElementsAre("0"));

  // Every simulation ran as a step of that allocation; two of them at once.
  std::vector<std::tuple<double, double, std::string>> spans;
  std::istringstream lines(checkouts_[0]->read(".fake_sims/spans"));
  for (std::string diag, from, to, job, step; lines >> diag >> from >> to >> job >> step;) {
    EXPECT_EQ(job, allocation[0]) << diag;
    spans.emplace_back(std::stod(from), std::stod(to), step);
  }
  ASSERT_EQ(spans.size(), 3u);
  std::sort(spans.begin(), spans.end());
  EXPECT_LT(std::get<0>(spans[1]), std::get<1>(spans[0])) << "the first two overlapped";
  EXPECT_GE(std::get<0>(spans[2]) + 0.05, std::min(std::get<1>(spans[0]), std::get<1>(spans[1])))
      << "the third waited for a free step";
  EXPECT_EQ(cluster().live_jobs(), "") << "the allocation was released";
}

// A cancel while two simulations hang as steps of the task's allocation: the allocation,
// its steps and their processes on the node are all gone.
TEST_F(SlurmRunTest, CancelWhileWorkloadsRunSideBySideLeavesNoAllocationAndNoProcess) {
  start();
  checkouts_[0]->set_control("run", "hang");
  const std::string id = submit_three_two_at_once();
  ASSERT_TRUE(eventually([&] { return job_running_for(id, "workloads"); }, std::chrono::seconds(60)))
      << cluster().live_jobs();
  // Each hang records its sleeping grandchild and sims: two simulations at once.
  ASSERT_TRUE(eventually([&] { return checkouts_[0]->recorded_pids().size() >= 4; }, std::chrono::seconds(30)));
  const auto pids = checkouts_[0]->recorded_pids();
  cancel_leaving_nothing(id, pids);
  EXPECT_EQ(checkouts_[0]->invocations("run"), 2) << "the third never started";
}

TEST_F(SlurmRunTest, TwoRunsShareTwoCheckoutsEachOnItsOwnJobs) {  // REQ-PLAT-3, REQ-PLAT-4
  start(2);
  const std::string first = submit(spec_json(R"(, "checkouts": 1)"));
  const std::string second = submit(spec_json(R"(, "checkouts": 1)"));
  EXPECT_EQ(wait_for(first).exit_code, 0);
  EXPECT_EQ(wait_for(second).exit_code, 0);
  const auto used = column(db(), "SELECT DISTINCT checkout FROM slurm_jobs ORDER BY checkout");
  EXPECT_EQ(used.size(), 2u) << "each run built on a checkout of its own";
  for (const auto& run : {first, second})
    EXPECT_THAT(column(db(), "SELECT count(DISTINCT checkout) FROM slurm_jobs WHERE run_id = '" + run + "'"),
                ::testing::ElementsAre("1"));
}

TEST_F(SlurmRunTest, CancelMidBuildLeavesNoJobAndNoProcessOnTheNode) {
  start();
  checkouts_[0]->set_control("build", "hang");
  const std::string id = submit(spec_json());
  ASSERT_TRUE(eventually([&] { return job_running_for(id, "build"); }, std::chrono::seconds(60)))
      << cluster().live_jobs();
  ASSERT_TRUE(eventually([&] { return !checkouts_[0]->recorded_pids().empty(); },
                         std::chrono::seconds(30)));
  const auto pids = checkouts_[0]->recorded_pids();
  // The job is in the status of its checkout.
  EXPECT_THAT(maced_->mace({"status"}).out, HasSubstr("Slurm job"));

  cancel_leaving_nothing(id, pids);
  // The job's end is recorded when maced sees it end, which may come after the run's.
  const std::string query = "SELECT state FROM slurm_jobs WHERE run_id = '" + id + "'";
  EXPECT_TRUE(eventually([&] {
    const auto states = column(db(), query);
    return std::find(states.begin(), states.end(), "CANCELLED") != states.end();
  }, std::chrono::seconds(10))) << ::testing::PrintToString(column(db(), query));
}

TEST_F(SlurmRunTest, KillNineMidBuildLeavesNoJobOnceTheKeeperActed) {  // REQ-BUD-13
  start();
  checkouts_[0]->set_control("build", "hang");
  const std::string id = submit(spec_json());
  ASSERT_TRUE(eventually([&] { return job_running_for(id, "build"); }, std::chrono::seconds(60)));
  ASSERT_TRUE(eventually([&] { return !checkouts_[0]->recorded_pids().empty(); },
                         std::chrono::seconds(30)));
  const auto pids = checkouts_[0]->recorded_pids();
  ASSERT_TRUE(keeper_of(maced_->process().pid()));

  maced_->process().signal(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  EXPECT_TRUE(eventually([&] { return live_jobs_of(id).empty(); }, std::chrono::seconds(30)))
      << live_jobs_of(id);
  // For docs/slurm.md: how long after kill -9 Slurm no longer lists the job.
  const auto no_job_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - killed).count();
  std::cout << "[ keeper ] no job left " << no_job_ms << " ms after kill -9 of maced\n";
  RecordProperty("no_job_after_kill_ms", std::to_string(no_job_ms));
  auto ended = maced_->process().wait(std::chrono::seconds(10));
  ASSERT_TRUE(ended.has_value());
  EXPECT_THAT(ended->err, HasSubstr("cancelled 1 of its jobs"));
  const auto gone_after = std::chrono::steady_clock::now() - killed;
  EXPECT_LT(gone_after, std::chrono::seconds(15));
  for (pid_t pid : pids) EXPECT_FALSE(alive(pid)) << "pid " << pid;

  // The next maced records the run as today and finds nothing left to cancel.
  start();
  EXPECT_TRUE(eventually([&] { return status(id).find("\"state\":\"error\"") != std::string::npos; },
                         std::chrono::seconds(30)));
  EXPECT_THAT(status(id), HasSubstr("maced restarted during the run"));
  EXPECT_THAT(column(db(), "SELECT count(*) FROM slurm_jobs WHERE ended_at_ms IS NULL"),
              ::testing::ElementsAre("0"));
}

// kill -9 of maced while two simulations hang as steps of the task's allocation: the keeper
// cancels the allocation, and nothing of the steps is left on the node.
TEST_F(SlurmRunTest, KillNineWhileWorkloadsRunSideBySideLeavesNoAllocation) {  // REQ-BUD-13
  start();
  add_pico_diags({"sub.S"});
  checkouts_[0]->set_control("run", "hang");
  const std::string id = submit(R"({"core": "pico", "mesh": [1, 1], "backend": "direct",
      "objective": "hang two at once", "workloads": ["add.S", "sub.S"], "parallel_workloads": 2})");
  ASSERT_TRUE(eventually([&] { return checkouts_[0]->recorded_pids().size() >= 4; }, std::chrono::seconds(60)))
      << cluster().live_jobs();
  const auto pids = checkouts_[0]->recorded_pids();
  ASSERT_TRUE(job_running_for(id, "workloads")) << cluster().live_jobs();
  ASSERT_TRUE(keeper_of(maced_->process().pid()));
  maced_->process().signal(SIGKILL);
  EXPECT_TRUE(eventually([&] { return live_jobs_of(id).empty(); }, std::chrono::seconds(30)))
      << live_jobs_of(id);
  auto ended = maced_->process().wait(std::chrono::seconds(10));
  ASSERT_TRUE(ended.has_value());
  EXPECT_THAT(ended->err, HasSubstr("cancelled 1 of its jobs")) << "the allocation";
  EXPECT_TRUE(eventually([&] { return none_alive(pids); }, std::chrono::seconds(10)));
}

TEST_F(SlurmRunTest, AJobTheKeeperCouldNotCancelIsCancelledByTheNextMaced) {
  start();
  checkouts_[0]->set_control("build", "hang");
  const std::string id = submit(spec_json());
  ASSERT_TRUE(eventually([&] { return job_running_for(id, "build"); }, std::chrono::seconds(60)));
  ASSERT_TRUE(eventually([&] {
    return !column(db(), "SELECT job_id FROM slurm_jobs WHERE run_id = '" + id + "'").empty();
  }, std::chrono::seconds(10)));
  // A job left behind with maced's comment and no maced: as if both maced and its keeper
  // died (a power cut of the head node) and srun's death had not reached Slurm.
  const std::string comment =
      column(db(), "SELECT comment FROM slurm_jobs WHERE run_id = '" + id + "'").front();
  const std::string orphan = cluster().command(
      {"sbatch", "--parsable", "--job-name=mace:" + id + ":t1:build", "--comment=" + comment,
       "-w", cluster().node(), "--mem=100", "--output=/dev/null", "--wrap", "sleep 600"});
  ASSERT_FALSE(orphan.empty());
  auto keeper = keeper_of(maced_->process().pid());
  ASSERT_TRUE(keeper);
  ::kill(*keeper, SIGKILL);
  maced_->process().signal(SIGKILL);
  ASSERT_TRUE(maced_->process().wait(std::chrono::seconds(10)).has_value());
  ASSERT_TRUE(eventually([&] {
    return cluster().live_jobs().find(orphan.substr(0, orphan.find('\n'))) != std::string::npos;
  }, std::chrono::seconds(10)));

  const auto restarted = std::chrono::steady_clock::now();
  start();
  EXPECT_TRUE(eventually([&] { return cluster().live_jobs().empty(); }, std::chrono::seconds(30)))
      << cluster().live_jobs();
  const auto no_job_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - restarted).count();
  std::cout << "[ next start ] no job left " << no_job_ms << " ms after maced was started\n";
  RecordProperty("no_job_after_start_ms", std::to_string(no_job_ms));
  EXPECT_THAT(maced_->process().output_so_far() + maced_->mace({"status", id}).out,
              Not(HasSubstr("running")));
}

// The run's only checkout is on the node that goes down, and no other checkout is left:
// the run ends in error naming the infrastructure, never a diagnosis of the design.
TEST_F(SlurmRunTest, ANodeGoingDownWithNoOtherCheckoutEndsTheRunNamingItAndIsNotLeasedUntilBack) {
  start();
  checkouts_[0]->set_control("build", "hang");
  const std::string id = submit(spec_json(R"(, "budget": {"max_iterations": 1})"));
  ASSERT_TRUE(eventually([&] { return job_running_for(id, "build"); }, std::chrono::seconds(60)));
  cluster().set_node_down("disk died");
  auto watched = wait_for(id);
  const std::string s = status(id);
  EXPECT_THAT(s, HasSubstr(R"("state":"error")")) << s;
  EXPECT_THAT(s, HasSubstr("the infrastructure failed, not the design")) << s;
  EXPECT_THAT(s, HasSubstr("node " + cluster().node() + " is down (disk died)")) << s;
  EXPECT_THAT(s, Not(HasSubstr(R"("diagnoses":[{)"))) << "nothing about the design was diagnosed";
  const std::string log = maced_->mace({"logs", id}).out;
  EXPECT_THAT(log, HasSubstr("lost to the infrastructure (node_failure)")) << log;
  EXPECT_THAT(log, HasSubstr("NODE_FAIL")) << log;

  // While the node is down its checkout is not given to the next run.
  checkouts_[0]->clear_control();
  const std::string next = submit(spec_json());
  std::this_thread::sleep_for(std::chrono::seconds(7));
  EXPECT_THAT(status(next), HasSubstr("\"state\":\"queued\""));
  EXPECT_THAT(maced_->mace({"status", "--json"}).out, HasSubstr("disk died"));
  cluster().resume_node();
  EXPECT_EQ(wait_for(next, 120).exit_code, 0) << status(next);
}

// `mace doctor` asks Slurm of every node the configuration names: one taken out is a failure
// with how to bring it back, the others are up.
TEST_F(SlurmRunTest, DoctorNamesAStoppedNodeWithHowToBringItBack) {
  ASSERT_GE(cluster().nodes().size(), 2u);
  const std::string down = cluster().nodes()[1];
  start_on({cluster().nodes()[0], down});
  cluster().set_node_down(down, "fan failed");
  const auto doctor = maced_->mace({"doctor"});
  EXPECT_EQ(doctor.exit_code, 1) << doctor.out << doctor.err;
  EXPECT_THAT(doctor.out, HasSubstr("FAIL  slurm node " + down + ": node " + down + " is down"));
  EXPECT_THAT(doctor.out, HasSubstr("fan failed"));
  EXPECT_THAT(doctor.out, HasSubstr("fix: bring it back once it is fixed: scontrol update nodename=" + down +
                                    " state=resume"));
  EXPECT_THAT(doctor.out, HasSubstr("ok    slurm node " + cluster().nodes()[0] + ": up"));
  cluster().resume_node(down);
  EXPECT_THAT(maced_->mace({"doctor"}).out, HasSubstr("ok    slurm node " + down + ": up"));
}

TEST_F(SlurmRunTest, AJobSlurmEndsForItsTimeLimitIsATimeout) {
  // Slurm's limit (one minute, enforced on its own schedule) is below the task's.
  start(1, R"({"cpus": 1, "memory_mb": 200, "time_limit_min": 1})");
  checkouts_[0]->set_control("build", "hang");
  const std::string id = submit(spec_json(R"(, "budget": {"max_iterations": 1})"));
  auto watched = wait_for(id, 300);
  const std::string s = status(id);
  EXPECT_THAT(s, HasSubstr("\"failure_reason\":\"timeout\"")) << s;
  EXPECT_THAT(column(db(), "SELECT state FROM slurm_jobs WHERE run_id = '" + id + "'"),
              ::testing::Contains("TIMEOUT"));
  EXPECT_EQ(live_jobs_of(id), "");
}

// With MACE_TEST_PITON_ROOT: a real pico 1x1 run whose build and simulation are Slurm jobs
// on the checkout's node passes, and the identical second run reuses the model. The wall
// times (submit to the end of `watch`) are printed for docs/slurm.md's table.
TEST_F(SlurmRunTest, ARealPicoRunThroughSlurmPassesAndTheSecondReusesItsBuild) {
  const auto root = real_checkout_root();
  if (!root)
    GTEST_SKIP() << "MACE_TEST_PITON_ROOT is not set: this test needs a real OpenPiton "
                    "checkout patched with scripts/patch_openpiton.sh";
  const std::string path = *root;
  // The test node has 2 CPUs and 4000 MB; Slurm does not enforce memory here (task/none).
  dir_.write("maced.json", R"({"checkouts": [{"path": ")" + path + R"(", "node": ")" +
                               cluster().node() + R"("}],
      "executor": {"kind": "slurm", "slurm": {"gres": "openpiton:1",
        "build": {"cpus": 2, "memory_mb": 2000}, "simulate": {"cpus": 1, "memory_mb": 500},
        "environment": {"SLURM_CONF": ")" + cluster().conf() + R"("}}}})");
  MacedOptions options;
  options.extra_args = {"--config", dir_.file("maced.json"), "--workloads",
                        source_root() + "/workloads"};
  maced_ = std::make_unique<MacedInstance>(dir_, options);
  const std::string spec = R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello"],
    "objective": "Build a 1x1 PicoRV32 tile and run hello", "backend": "direct",
    "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}})";

  auto timed_run = [&](std::string& id) {
    const auto started = std::chrono::steady_clock::now();
    id = submit(spec);
    auto watched = wait_for(id, 1800);
    EXPECT_EQ(watched.exit_code, 0) << watched.out << maced_->mace({"logs", id}).out;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::string first, second;
  const double first_s = timed_run(first);
  const std::string first_status = status(first);
  EXPECT_THAT(first_status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(first_status, HasSubstr(R"("workload":"hello","verdict":"pass")"));
  const double second_s = timed_run(second);
  const std::string second_status = status(second);
  EXPECT_THAT(second_status, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(second_status, HasSubstr(R"("build_outcome":"reused")"));
  // Both runs' simulations were Slurm jobs on the node; the second built nothing.
  EXPECT_THAT(column(db(), "SELECT count(*) FROM slurm_jobs WHERE run_id = '" + second +
                               "' AND purpose = 'simulate' AND state = 'COMPLETED'"),
              ::testing::ElementsAre("1"));
  EXPECT_THAT(column(db(), "SELECT count(*) FROM slurm_jobs WHERE run_id = '" + second +
                               "' AND purpose = 'build'"),
              ::testing::ElementsAre("0"));
  std::cout << "[ slurm real run ] first: " << first_s << " s ("
            << (first_status.find(R"("build_outcome":"reused")") != std::string::npos ? "reused"
                                                                                       : "built")
            << "), second: " << second_s << " s (reused)\n";
  RecordProperty("first_wall_s", std::to_string(first_s));
  RecordProperty("second_wall_s", std::to_string(second_s));
}

}  // namespace
}  // namespace mace::testing

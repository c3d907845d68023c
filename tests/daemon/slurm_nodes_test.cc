// Runs through maced across the nodes of the test Slurm (three slurmd on this machine,
// support/slurm_cluster.h), on fixture checkouts placed on different nodes: where each job
// ran by Slurm's own record, runs that share the pool, a model built on one node taken
// from the store on another, a node lost mid-run costing a retry and not the run, kill -9
// of maced leaving no job on any node, and `mace status` over every node. With
// MACE_TEST_PITON_ROOT and MACE_TEST_PITON_ROOT_2, a real pico run on two nodes.

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <set>
#include <thread>

#include "daemon/slurm_run_fixture.h"
#include "llm/fake_vertex_server.h"  // tests/llm/
#include "support/real_checkout.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using mace::llm::testing::FakeVertexServer;

std::string direct_spec(const std::string& extra = "") {
  return R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "backend": "direct",
             "objective": "build the tile and run add")" +
         extra + "}";
}

// A run the fake Vertex server plans: three config tasks, each its own configuration.
constexpr const char* kThreeTaskSpec = R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"],
  "objective": "Explore three cache sizes", "budget": {"max_iterations": 1}})";
constexpr const char* kThreeTaskPlan =
    "TASK: base | deps= | kind=config | defaults\n"
    "TASK: l1d | deps= | kind=config | a bigger L1D\nCACHES: l1d | l1d=16384,4\n"
    "TASK: l2 | deps= | kind=config | a bigger L2\nCACHES: l2 | l2=131072,4\n";

class SlurmNodesTest : public SlurmRunTest {
 protected:
  // maced with a checkout on each of `nodes`, planning through the fake Vertex server.
  void start_planned(const std::vector<std::string>& nodes) {
    MacedOptions options;
    options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
    start_on(nodes, R"({"cpus": 1, "memory_mb": 200})", "", options);
  }
  // The node maced's configuration gives the checkout at `path`.
  std::string node_of_checkout(const std::string& path, const std::vector<std::string>& nodes) {
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (checkouts_[i]->root() == path) return nodes[i];
    return "";
  }

  FakeVertexServer vertex_;
};

// REQ-EXEC-4: every job of a task on the node of the checkout it ran on, as Slurm itself
// recorded it; the run's three tasks on three nodes at once, and `mace status` showing each
// node's checkout with its job.
TEST_F(SlurmNodesTest, EachTasksJobsRanOnTheNodeOfItsCheckoutAndStatusShowsEveryNode) {
  const auto nodes = cluster().nodes();
  ASSERT_EQ(nodes.size(), 3u);
  start_planned(nodes);
  for (auto& checkout : checkouts_) checkout->set_control("build_sleep", "4");
  vertex_.push(FakeVertexServer::text(kThreeTaskPlan));
  const std::string id = submit(kThreeTaskSpec);
  ASSERT_TRUE(eventually([&] { return jobs_running_for(id, "build") == 3; }, std::chrono::seconds(60)))
      << cluster().live_jobs();
  // Each job is in maced's view once its runner has found it, a moment after Slurm lists it.
  std::string checkouts;
  auto shows_every_node = [&] {
    checkouts = maced_->mace({"status"}).out;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (checkouts.find(checkouts_[i]->root() + "  node " + nodes[i] + "  held by " + id +
                         "  Slurm job ") == std::string::npos)
        return false;
    return true;
  };
  EXPECT_TRUE(eventually(shows_every_node, std::chrono::seconds(20))) << checkouts;

  auto watched = wait_for(id);
  EXPECT_EQ(watched.exit_code, 0) << watched.out << maced_->mace({"logs", id}).out;
  const auto jobs = column(db(), "SELECT job_id || ' ' || name || ' ' || checkout FROM slurm_jobs "
                                 "WHERE run_id = '" + id + "'");
  EXPECT_THAT(column(db(), "SELECT count(*) FROM slurm_jobs WHERE run_id = '" + id +
                              "' AND purpose IN ('build', 'simulate')"),
              ::testing::ElementsAre("6"))
      << "a build and a simulation for each of three tasks";
  std::set<std::string> nodes_used;
  std::map<std::string, std::string> checkout_of_task;
  for (const auto& row : jobs) {
    std::istringstream fields(row);
    std::string job_id, name, checkout;
    fields >> job_id >> name >> checkout;
    const std::string ran_on = cluster().node_of_job(job_id);
    EXPECT_EQ(ran_on, node_of_checkout(checkout, nodes)) << "job " << job_id << " " << name;
    nodes_used.insert(ran_on);
    // A task's build and simulation on one checkout.
    const auto of_task = task_of_job(name);
    if (!of_task) continue;
    const std::string& task = *of_task;
    if (checkout_of_task.count(task)) {
      EXPECT_EQ(checkout_of_task[task], checkout) << task;
    }
    checkout_of_task[task] = checkout;
  }
  EXPECT_EQ(nodes_used.size(), 3u);
}

// Three runs submitted together on three free checkouts start together, each on a node of
// its own: a run holds what its level uses, not every free checkout.
TEST_F(SlurmNodesTest, ThreeRunsSubmittedTogetherOnThreeFreeCheckoutsStartTogether) {
  const auto nodes = cluster().nodes();
  start_on(nodes);
  for (auto& checkout : checkouts_) checkout->set_control("build_sleep", "3");
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(submit(direct_spec()));
  for (const auto& id : ids) EXPECT_EQ(wait_for(id).exit_code, 0) << status(id);
  std::vector<long long> started;
  for (const auto& id : ids)
    started.push_back(std::stoll(column(db(), "SELECT started_at_ms FROM runs WHERE id = '" + id + "'").at(0)));
  const auto [first, last] = std::minmax_element(started.begin(), started.end());
  EXPECT_LT(*last - *first, 2000) << "each build takes 3 s: one after another would be 6 s apart";
  std::set<std::string> used;
  for (const auto& id : ids)
    for (const auto& job : column(db(), "SELECT job_id FROM slurm_jobs WHERE run_id = '" + id + "'"))
      used.insert(cluster().node_of_job(job));
  EXPECT_EQ(used.size(), 3u);
}

// Issue: a model built on n1 is taken from the store shared by the nodes by a task on n2.
// n1 is taken out after the first run, so the second run's task ends up on n2: it is sent
// to n1's checkout first (maced does not know yet), finds the node down, and runs again on
// n2 without building.
TEST_F(SlurmNodesTest, AModelBuiltOnOneNodeIsTakenFromTheStoreByATaskOnAnother) {
  const std::vector<std::string> nodes = {cluster().nodes()[0], cluster().nodes()[1]};
  start_on(nodes);
  const std::string first = submit(direct_spec());
  ASSERT_EQ(wait_for(first).exit_code, 0) << status(first);
  EXPECT_THAT(column(db(), "SELECT DISTINCT checkout FROM slurm_jobs WHERE run_id = '" + first + "'"),
              ::testing::ElementsAre(checkouts_[0]->root()));

  cluster().set_node_down(nodes[0], "maintenance");
  const std::string second = submit(direct_spec());
  ASSERT_EQ(wait_for(second).exit_code, 0) << status(second) << maced_->mace({"logs", second}).out;
  const std::string s = status(second);
  EXPECT_THAT(s, HasSubstr(R"("build_source":"store")")) << s;
  EXPECT_THAT(s, HasSubstr(R"("checkout":")" + checkouts_[1]->root() + "\"")) << s;
  EXPECT_THAT(s, HasSubstr("built in " + checkouts_[0]->root())) << "the store's origin: n1's checkout";
  EXPECT_EQ(checkouts_[1]->invocations("build"), 0);
  for (const auto& job : column(db(), "SELECT job_id FROM slurm_jobs WHERE run_id = '" + second +
                                          "' AND state = 'COMPLETED'"))
    EXPECT_EQ(cluster().node_of_job(job), nodes[1]);
  EXPECT_THAT(maced_->mace({"logs", second}).out, HasSubstr("node " + nodes[0] + " is down (maintenance)"));
}

// A node set DOWN under a running build: the task runs again on another node and the run
// passes; the loss is in the run's log with the node and Slurm's reason, never a diagnosis,
// and the node's checkout is not leased again until the node is back.
TEST_F(SlurmNodesTest, ANodeSetDownMidRunCostsARetryOnAnotherNodeNotTheRun) {
  const std::vector<std::string> nodes = {cluster().nodes()[0], cluster().nodes()[1]};
  start_on(nodes);
  checkouts_[0]->set_control("build_sleep", "120");
  const std::string id = submit(direct_spec(R"(, "budget": {"max_iterations": 1})"));
  ASSERT_TRUE(eventually([&] { return job_running_for(id, "build"); }, std::chrono::seconds(60)));
  cluster().set_node_down(nodes[0], "disk died");
  auto watched = wait_for(id);
  EXPECT_EQ(watched.exit_code, 0) << status(id) << maced_->mace({"logs", id}).out;
  const std::string s = status(id);
  EXPECT_THAT(s, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(s, HasSubstr(R"("iterations":1)"));
  EXPECT_THAT(s, HasSubstr(R"("checkout":")" + checkouts_[1]->root() + "\""));
  EXPECT_THAT(s, Not(HasSubstr(R"("diagnoses":[{)")));
  const std::string log = maced_->mace({"logs", id}).out;
  EXPECT_THAT(log, HasSubstr("task build lost to the infrastructure (node_failure) on " +
                             checkouts_[0]->root()));
  EXPECT_THAT(log, HasSubstr("node " + nodes[0]));
  EXPECT_THAT(log, HasSubstr("disk died"));
  EXPECT_THAT(log, HasSubstr("run again on another checkout (retry 1 of 3)"));

  // While n1 is down its checkout is not leased: the next run goes to n2.
  checkouts_[0]->clear_control();
  const std::string next = submit(direct_spec());
  EXPECT_EQ(wait_for(next).exit_code, 0) << status(next);
  EXPECT_THAT(column(db(), "SELECT DISTINCT checkout FROM slurm_jobs WHERE run_id = '" + next + "'"),
              ::testing::ElementsAre(checkouts_[1]->root()));
  EXPECT_THAT(maced_->mace({"status"}).out, HasSubstr("NODE UNAVAILABLE: node " + nodes[0]));
}

// Two users share two nodes' checkouts; Alice's long queue holds one, and Bob's run gets
// the other by its fair share (docs/operating-maced.md "Fair shares") on the node that is
// then lost: Bob's task is lost to the infrastructure, not to his design, and runs again
// on the other node when his turn comes; every run of both users passes.
TEST_F(SlurmNodesTest, ANodeLostUnderAnotherUsersFairShareCostsThatRunARetryAndNoRunIsLost) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to submit as two users";
  const std::vector<std::string> nodes = {cluster().nodes()[0], cluster().nodes()[1]};
  start_on(nodes);
  ::chmod(dir_.path().c_str(), 0755);
  ::chmod(maced_->socket_path().c_str(), 0666);
  // Every run builds one model (the first builds it, the others take it from the store);
  // what keeps a checkout is the simulation.
  checkouts_[0]->set_control("run_sleep", "8");
  checkouts_[1]->set_control("run_sleep", "30");
  auto submit_as = [&](uint32_t uid, const std::string& name) {
    dir_.write(name, direct_spec(R"(, "budget": {"max_iterations": 1})"));
    ::chmod(dir_.file(name).c_str(), 0644);
    ProcessOptions options;
    options.uid = uid;
    const auto r = maced_->mace({"submit", dir_.file(name)}, options);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  };
  auto has_a_job = [&](const std::string& id) { return live_jobs_of(id).find("RUNNING") != std::string::npos; };
  std::vector<std::string> alices;
  alices.push_back(submit_as(65533, "a1.json"));
  ASSERT_TRUE(eventually([&] { return has_a_job(alices[0]); }, std::chrono::seconds(60)));
  alices.push_back(submit_as(65533, "a2.json"));
  ASSERT_TRUE(eventually([&] { return has_a_job(alices[1]); }, std::chrono::seconds(60)))
      << maced_->mace({"status"}).out;
  alices.push_back(submit_as(65533, "a3.json"));
  const std::string bobs = submit_as(65534, "b.json");

  // Alice's first run ends on the first node; Bob's run, not Alice's third, takes its place.
  ASSERT_TRUE(eventually([&] { return job_running_for(bobs, "simulate"); }, std::chrono::seconds(90)))
      << maced_->mace({"status"}).out;
  // maced records a job once squeue shows it, which may come after the job has started.
  const std::string bobs_checkouts =
      "SELECT DISTINCT checkout FROM slurm_jobs WHERE run_id = '" + bobs + "'";
  EXPECT_TRUE(eventually([&] { return !column(db(), bobs_checkouts).empty(); }, std::chrono::seconds(10)));
  EXPECT_THAT(column(db(), bobs_checkouts), ::testing::ElementsAre(checkouts_[0]->root()));
  EXPECT_THAT(maced_->mace({"status", alices[2]}).out, HasSubstr("queued"));
  cluster().set_node_down(nodes[0], "power supply failed");

  for (const auto& id : alices) EXPECT_EQ(wait_for(id, 240).exit_code, 0) << status(id);
  EXPECT_EQ(wait_for(bobs, 240).exit_code, 0) << status(bobs) << maced_->mace({"logs", bobs}).out;
  const std::string log = maced_->mace({"logs", bobs}).out;
  EXPECT_THAT(log, HasSubstr("task build lost to the infrastructure (node_failure) on " + checkouts_[0]->root()));
  EXPECT_THAT(log, HasSubstr("power supply failed"));
  EXPECT_THAT(status(bobs), HasSubstr(R"("checkout":")" + checkouts_[1]->root() + "\""));
  EXPECT_THAT(status(bobs), HasSubstr(R"("state":"passed")"));
}

// A node whose slurmd dies mid-build (as a machine that crashes): Slurm marks it DOWN when
// it stops answering, the job ends NODE_FAIL, and the task runs again on another node.
TEST_F(SlurmNodesTest, ANodeWhoseSlurmdIsKilledMidRunHasItsTaskRetriedOnAnother) {
  const std::vector<std::string> nodes = {cluster().nodes()[1], cluster().nodes()[2]};
  start_on(nodes);
  checkouts_[0]->set_control("build_sleep", "240");
  const std::string id = submit(direct_spec(R"(, "budget": {"max_iterations": 1})"));
  ASSERT_TRUE(eventually([&] { return job_running_for(id, "build"); }, std::chrono::seconds(60)));
  struct Restart {
    const SlurmCluster& cluster;
    std::string node;
    ~Restart() { cluster.restart_slurmd(node); }
  } restart{cluster(), nodes[0]};
  const auto killed = std::chrono::steady_clock::now();
  cluster().kill_slurmd(nodes[0]);
  auto watched = wait_for(id, 240);
  EXPECT_EQ(watched.exit_code, 0) << status(id) << maced_->mace({"logs", id}).out;
  std::cout << "[ slurmd killed ] run passed "
            << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - killed).count()
            << " s after node " << nodes[0] << "'s slurmd was killed\n";
  const std::string s = status(id);
  EXPECT_THAT(s, HasSubstr(R"("state":"passed")"));
  EXPECT_THAT(s, HasSubstr(R"("checkout":")" + checkouts_[1]->root() + "\""));
  const std::string log = maced_->mace({"logs", id}).out;
  // Slurm ends the job NODE_FAIL, or JobLaunchFailure when it was still starting: either
  // way the loss names the node and its state.
  EXPECT_THAT(log, HasSubstr("task build lost to the infrastructure (node_failure) on " +
                             checkouts_[0]->root() + ": Slurm job "));
  EXPECT_THAT(log, HasSubstr("node " + nodes[0] + " is down"));
}

// REQ-BUD-13 across nodes: kill -9 of maced while builds run on three nodes; its keeper
// cancels every job, so nothing of the run is left on any node.
TEST_F(SlurmNodesTest, KillNineOfMacedLeavesNoJobOnAnyNode) {
  const auto nodes = cluster().nodes();
  start_planned(nodes);
  for (auto& checkout : checkouts_) checkout->set_control("build", "hang");
  vertex_.push(FakeVertexServer::text(kThreeTaskPlan));
  const std::string id = submit(kThreeTaskSpec);
  ASSERT_TRUE(eventually([&] { return jobs_running_for(id, "build") == 3; }, std::chrono::seconds(60)))
      << cluster().live_jobs();
  ASSERT_TRUE(eventually([&] {
    for (auto& checkout : checkouts_)
      if (checkout->recorded_pids().empty()) return false;
    return true;
  }, std::chrono::seconds(30)));
  // maced records a job once squeue shows it, which may come after the job has started.
  const std::string recorded_jobs =
      "SELECT job_id FROM slurm_jobs WHERE run_id = '" + id + "' AND purpose = 'build'";
  EXPECT_TRUE(eventually([&] { return column(db(), recorded_jobs).size() == 3; },
                         std::chrono::seconds(30)));
  std::set<std::string> on_nodes;
  for (const auto& job : column(db(), recorded_jobs)) on_nodes.insert(cluster().node_of_job(job));
  EXPECT_EQ(on_nodes.size(), 3u) << cluster().live_jobs();
  std::vector<pid_t> pids;
  for (auto& checkout : checkouts_)
    for (pid_t pid : checkout->recorded_pids()) pids.push_back(pid);

  maced_->process().signal(SIGKILL);
  EXPECT_TRUE(eventually([&] { return live_jobs_of(id).empty(); }, std::chrono::seconds(30)))
      << live_jobs_of(id);
  EXPECT_TRUE(eventually([&] { return none_alive(pids); }, std::chrono::seconds(15)));
  ASSERT_TRUE(maced_->process().wait(std::chrono::seconds(10)).has_value());
}

// With two copies of a real checkout, one on each of two nodes: a real pico 1x1 plan of two
// configurations builds and simulates both, each task's jobs on its own node.
TEST_F(SlurmNodesTest, ARealPicoRunPutsItsTwoTasksOnTwoNodes) {
  const auto root = real_checkout_root();
  const char* second = std::getenv("MACE_TEST_PITON_ROOT_2");
  if (!root || !second || !*second)
    GTEST_SKIP() << "MACE_TEST_PITON_ROOT and MACE_TEST_PITON_ROOT_2 are not both set: this test "
                    "needs two copies of a real OpenPiton checkout patched with "
                    "scripts/patch_openpiton.sh";
  std::string second_root = std::filesystem::weakly_canonical(second).string();
  while (second_root.size() > 1 && second_root.back() == '/') second_root.pop_back();
  const std::vector<std::string> nodes = {cluster().nodes()[0], cluster().nodes()[1]};
  dir_.write("maced.json", R"({"checkouts": [{"path": ")" + *root + R"(", "node": ")" + nodes[0] +
                               R"("}, {"path": ")" + second_root + R"(", "node": ")" + nodes[1] + R"("}],
      "executor": {"kind": "slurm", "slurm": {"gres": "openpiton:1",
        "build": {"cpus": 2, "memory_mb": 2000}, "simulate": {"cpus": 1, "memory_mb": 500},
        "environment": {"SLURM_CONF": ")" + cluster().conf() + R"("}}}})");
  MacedOptions options;
  options.extra_args = {"--config", dir_.file("maced.json"), "--workloads", source_root() + "/workloads"};
  options.process.set_env["MACE_VERTEX_ENDPOINT"] = vertex_.base_url();
  maced_ = std::make_unique<MacedInstance>(dir_, options);
  vertex_.push(FakeVertexServer::text(
      "TASK: base | deps= | kind=config | OpenPiton's defaults\n"
      "TASK: big_l15 | deps= | kind=config | a bigger L1.5\nCACHES: big_l15 | l15=16384,4\n"));
  const auto started = std::chrono::steady_clock::now();
  const std::string id = submit(R"({"core": "pico", "mesh": [1, 1], "workloads": ["hello"],
    "objective": "Two pico 1x1 configurations on two nodes",
    "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}})");
  auto watched = wait_for(id, 3000);
  EXPECT_EQ(watched.exit_code, 0) << watched.out << maced_->mace({"logs", id}).out;
  const std::string s = status(id);
  EXPECT_THAT(s, HasSubstr(R"("state":"passed")"));
  std::map<std::string, std::set<std::string>> nodes_of_task;
  for (const auto& row : column(db(), "SELECT job_id || ' ' || name FROM slurm_jobs WHERE run_id = '" +
                                          id + "' AND state = 'COMPLETED'")) {
    const std::string job = row.substr(0, row.find(' '));
    // Only tasks' jobs: the run's own (its Verilator version probe) belong to no task.
    if (const auto task = task_of_job(row.substr(row.find(' ') + 1)))
      nodes_of_task[*task].insert(cluster().node_of_job(job));
  }
  ASSERT_EQ(nodes_of_task.size(), 2u) << s;
  std::set<std::string> all;
  for (const auto& [task, on] : nodes_of_task) {
    EXPECT_EQ(on.size(), 1u) << task << " ran on one node";
    all.insert(on.begin(), on.end());
  }
  EXPECT_EQ(all.size(), 2u) << "the two tasks on two nodes";
  std::cout << "[ two-node pico ] passed in "
            << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count()
            << " s\n";
}

}  // namespace
}  // namespace mace::testing

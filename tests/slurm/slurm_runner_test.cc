// Commands of a checkout run on its node through a real single-node Slurm
// (support/slurm_cluster.h): output, exit codes, cancel, timeouts, a job that never
// starts, and a node that goes down before and during a job (REQ-EXEC-4).
#include "slurm/slurm_runner.h"

#include <signal.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

#include "os/environment.h"
#include "os/file_io.h"
#include "support/child_process.h"
#include "support/slurm_cluster.h"

namespace mace::slurm {
namespace {

using testing::SlurmCluster;

class RecordingObserver final : public JobObserver {
 public:
  void submitted(const SubmittedJob& job) override {
    std::lock_guard lock(mutex_);
    events_.push_back("submitted " + job.id);
    submitted_.push_back(job);
  }
  void ended(const SubmittedJob& job, const std::string& state, const std::string&) override {
    std::lock_guard lock(mutex_);
    events_.push_back("ended " + job.id + " " + state);
  }
  void node_unavailable(const std::string& node, const std::string& why) override {
    std::lock_guard lock(mutex_);
    events_.push_back("unavailable " + node);
    unavailable_why_ = why;
  }
  std::vector<std::string> events() const {
    std::lock_guard lock(mutex_);
    return events_;
  }
  std::vector<SubmittedJob> submitted_jobs() const {
    std::lock_guard lock(mutex_);
    return submitted_;
  }
  std::string unavailable_why() const {
    std::lock_guard lock(mutex_);
    return unavailable_why_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> events_;
  std::vector<SubmittedJob> submitted_;
  std::string unavailable_why_;
};

class SlurmRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MACE_REQUIRE_SLURM();
    SlurmCluster& cluster = SlurmCluster::shared();
    ASSERT_TRUE(cluster.wait_until_idle()) << "jobs left by an earlier test: " << cluster.live_jobs();
    settings_->environment = cluster.environment();
    settings_->instance = "test";
    settings_->simulate = {.cpus = 1, .memory_mb = 100, .time_limit_min = 0};
    settings_->build = {.cpus = 1, .memory_mb = 100, .time_limit_min = 0};
    settings_->cleanup_limit = std::chrono::seconds(60);
  }
  void TearDown() override {
    if (!SlurmCluster::shared().available()) return;
    SlurmCluster::shared().resume_node();
    SlurmCluster::shared().command({"scancel", "--user=root"});
  }

  SlurmRunner runner(const std::string& node = "") {
    Placement placement{.run_id = "run1", .core = "pico",
                        .node = node.empty() ? SlurmCluster::shared().node() : node,
                        .checkout = dir_.path(), .label = "t1"};
    return SlurmRunner(settings_, std::move(placement), observer_);
  }

  os::ProcessSpec shell(const std::string& script) {
    os::ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.env = os::inherited_environment();
    spec.working_dir = dir_.path();
    spec.purpose = os::CommandPurpose::simulate;
    return spec;
  }

  // Waits until the runner told the observer about a job and Slurm runs it.
  std::string wait_for_running_job() {
    std::string id;
    EXPECT_TRUE(testing::eventually([&] {
      auto jobs = observer_->submitted_jobs();
      if (jobs.empty()) return false;
      id = jobs.front().id;
      return SlurmCluster::shared().command({"squeue", "-h", "-j", id, "-o", "%T"}).starts_with("RUNNING");
    }, std::chrono::seconds(30)));
    return id;
  }

  testing::TempDir dir_;
  std::shared_ptr<SlurmSettings> settings_ = std::make_shared<SlurmSettings>();
  std::shared_ptr<RecordingObserver> observer_ = std::make_shared<RecordingObserver>();
};

// Running or asleep: not gone and not a zombie waiting for init to reap it.
bool process_alive(pid_t pid) {
  const auto stat = os::try_read_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  const auto close = stat->rfind(')');
  return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] != 'Z' &&
         (*stat)[close + 2] != 'X';
}

TEST_F(SlurmRunnerTest, RunsTheCommandOnTheNodeAndStreamsItsOutputBack) {
  os::ProcessSpec spec = shell("echo \"job $SLURM_JOB_ID on $SLURMD_NODENAME\"; echo second line");
  spec.log_path = dir_.file("transcript.log");
  std::vector<std::string> lines;
  spec.on_line = [&](std::string_view line) { lines.emplace_back(line); };
  const os::ProcessResult result = runner().run(spec, nullptr);

  ASSERT_TRUE(result.succeeded()) << result.error << result.tail;
  ASSERT_EQ(observer_->submitted_jobs().size(), 1u);
  const SubmittedJob job = observer_->submitted_jobs().front();
  ASSERT_FALSE(job.id.empty());
  ASSERT_EQ(lines.size(), 2u) << result.tail;
  EXPECT_EQ(lines[0], "job " + job.id + " on " + SlurmCluster::shared().node());
  EXPECT_EQ(os::read_file(spec.log_path), lines[0] + "\nsecond line\n");
  // Recorded before it was waited on, and named after run, task and purpose.
  EXPECT_EQ(observer_->events(),
            (std::vector<std::string>{"submitted " + job.id, "ended " + job.id + " COMPLETED"}));
  EXPECT_EQ(job.name, "mace:run1:t1:simulate");
  EXPECT_EQ(SlurmCluster::shared().command({"squeue", "-h", "-t", "all", "-j", job.id, "-o", "%j %k"}),
            job.name + " " + job.comment + "\n");
}

TEST_F(SlurmRunnerTest, TheCommandsExitStatusIsItsOwn) {
  const os::ProcessResult result = runner().run(shell("echo failing; exit 3"), nullptr);
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.host_stop, os::HostStop::none);
  EXPECT_FALSE(result.launch_failed);
  EXPECT_FALSE(result.succeeded());
}

TEST_F(SlurmRunnerTest, CancelEndsTheJobAndLeavesNothingRunningOnTheNode) {
  const std::string pid_file = dir_.file("pid");
  os::CancelToken cancel;
  auto done = std::async(std::launch::async, [&] {
    return runner().run(shell("sleep 300 & echo $! > " + pid_file + "; wait"), &cancel);
  });
  const std::string id = wait_for_running_job();
  ASSERT_TRUE(testing::eventually([&] { return std::filesystem::exists(pid_file); }));
  const pid_t sleeper = std::stoi(os::read_file(pid_file));
  cancel.cancel();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const os::ProcessResult result = done.get();
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(SlurmCluster::shared().live_jobs(), "") << "the job is gone when run() returns";
  EXPECT_TRUE(testing::eventually([&] { return !process_alive(sleeper); }, std::chrono::seconds(5)))
      << "nothing of the job is left on the node";
  EXPECT_EQ(observer_->events().back(), "ended " + id + " CANCELLED");
}

TEST_F(SlurmRunnerTest, ATimeoutCancelsTheJob) {
  os::ProcessSpec spec = shell("sleep 300");
  spec.timeout = std::chrono::seconds(2);
  const auto started = std::chrono::steady_clock::now();
  const os::ProcessResult result = runner().run(spec, nullptr);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  EXPECT_EQ(SlurmCluster::shared().live_jobs(), "");
}

TEST_F(SlurmRunnerTest, AJobPendingPastTheLimitNeverStartsAndIsCancelled) {
  // The node's two openpiton resources held by another job: ours cannot start.
  auto blocker_settings = std::make_shared<SlurmSettings>(*settings_);
  blocker_settings->gres = "openpiton:2";
  SlurmRunner blocker(blocker_settings,
                      {.run_id = "other", .core = "pico", .node = SlurmCluster::shared().node(),
                       .checkout = dir_.path(), .label = "hog"},
                      nullptr);
  os::CancelToken stop_blocker;
  auto blocking = std::async(std::launch::async, [&] { return blocker.run(shell("sleep 300"), &stop_blocker); });
  ASSERT_TRUE(testing::eventually([&] {
    return SlurmCluster::shared().command({"squeue", "-h", "-n", "mace:other:hog:simulate", "-o", "%T"})
        .starts_with("RUNNING");
  }, std::chrono::seconds(30)));

  settings_->gres = "openpiton:1";
  settings_->pending_limit = std::chrono::seconds(2);
  const os::ProcessResult result = runner().run(shell("echo never"), nullptr);
  EXPECT_EQ(result.host_stop, os::HostStop::never_started);
  EXPECT_NE(result.host_stop_detail.find("still pending after"), std::string::npos) << result.host_stop_detail;
  EXPECT_NE(result.host_stop_detail.find("waiting for node " + SlurmCluster::shared().node()), std::string::npos);
  EXPECT_EQ(result.tail.find("never"), std::string::npos);

  stop_blocker.cancel();
  blocking.wait();
  EXPECT_TRUE(SlurmCluster::shared().wait_until_idle(30)) << SlurmCluster::shared().live_jobs();
}

TEST_F(SlurmRunnerTest, ANodeThatIsDownFailsTheCommandAtOnceNamingItsReason) {
  SlurmCluster::shared().set_node_down("disk died");
  const os::ProcessResult result = runner().run(shell("echo never"), nullptr);
  EXPECT_EQ(result.host_stop, os::HostStop::node_failure);
  EXPECT_NE(result.host_stop_detail.find("node " + SlurmCluster::shared().node() + " is down"),
            std::string::npos) << result.host_stop_detail;
  EXPECT_NE(result.host_stop_detail.find("disk died"), std::string::npos);
  EXPECT_TRUE(observer_->submitted_jobs().empty()) << "nothing was submitted";
  EXPECT_EQ(observer_->events(), (std::vector<std::string>{"unavailable " + SlurmCluster::shared().node()}));
}

TEST_F(SlurmRunnerTest, ANodeGoingDownMidJobEndsItWithTheNodesReason) {
  auto done = std::async(std::launch::async, [&] { return runner().run(shell("sleep 300"), nullptr); });
  const std::string id = wait_for_running_job();
  ASSERT_FALSE(id.empty()) << SlurmCluster::shared().command({"sinfo", "-N"})
                           << SlurmCluster::shared().command({"squeue", "-t", "all"});
  SlurmCluster::shared().set_node_down("fan failure");
  ASSERT_EQ(done.wait_for(std::chrono::seconds(90)), std::future_status::ready);
  const os::ProcessResult result = done.get();
  EXPECT_EQ(result.host_stop, os::HostStop::node_failure);
  EXPECT_NE(result.host_stop_detail.find("Slurm job " + id), std::string::npos) << result.host_stop_detail;
  EXPECT_NE(result.host_stop_detail.find("fan failure"), std::string::npos) << result.host_stop_detail;
  EXPECT_THAT(observer_->events(), ::testing::Contains("unavailable " + SlurmCluster::shared().node()))
      << "its checkouts are not leased until it is back";
  EXPECT_EQ(observer_->events().back(), "ended " + id + " NODE_FAIL");
}

TEST_F(SlurmRunnerTest, ANodeSlurmDoesNotKnowIsALaunchFailure) {
  const os::ProcessResult result = runner("no-such-node").run(shell("true"), nullptr);
  EXPECT_TRUE(result.launch_failed);
  EXPECT_NE(result.error.find("no node named no-such-node"), std::string::npos) << result.error;
}

TEST_F(SlurmRunnerTest, AResourceSlurmRefusesIsALaunchFailureWithSrunsWords) {
  settings_->gres = "openpiton:3";
  const os::ProcessResult result = runner().run(shell("true"), nullptr);
  EXPECT_TRUE(result.launch_failed) << "exit " << result.exit_code << " host_stop "
                                    << os::to_string(result.host_stop) << " "
                                    << result.host_stop_detail << "\n" << result.tail;
  EXPECT_NE(result.error.find("srun"), std::string::npos) << result.error;
}

// Side by side (a task's gate workloads, REQ-EXEC-4): one allocation on the node, each
// command a step inside it.
class SideBySideOnSlurmTest : public SlurmRunnerTest {
 protected:
  std::shared_ptr<const os::CommandRunner> held(std::size_t at_once) {
    std::string why;
    auto runner = this->runner().side_by_side(at_once, nullptr, why);
    EXPECT_TRUE(runner) << why;
    return runner;
  }
  // A step that says which job and step it is, and when it ran, then sleeps.
  os::ProcessSpec step(const std::string& name, double seconds) {
    return shell("echo job=$SLURM_JOB_ID step=$SLURM_STEP_ID node=$SLURMD_NODENAME; "
                 "date +%s.%N > " + dir_.file(name + ".start") + "; sleep " + std::to_string(seconds) +
                 "; date +%s.%N > " + dir_.file(name + ".end"));
  }
  double stamp(const std::string& file) { return std::stod(os::read_file(dir_.file(file))); }
};

TEST_F(SideBySideOnSlurmTest, CommandsAreStepsOfOneAllocationRunningTogether) {
  auto runner = held(2);
  ASSERT_TRUE(runner);
  const auto jobs = observer_->submitted_jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].name, "mace:run1:t1:workloads");
  EXPECT_EQ(jobs[0].purpose, "workloads");
  EXPECT_EQ(SlurmCluster::shared().command({"squeue", "-h", "-j", jobs[0].id, "-o", "%C %T"}), "2 RUNNING\n")
      << "two simulate steps' CPUs, held";

  auto first = std::async(std::launch::async, [&] { return runner->run(step("a", 2), nullptr); });
  auto second = std::async(std::launch::async, [&] { return runner->run(step("b", 2), nullptr); });
  const os::ProcessResult a = first.get(), b = second.get();
  ASSERT_TRUE(a.succeeded()) << a.tail;
  ASSERT_TRUE(b.succeeded()) << b.tail;
  for (const auto* r : {&a, &b}) {
    EXPECT_NE(r->tail.find("job=" + jobs[0].id + " "), std::string::npos) << r->tail;
    EXPECT_NE(r->tail.find("node=" + SlurmCluster::shared().node()), std::string::npos) << r->tail;
  }
  EXPECT_NE(a.tail.substr(a.tail.find("step=")), b.tail.substr(b.tail.find("step="))) << "two steps";
  EXPECT_LT(std::max(stamp("a.start"), stamp("b.start")), std::min(stamp("a.end"), stamp("b.end")))
      << "they ran at the same time";
  EXPECT_EQ(SlurmCluster::shared().command({"squeue", "-h", "-s", "-j", jobs[0].id}), "")
      << "no step outlives its run()";

  runner.reset();  // the last holder goes: the allocation is released
  EXPECT_EQ(SlurmCluster::shared().live_jobs(), "");
  EXPECT_EQ(observer_->events().back(), "ended " + jobs[0].id + " CANCELLED");
}

TEST_F(SideBySideOnSlurmTest, AStepsCancelStopsOnlyItAndLeavesNothingOfIt) {
  auto runner = held(2);
  ASSERT_TRUE(runner);
  const std::string pid_file = dir_.file("pid");
  os::CancelToken stop_one;
  auto stopped = std::async(std::launch::async, [&] {
    return runner->run(shell("sleep 300 & echo $! > " + pid_file + "; wait"), &stop_one);
  });
  auto other = std::async(std::launch::async, [&] { return runner->run(step("b", 3), nullptr); });
  ASSERT_TRUE(testing::eventually([&] { return std::filesystem::exists(pid_file); }, std::chrono::seconds(30)));
  const pid_t sleeper = std::stoi(os::read_file(pid_file));
  stop_one.cancel();
  ASSERT_EQ(stopped.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_TRUE(stopped.get().cancelled);
  EXPECT_TRUE(testing::eventually([&] { return !process_alive(sleeper); }, std::chrono::seconds(5)));
  const os::ProcessResult b = other.get();
  EXPECT_TRUE(b.succeeded()) << "the other step ran to its end: " << b.tail;
}

TEST_F(SideBySideOnSlurmTest, AStepsOwnFailureIsItsExitCode) {
  auto runner = held(2);
  ASSERT_TRUE(runner);
  const os::ProcessResult result = runner->run(shell("exit 3"), nullptr);
  EXPECT_EQ(result.exit_code, 3) << result.tail;
  EXPECT_EQ(result.host_stop, os::HostStop::none);
  EXPECT_FALSE(result.launch_failed);
}

TEST_F(SideBySideOnSlurmTest, ANodeGoingDownUnderAStepIsTheHostsStop) {
  auto runner = held(2);
  ASSERT_TRUE(runner);
  auto done = std::async(std::launch::async, [&] { return runner->run(step("a", 300), nullptr); });
  ASSERT_TRUE(testing::eventually([&] { return std::filesystem::exists(dir_.file("a.start")); },
                                  std::chrono::seconds(30)));
  SlurmCluster::shared().set_node_down("fan failure");
  ASSERT_EQ(done.wait_for(std::chrono::seconds(90)), std::future_status::ready);
  const os::ProcessResult result = done.get();
  EXPECT_EQ(result.host_stop, os::HostStop::node_failure) << result.tail;
  EXPECT_NE(result.host_stop_detail.find("fan failure"), std::string::npos) << result.host_stop_detail;
  EXPECT_THAT(observer_->events(), ::testing::Contains("unavailable " + SlurmCluster::shared().node()));
}

TEST_F(SideBySideOnSlurmTest, NoAllocationOnADownNodeSaysWhyAndSubmitsNothing) {
  SlurmCluster::shared().set_node_down("disk died");
  std::string why;
  EXPECT_FALSE(runner().side_by_side(2, nullptr, why));
  EXPECT_NE(why.find("disk died"), std::string::npos) << why;
  EXPECT_TRUE(observer_->submitted_jobs().empty());
}

TEST_F(SideBySideOnSlurmTest, AnAllocationNotGrantedInTimeIsWithdrawnAndSaysWhy) {
  // The node's two CPUs held by another job: two more cannot be had.
  auto hog_settings = std::make_shared<SlurmSettings>(*settings_);
  hog_settings->simulate.cpus = 2;
  SlurmRunner hog(hog_settings,
                  {.run_id = "other", .core = "pico", .node = SlurmCluster::shared().node(),
                   .checkout = dir_.path(), .label = "hog"},
                  nullptr);
  os::CancelToken stop_blocker;
  auto blocking = std::async(std::launch::async, [&] { return hog.run(shell("sleep 300"), &stop_blocker); });
  ASSERT_TRUE(testing::eventually([&] {
    return SlurmCluster::shared().command({"squeue", "-h", "-n", "mace:other:hog:simulate", "-o", "%T"})
        .starts_with("RUNNING");
  }, std::chrono::seconds(30)));
  settings_->pending_limit = std::chrono::seconds(2);
  std::string why;
  EXPECT_FALSE(runner().side_by_side(2, nullptr, why));
  EXPECT_NE(why.find("salloc"), std::string::npos) << why;
  EXPECT_EQ(SlurmCluster::shared().command({"squeue", "-h", "-n", "mace:run1:t1:workloads"}), "")
      << "nothing of it is left with Slurm";
  stop_blocker.cancel();
  blocking.wait();
}

}  // namespace
}  // namespace mace::slurm

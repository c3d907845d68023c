#pragma once
// A real Slurm of three nodes on this machine for the tests that need one
// (tests/support/slurm_cluster.sh): started once per test program on first use, stopped
// when the program exits. Tests ask
// `SlurmCluster::shared()` and skip, saying why, only when it cannot be had here (the
// packages are missing, or the tests do not run as root); one that is installed but does
// not start fails them. The macro below does both.

#include <map>
#include <string>
#include <vector>

namespace mace::testing {

class SlurmCluster {
 public:
  // The cluster of this test program, started on the first call. Never null; check
  // available().
  static SlurmCluster& shared();

  bool available() const { return error_.empty(); }
  // Slurm cannot be had on this machine at all (not installed, not root): a reason to skip.
  // Otherwise an unavailable cluster failed to start: a failure.
  bool unobtainable() const { return unobtainable_; }
  // Why the cluster is not available.
  const std::string& why_not() const { return error_; }

  const std::string& conf() const { return conf_; }  // its slurm.conf (SLURM_CONF)
  const std::string& node() const { return node_; }  // its first node
  const std::vector<std::string>& nodes() const { return nodes_; }  // all of them
  // {"SLURM_CONF": conf()}: the environment the Slurm commands need.
  std::map<std::string, std::string> environment() const { return {{"SLURM_CONF", conf_}}; }

  // Runs a Slurm command (squeue, scontrol, ...) against this cluster; its standard output.
  std::string command(const std::vector<std::string>& argv) const;
  // The live jobs (squeue -h -o "%i %j %T"), one line each.
  std::string live_jobs() const;
  // Waits until no job is live; false when one still is after `seconds`.
  bool wait_until_idle(int seconds = 60) const;
  // scontrol update: the first node (or `node`) DOWN with `reason`.
  void set_node_down(const std::string& reason) const { set_node_down(node_, reason); }
  void set_node_down(const std::string& node, const std::string& reason) const;
  // Back in service, and waits (up to a minute) until it takes work again.
  void resume_node() const { resume_node(node_); }
  void resume_node(const std::string& node) const;
  // SIGKILL to the node's slurmd: the node dies as far as Slurm can tell.
  void kill_slurmd(const std::string& node) const;
  // The node's slurmd again, and waits (up to a minute) until the node takes work.
  void restart_slurmd(const std::string& node) const;
  // The node Slurm ran job `id` on, by its own record (squeue -t all ... %N).
  std::string node_of_job(const std::string& id) const;

  ~SlurmCluster();

 private:
  SlurmCluster();
  bool takes_work(const std::string& node) const;

  std::string dir_, conf_, node_, error_;
  std::vector<std::string> nodes_;
  bool unobtainable_ = false;
};

}  // namespace mace::testing

// In a test body or SetUp: skips when Slurm cannot be had here, fails when it did not start.
#define MACE_REQUIRE_SLURM()                                                            \
  do {                                                                                 \
    auto& mace_cluster_ = ::mace::testing::SlurmCluster::shared();                     \
    if (mace_cluster_.unobtainable()) GTEST_SKIP() << mace_cluster_.why_not();         \
    ASSERT_TRUE(mace_cluster_.available()) << mace_cluster_.why_not();                 \
  } while (false)

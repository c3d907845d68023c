#include "slurm_cluster.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "child_process.h"

namespace mace::testing {
namespace {

std::string script() { return source_root() + "/tests/support/slurm_cluster.sh"; }

}  // namespace

SlurmCluster& SlurmCluster::shared() {
  static SlurmCluster cluster;
  return cluster;
}

SlurmCluster::SlurmCluster() {
  if (::geteuid() != 0) {
    error_ = "a real Slurm needs root (slurmd starts jobs as their owners); run the tests as root";
    unobtainable_ = true;
    return;
  }
  for (const char* tool : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/srun"}) {
    if (::access(tool, X_OK) != 0) {
      error_ = std::string("Slurm is not installed (") + tool +
               " is missing): apt-get install slurm-wlm munge, as .ci/run does";
      unobtainable_ = true;
      return;
    }
  }
  char pattern[] = "/tmp/mace-slurm.XXXXXX";
  if (::mkdtemp(pattern) == nullptr) {
    error_ = "cannot make a directory for the cluster";
    return;
  }
  dir_ = pattern;
  ProcessOptions options;
  options.timeout = std::chrono::seconds(90);
  const ProcessResult started = run_process({script(), "start", dir_}, options);
  if (started.exit_code != 0) {
    // Installed but not startable is a failure of the machine, not a reason to skip:
    // tests that need the cluster then fail, saying this.
    error_ = "the test Slurm did not start: " + started.err + started.out;
    std::filesystem::remove_all(dir_);
    return;
  }
  std::istringstream lines(started.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("SLURM_CONF=")) conf_ = line.substr(11);
    if (line.starts_with("NODE=")) node_ = line.substr(5);
    if (line.starts_with("NODES=")) {
      std::istringstream names(line.substr(6));
      for (std::string name; names >> name;) nodes_.push_back(name);
    }
  }
}

SlurmCluster::~SlurmCluster() {
  if (dir_.empty()) return;
  ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  run_process({script(), "stop", dir_}, options);
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string SlurmCluster::command(const std::vector<std::string>& argv) const {
  ProcessOptions options;
  options.set_env = environment();
  return run_process(argv, options).out;
}

std::string SlurmCluster::live_jobs() const {
  return command({"squeue", "-h", "-o", "%i %j %T"});
}

bool SlurmCluster::wait_until_idle(int seconds) const {
  return eventually([&] { return live_jobs().empty(); }, std::chrono::seconds(seconds));
}

void SlurmCluster::set_node_down(const std::string& node, const std::string& reason) const {
  command({"scontrol", "update", "nodename=" + node, "state=down", "reason=" + reason});
}

bool SlurmCluster::takes_work(const std::string& node) const {
  // "idle*" (not responding yet) takes no work; slurmd answers the next ping in ~1 s.
  const std::string state = command({"sinfo", "-h", "-N", "-n", node, "-o", "%T"});
  return state == "idle\n" || state == "mixed\n" || state == "allocated\n";
}

void SlurmCluster::resume_node(const std::string& node) const {
  command({"scontrol", "update", "nodename=" + node, "state=resume"});
  eventually([&] { return takes_work(node); }, std::chrono::seconds(60));
}

void SlurmCluster::kill_slurmd(const std::string& node) const {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(10);
  run_process({script(), "kill-slurmd", dir_, node}, options);
}

void SlurmCluster::restart_slurmd(const std::string& node) const {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(10);
  run_process({script(), "start-slurmd", dir_, node}, options);
  eventually([&] {
    if (takes_work(node)) return true;
    // A node Slurm set DOWN while its slurmd was dead comes back when the new one
    // registers; one still DOWN is resumed.
    command({"scontrol", "update", "nodename=" + node, "state=resume"});
    return false;
  }, std::chrono::seconds(60));
}

std::string SlurmCluster::node_of_job(const std::string& id) const {
  std::string node = command({"squeue", "-h", "-t", "all", "-j", id, "-o", "%N"});
  while (!node.empty() && (node.back() == '\n' || node.back() == ' ')) node.pop_back();
  return node;
}

}  // namespace mace::testing

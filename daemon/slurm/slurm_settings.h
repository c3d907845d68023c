#pragma once
// How maced uses a Slurm cluster: where its jobs go, what each kind of step asks for, and
// how the Slurm commands are found. Read from maced's configuration (`executor.slurm`,
// maced/config.h); everything has a default that works on a cluster with one partition.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mace::slurm {

// What one step asks Slurm for.
struct StepResources {
  int cpus = 1;                // --cpus-per-task
  std::int64_t memory_mb = 0;  // --mem; 0: the partition's default
  // The most time a job of this kind may be given (--time, rounded up to minutes); the
  // task's own limit and what is left of the run's budget cut it further. 0: no cap.
  std::int64_t time_limit_min = 0;
};

// The kinds of step, by what they do: a build (Verilator and the C++ compile of the model,
// also a unit-test build) needs far more than the rest (a simulation, a workload compile,
// asking Verilator its version).
enum class StepKind { build, simulate };

struct SlurmSettings {
  std::string partition;  // --partition; empty: the cluster's default
  std::string account;    // --account
  std::string qos;        // --qos
  // --gres for every job, e.g. "openpiton:1" when the site counts checkouts per node as a
  // generic resource, so Slurm itself never puts two jobs on one checkout. Empty: none.
  std::string gres;
  StepResources build{.cpus = 2, .memory_mb = 0, .time_limit_min = 0};
  StepResources simulate{.cpus = 1, .memory_mb = 0, .time_limit_min = 0};
  // Per core ("sparc", "pico", "ariane", "generic"): replaces build/simulate for runs of
  // that core (a sparc build needs several times what a pico one does).
  std::map<std::string, StepResources> build_by_core;
  std::map<std::string, StepResources> simulate_by_core;
  // More srun options, each a whole "--name=value" argument, after MACE's own.
  std::vector<std::string> srun_options;
  // A job still pending after this long (its node busy, down, reserved) is cancelled and
  // its task ends never_started.
  std::chrono::seconds pending_limit{600};
  // How long to wait, after a job's end or cancel, for Slurm to finish cleaning it up
  // (COMPLETING) before maced lets its checkout go.
  std::chrono::seconds cleanup_limit{120};
  // Where srun, squeue, scancel and sinfo are; empty: /usr/bin, /usr/local/bin, /bin.
  std::string bin_dir;
  // Variables the Slurm commands need (SLURM_CONF for a configuration in another place).
  // Nothing else of maced's environment reaches them.
  std::map<std::string, std::string> environment;
  // Tags every job's comment ("mace:<instance>:..."), so maced finds its own jobs after a
  // restart without touching another maced's. maced sets it from its state directory.
  std::string instance;
};

// The resources of `kind` for a run of `core`.
const StepResources& resources_for(const SlurmSettings& settings, StepKind kind,
                                   const std::string& core);

}  // namespace mace::slurm

#pragma once
// The srun command line that runs one of a checkout's commands on the checkout's node, and
// the names its job carries. Pure: nothing here runs anything.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "os/process_group.h"
#include "slurm/slurm_settings.h"

namespace mace::slurm {

// Where a run's checkout is and whose work runs there.
struct Placement {
  std::string run_id;
  std::string core;      // the run's core: picks the per-core resources
  std::string node;      // the Slurm node that holds the checkout
  std::string checkout;  // its path, the same on the node and on maced's machine
  std::string label;     // the task the work belongs to; empty: none yet
};

// "mace:<run>:<label>:<purpose>", cut to 200 bytes, every byte outside [A-Za-z0-9._:-]
// replaced by '_' (a job name is shown by every squeue on the cluster).
std::string job_name(const Placement& placement, os::CommandPurpose purpose);

// "mace:<instance>:<token>": what finds maced's own jobs again after a restart.
std::string job_comment(const std::string& instance, const std::string& token);
// The prefix of every comment of `instance`'s jobs.
std::string comment_prefix(const std::string& instance);

// Which resources a command asks for, by what it does.
StepKind step_kind(os::CommandPurpose purpose);

// Slurm's --time for a command given `timeout` (0: none) and a cap in minutes (0: none):
// whole minutes, rounded up, at least 1; "" for no limit at all.
std::string time_limit(std::chrono::milliseconds timeout, std::int64_t cap_minutes);

// srun [MACE's options] [settings.srun_options] <spec.argv...>: one task on
// placement.node, named and commented as above, in spec.working_dir, with the resources of
// its step kind and the run's core. `program` is srun's path.
std::vector<std::string> srun_argv(const SlurmSettings& settings, const Placement& placement,
                                   const os::ProcessSpec& spec, const std::string& program,
                                   const std::string& comment);

// The environment srun runs with, which it passes on to the command: `command_env` with
// every variable srun, sbatch or salloc would read as an option removed (SLURM_*, SBATCH_*,
// SRUN_*, SALLOC_*), and the Slurm commands' own variables (SLURM_CONF, ...) added.
std::map<std::string, std::string> srun_environment(
    const std::map<std::string, std::string>& command_env,
    const std::map<std::string, std::string>& slurm_env);

}  // namespace mace::slurm

#pragma once
// The srun command line that runs one of a checkout's commands on the checkout's node, and
// the names its job carries. Pure: nothing here runs anything.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "os/cancel_token.h"
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

// A task's job: "mace:<run>:<task>:<purpose>", four fields. A job of the run itself, of no
// task (the Verilator version probe): "mace:<run>:<purpose>", three. Neither a run ID nor a
// task ID holds ':', so the count of fields tells them apart (docs/slurm.md). Cut to 200
// bytes, every byte outside [A-Za-z0-9._:-] replaced by '_' (a job name is shown by every
// squeue on the cluster).
std::string job_name(const Placement& placement, os::CommandPurpose purpose);

// "mace:<instance>:<token>": what finds maced's own jobs again after a restart.
std::string job_comment(const std::string& instance, const std::string& token);
// A Slurm command's own complaint in its output ("srun: error: Unable to allocate
// resources: Invalid node name specified"): its last line that starts with "<command>:",
// else the output's last 300 bytes; at most 500 bytes.
std::string complaint(std::string_view output, std::string_view command);

// The result of a command that is not started at all: the caller's token already
// cancelled, or nothing to run; nullopt when it may start.
std::optional<os::ProcessResult> not_started(const os::ProcessSpec& spec, const os::CancelToken* cancel);

// A token no other job of this process has had: "<pid>-<n>".
std::string next_job_token();
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

// The name of a task's allocation for its gate workloads side by side
// ("mace:<run>:<label>:workloads", made safe and bounded as job_name's).
std::string allocation_name(const Placement& placement);

// salloc --no-shell [MACE's options]: `steps` times the simulate resources of the run's
// core on placement.node, in one allocation that lives until it is cancelled; salloc gives
// up after `wait` (--immediate) when Slurm has not granted it by then.
std::vector<std::string> salloc_argv(const SlurmSettings& settings, const Placement& placement,
                                     std::size_t steps, const std::string& program,
                                     const std::string& comment, std::chrono::seconds wait);

// srun --jobid=<allocation> [MACE's options] [settings.srun_options] <spec.argv...>: one
// step of the allocation named `step_name`, with one simulate step's resources and no
// generic resource (the allocation holds them), in spec.working_dir.
std::vector<std::string> step_argv(const SlurmSettings& settings, const Placement& placement,
                                   const os::ProcessSpec& spec, const std::string& program,
                                   const std::string& allocation_id, const std::string& step_name);

// The environment srun runs with, which it passes on to the command: `command_env` with
// every variable srun, sbatch or salloc would read as an option removed (SLURM_*, SBATCH_*,
// SRUN_*, SALLOC_*), and the Slurm commands' own variables (SLURM_CONF, ...) added.
std::map<std::string, std::string> srun_environment(
    const std::map<std::string, std::string>& command_env,
    const std::map<std::string, std::string>& slurm_env);

}  // namespace mace::slurm

#pragma once
// The Slurm client commands maced runs besides srun: squeue to find and follow its jobs,
// sinfo to ask after a node, scancel to stop jobs. Each runs in a process group of its own
// with a bounded time, the configured environment only, and its answer read in the fixed
// formats of job_status.h. Thread-safe: nothing is shared between calls.

#include <chrono>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "slurm/job_status.h"
#include "slurm/slurm_settings.h"

namespace mace::slurm {

// A Slurm command that could not be run or did not answer (slurmctld down, munge broken):
// names the command and what it said.
struct CommandFailure {
  std::string message;
};

class SlurmCommands {
 public:
  explicit SlurmCommands(const SlurmSettings& settings);

  // The path of one of the Slurm commands ("srun", "squeue", ...), as the settings find it.
  std::string program(const std::string& name) const;
  // The environment srun and the rest run with (the settings' `environment` and a PATH).
  const std::map<std::string, std::string>& environment() const { return environment_; }

  // The job `id`, nullopt when Slurm no longer knows it (finished longer ago than
  // MinJobAge). Throws CommandFailure when squeue cannot answer.
  std::optional<JobStatus> job(const std::string& id) const;
  // Every job named `name` (any state Slurm still remembers).
  std::vector<JobStatus> jobs_named(const std::string& name) const;
  // The steps Slurm runs now in job `id`, as (step ID "<job>.<step>", step name); empty
  // when the job has none or is gone.
  std::vector<std::pair<std::string, std::string>> steps_of(const std::string& id) const;
  // The live jobs (pending, running, completing) of user `uid`.
  std::vector<JobStatus> live_jobs_of(uid_t uid) const;
  // What sinfo says of node `name`; nullopt when Slurm has no such node.
  std::optional<NodeStatus> node(const std::string& name) const;
  // scancel for every job of `ids` (no error for jobs already gone).
  void cancel(const std::vector<std::string>& ids) const;

  // Cancels `ids` and waits until none of them is live any more, or `limit` passed.
  // Returns the ones still live at the end (empty: all gone).
  std::vector<std::string> cancel_and_wait(const std::vector<std::string>& ids,
                                           std::chrono::milliseconds limit) const;

 private:
  // Runs a Slurm command, returning its standard output; throws CommandFailure.
  std::string query(std::vector<std::string> argv, bool missing_job_is_empty = false) const;

  std::string bin_dir_;
  std::map<std::string, std::string> environment_;
};

}  // namespace mace::slurm

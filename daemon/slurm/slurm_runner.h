#pragma once
// Runs a checkout's commands on the checkout's Slurm node: each command is one srun job
// pinned to that node (REQ-EXEC-4), named after the run, task and purpose, with the
// resources of its kind. Its output streams back through srun exactly as a local command's
// does, so the build log, sim.log and verdicts are read as they are for a local checkout.
//
// While srun waits, a monitor finds the job's ID (by its name and the unique comment),
// tells the JobObserver before anything waits on it, and watches: the caller's token and
// timeout `scancel` the job; a job still pending past the limit is cancelled (never_started);
// a node that stops accepting work while the job waits for it ends the wait (node_failure).
// After srun returns, the job's final state decides the result (job_status.h), and the
// runner waits until Slurm has finished cleaning the job up, so nothing of it runs on the
// node once run() returns.
//
// Why srun and not sbatch: srun streams the output back through a pipe and starts at once
// (44 ms measured) where a batch job waits for the scheduler's next pass (about 3 s), and
// its death takes its job with it (kill -9 of srun: the remote tasks are gone in ~30 ms).

#include <memory>
#include <string>

#include "os/command_runner.h"
#include "slurm/job_observer.h"
#include "slurm/slurm_settings.h"
#include "slurm/srun_command.h"

namespace mace::slurm {

class SlurmRunner final : public os::CommandRunner {
 public:
  // `observer` may be null (nobody is told).
  SlurmRunner(std::shared_ptr<const SlurmSettings> settings, Placement placement,
              std::shared_ptr<JobObserver> observer);

  os::ProcessResult run(const os::ProcessSpec& spec, const os::CancelToken* cancel) const override;
  std::shared_ptr<const os::CommandRunner> labelled(const std::string& label) const override;
  // One allocation on the checkout's node, each command a step in it (slurm_allocation.h).
  std::shared_ptr<const os::CommandRunner> side_by_side(std::size_t at_once, const os::CancelToken* cancel,
                                                        std::string& why) const override;

  const Placement& placement() const { return placement_; }

 private:
  std::shared_ptr<const SlurmSettings> settings_;
  Placement placement_;
  std::shared_ptr<JobObserver> observer_;
};

}  // namespace mace::slurm

#pragma once
// A task's gate workloads side by side on its checkout's node: one Slurm allocation
// (salloc --no-shell) holding as many simulate steps' resources as the task runs at once,
// each command a job step inside it (srun --jobid), so the scheduler sees one job with
// the CPUs the task asked for instead of a queue of single simulations.
//
// The allocation is told to the JobObserver as soon as it exists (maced records it, and its
// keeper cancels it if maced dies), and is cancelled and waited for when the last runner
// holding it goes. A step is stopped by stopping its srun (the step's tasks die with it);
// nothing of a step is left in the allocation once run() returns. A step that ends because
// the allocation ended under it (its node failed, an operator's scancel) reports that as
// the host's stop, like a job of its own would (job_status.h).

#include <cstddef>
#include <memory>
#include <string>

#include "os/command_runner.h"
#include "slurm/job_observer.h"
#include "slurm/slurm_settings.h"
#include "slurm/srun_command.h"

namespace mace::slurm {

// Asks for an allocation of `steps` simulate steps on placement.node and waits until Slurm
// grants it: at most settings.pending_limit, less when `cancel` fires. Null, with `why`
// said, when it could not be had (nothing of it is left with Slurm then).
std::shared_ptr<const os::CommandRunner> hold_allocation(std::shared_ptr<const SlurmSettings> settings,
                                                         Placement placement,
                                                         std::shared_ptr<JobObserver> observer,
                                                         std::size_t steps,
                                                         const os::CancelToken* cancel,
                                                         std::string& why);

}  // namespace mace::slurm

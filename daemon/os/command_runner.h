#pragma once
// Where a command runs. Most of MACE runs its commands on this machine, each in a process
// group of its own (run_process_group). A checkout on another machine of a cluster has its
// builds and simulations placed there by a scheduler instead (daemon/slurm/). The code that
// forms a command does not care which: it asks the checkout's runner.

#include <cstddef>
#include <memory>
#include <string>

#include "os/cancel_token.h"
#include "os/process_group.h"

namespace mace::os {

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;

  // Runs `spec` to completion, with run_process_group's contract: the whole transcript to
  // spec.log_path, lines to spec.on_line, the timeout and the token obeyed, nothing of the
  // command left running when it returns. A runner that places the command elsewhere also
  // reports what that machine or scheduler did to it (ProcessResult::host_stop).
  virtual ProcessResult run(const ProcessSpec& spec, const CancelToken* cancel) const = 0;

  // This runner, also naming what it runs after `label` (the task a command belongs to),
  // so whoever looks at a cluster's queue can tell whose work it is.
  virtual std::shared_ptr<const CommandRunner> labelled(const std::string& label) const = 0;

  // A runner for up to `at_once` commands running side by side for a while (a task's gate
  // workloads), whatever it holds released when its last copy goes: here, this runner; on
  // a cluster, one allocation of that many commands' resources on the node, each command
  // a step inside it. Null, with `why` said, when none can be had (the token cancelled, the
  // node busy past the runner's limit); the caller then runs its commands one at a time
  // through this runner, which reports whatever stops them.
  virtual std::shared_ptr<const CommandRunner> side_by_side(std::size_t at_once,
                                                            const CancelToken* cancel,
                                                            std::string& why) const = 0;
};

// Runs commands here, through run_process_group; labels change nothing.
class LocalCommandRunner final : public CommandRunner,
                                 public std::enable_shared_from_this<LocalCommandRunner> {
 public:
  ProcessResult run(const ProcessSpec& spec, const CancelToken* cancel) const override;
  std::shared_ptr<const CommandRunner> labelled(const std::string& label) const override;
  std::shared_ptr<const CommandRunner> side_by_side(std::size_t at_once, const CancelToken* cancel,
                                                    std::string& why) const override;
};

// One shared local runner: what a checkout uses unless told otherwise.
std::shared_ptr<const CommandRunner> local_command_runner();

}  // namespace mace::os

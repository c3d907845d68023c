#pragma once
// The fork and exec behind run_process_group (process_group.h): a child that leads its own
// session and process group, has /dev/null for input, one pipe for output and error, no
// other descriptor of ours, default signal handling, and SIGKILL if its starting thread
// dies. Whether exec succeeded is known before launch_child returns, so a program that
// cannot start is an error message, not an exit code of 127.

#include <sys/resource.h>
#include <sys/types.h>

#include <string>

#include "os/process_group.h"
#include "os/unique_fd.h"

namespace mace::os {

struct LaunchedChild {
  // > 0: the child runs the program; it is our unreaped child and, being its own group's
  // leader, its pid is the group id. -1: nothing runs, see `error`.
  pid_t pid = -1;
  // The read end of the child's merged standard output and error, non-blocking.
  UniqueFd output;
  // Why nothing runs, naming the failing step and errno, e.g.
  // "cannot execute '/no/such/prog': No such file or directory".
  std::string error;
};

// `spec.argv` must be non-empty and `spec.env` valid (run_process_group checks both).
// The group is reported to the registry as soon as it exists.
LaunchedChild launch_child(const ProcessSpec& spec);

// Reaps our child `pid`, retrying on EINTR; its wait status, or -1 if it was not ours.
// `usage`, when given, receives what wait4 reports of it: its own use and that of every
// descendant it, or they, waited for.
int reap_child(pid_t pid, struct rusage* usage = nullptr);

// Told to the registry (set_process_group_registry) when a group starts and ends.
void report_group_started(pid_t pgid) noexcept;
void report_group_ended(pid_t pgid) noexcept;

}  // namespace mace::os

#pragma once
// What Linux tells about other processes: /proc/<pid>/stat, the list of processes, and
// pidfds, which name one process for good (a pid can be reused, a pidfd cannot).

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>

namespace mace::os {

struct ProcStat {
  char state = '?';          // R, S, D, Z (zombie), X (dead), ...
  pid_t ppid = 0;
  pid_t pgrp = 0;            // process group
  pid_t session = 0;
  std::uint64_t start = 0;   // start time, clock ticks since boot: with the pid, an identity

  // A zombie or dead process runs nothing any more; whoever inherited it reaps it.
  bool gone() const { return state == 'Z' || state == 'X' || state == 'x'; }
};

// Parses /proc/<pid>/stat. Allocates nothing and never throws, so it may be called from a
// hook that runs between fork and reap; nullopt when no such process exists (or it could
// not be read). comm may hold spaces and ')', so fields are counted from the last ')'.
std::optional<ProcStat> read_proc_stat(pid_t pid) noexcept;

// Calls `visit` with every pid listed in /proc (processes come and go while it runs).
void for_each_pid(const std::function<void(pid_t)>& visit);

// A pidfd for `pid` (CLOEXEC), or -1 with errno set (ENOSYS on kernels before 5.3).
int open_pidfd(pid_t pid) noexcept;
// Sends `sig` through a pidfd: the process it was opened for, or nobody. False with errno
// set when it could not be sent.
bool pidfd_send_signal(int pidfd, int sig) noexcept;

}  // namespace mace::os

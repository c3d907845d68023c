#include "os/proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "os/unique_fd.h"

namespace mace::os {

std::optional<ProcStat> read_proc_stat(pid_t pid) noexcept {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  UniqueFd fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  char buf[1024];
  ssize_t n;
  do {
    n = ::read(fd.get(), buf, sizeof buf - 1);
  } while (n < 0 && errno == EINTR);
  if (n <= 0) return std::nullopt;
  std::string_view text(buf, static_cast<std::size_t>(n));
  const std::size_t close_paren = text.rfind(')');
  if (close_paren == std::string_view::npos || close_paren + 2 >= text.size()) return std::nullopt;
  text.remove_prefix(close_paren + 2);
  // Fields from 3 (state) on; we need 3, 4, 5, 6 and 22 (proc(5)).
  ProcStat stat;
  int field = 3;
  while (!text.empty()) {
    const std::size_t end = text.find(' ');
    const std::string_view token = text.substr(0, end);
    auto number = [&](auto& into) {
      return std::from_chars(token.data(), token.data() + token.size(), into).ec == std::errc();
    };
    if (field == 3) stat.state = token.empty() ? '?' : token[0];
    if (field == 4 && !number(stat.ppid)) return std::nullopt;
    if (field == 5 && !number(stat.pgrp)) return std::nullopt;
    if (field == 6 && !number(stat.session)) return std::nullopt;
    if (field == 22) {
      if (!number(stat.start)) return std::nullopt;
      return stat;
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
    ++field;
  }
  return std::nullopt;
}

void for_each_pid(const std::function<void(pid_t)>& visit) {
  DIR* proc = ::opendir("/proc");
  if (!proc) return;
  while (dirent* entry = ::readdir(proc)) {
    const char* name = entry->d_name;
    if (name[0] < '1' || name[0] > '9') continue;
    visit(static_cast<pid_t>(std::atoi(name)));
  }
  ::closedir(proc);
}

int open_pidfd(pid_t pid) noexcept {
#ifdef SYS_pidfd_open
  // pidfd_open's fds are always close-on-exec.
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

bool pidfd_send_signal(int pidfd, int sig) noexcept {
#ifdef SYS_pidfd_send_signal
  return ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0;
#else
  (void)pidfd;
  (void)sig;
  errno = ENOSYS;
  return false;
#endif
}

}  // namespace mace::os

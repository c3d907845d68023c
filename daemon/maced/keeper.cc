#include "maced/keeper.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string_view>
#include <thread>

namespace mace {
namespace {

std::atomic<int> write_fd{-1};
pid_t the_keeper = -1;

struct ProcStat {
  pid_t pgrp = 0;
  pid_t session = 0;
  std::uint64_t start = 0;
  char state = '?';
};

// Parses /proc/PID/stat with a stack buffer only: the registry hook calls this from build
// threads, where it must not throw. comm may hold spaces and ')', so fields are counted
// from the last ')'.
std::optional<ProcStat> read_stat(pid_t pid) {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[1024];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof buf - 1);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  std::string_view text(buf, static_cast<std::size_t>(n));
  std::size_t close_paren = text.rfind(')');
  if (close_paren == std::string_view::npos || close_paren + 2 >= text.size()) return std::nullopt;
  text.remove_prefix(close_paren + 2);
  // Fields from 3 (state) on; we need 3, 5, 6 and 22.
  ProcStat stat;
  int field = 3;
  while (!text.empty() && field <= 22) {
    std::size_t end = text.find(' ');
    std::string_view token = text.substr(0, end);
    auto number = [&](auto& into) {
      return std::from_chars(token.data(), token.data() + token.size(), into).ec == std::errc();
    };
    if (field == 3) stat.state = token.empty() ? '?' : token[0];
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

void write_all(int fd, const char* data, std::size_t size) noexcept {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // The keeper died (EPIPE; maced ignores SIGPIPE). Say so once: from now on a kill -9
      // of maced leaves its builds running outside systemd.
      static std::atomic<bool> warned{false};
      if (!warned.exchange(true)) {
        static const char message[] =
            "maced: the keeper is gone; builds may outlive a maced that is killed\n";
        ssize_t ignored = ::write(2, message, sizeof message - 1);
        (void)ignored;
      }
      return;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

void report_started(pid_t pgid) noexcept {
  int fd = write_fd.load(std::memory_order_acquire);
  if (fd < 0) return;
  // The leader is our unreaped child, so this stat is certainly its.
  auto stat = read_stat(pgid);
  char line[64];
  int n = std::snprintf(line, sizeof line, "+%d %llu\n", static_cast<int>(pgid),
                        static_cast<unsigned long long>(stat ? stat->start : 0));
  write_all(fd, line, static_cast<std::size_t>(n));
}

void report_ended(pid_t pgid) noexcept {
  int fd = write_fd.load(std::memory_order_acquire);
  if (fd < 0) return;
  char line[32];
  int n = std::snprintf(line, sizeof line, "-%d\n", static_cast<int>(pgid));
  write_all(fd, line, static_cast<std::size_t>(n));
}

int open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

bool pidfd_kill(int pidfd) {
#ifdef SYS_pidfd_send_signal
  return ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0) == 0;
#else
  (void)pidfd;
  errno = ENOSYS;
  return false;
#endif
}

// Keeps only what the keeper needs: the pipe's read end, standard error for its log, and
// /dev/null on 0 and 1 (so it never holds maced's output pipes or its listening socket).
void close_inherited_fds(int keep) {
  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull >= 0) {
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    if (devnull > 2) ::close(devnull);
  }
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return;
  std::set<int> to_close;
  while (dirent* entry = ::readdir(dir)) {
    int fd = std::atoi(entry->d_name);
    if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9' && fd > 2 && fd != keep &&
        fd != ::dirfd(dir))
      to_close.insert(fd);
  }
  ::closedir(dir);
  for (int fd : to_close) ::close(fd);
}

}  // namespace

namespace keeper {

std::optional<std::uint64_t> start_time(pid_t pid) {
  auto stat = read_stat(pid);
  if (!stat) return std::nullopt;
  return stat->start;
}

bool apply_line(const std::string& line, Groups& groups) {
  if (line.size() < 2 || (line[0] != '+' && line[0] != '-')) return false;
  const char* begin = line.data() + 1;
  const char* end = line.data() + line.size();
  pid_t pgid = 0;
  auto parsed = std::from_chars(begin, end, pgid);
  if (parsed.ec != std::errc() || pgid <= 1) return false;
  if (line[0] == '-') {
    if (parsed.ptr != end) return false;
    groups.erase(pgid);
    return true;
  }
  std::uint64_t start = 0;
  if (parsed.ptr == end || *parsed.ptr != ' ') return false;
  auto parsed_start = std::from_chars(parsed.ptr + 1, end, start);
  if (parsed_start.ec != std::errc() || parsed_start.ptr != end) return false;
  groups[pgid] = start;
  return true;
}

int sweep(const Groups& registered, std::chrono::milliseconds limit) {
  Groups groups;
  for (const auto& [pgid, start] : registered) {
    auto leader = read_stat(pgid);
    // A different process holds the group's id: the group emptied and the id was reused.
    if (leader && leader->start != start) continue;
    groups.emplace(pgid, start);
  }
  if (groups.empty()) return 0;

  const pid_t self = ::getpid();
  auto ours = [&](const ProcStat& stat) {
    for (pid_t id : {stat.pgrp, stat.session}) {
      auto group = groups.find(id);
      if (group != groups.end() && stat.start >= group->second) return true;
    }
    return false;
  };

  std::set<pid_t> signalled;
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (true) {
    int found = 0;
    if (DIR* proc = ::opendir("/proc")) {
      while (dirent* entry = ::readdir(proc)) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
        pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (pid == self) continue;
        auto stat = read_stat(pid);
        // A zombie is already dead; whoever inherited it reaps it.
        if (!stat || stat->state == 'Z' || stat->state == 'X' || !ours(*stat)) continue;
        ++found;
        int pidfd = open_pidfd(pid);
        if (pidfd >= 0) {
          // The pidfd pins this process: check it is still the one we matched.
          auto again = read_stat(pid);
          if (again && again->start == stat->start && ours(*again) && pidfd_kill(pidfd))
            signalled.insert(pid);
          ::close(pidfd);
        } else if (errno == ENOSYS) {
          if (::kill(pid, SIGKILL) == 0) signalled.insert(pid);
        }
      }
      ::closedir(proc);
    }
    if (found == 0 || std::chrono::steady_clock::now() >= give_up) break;
    // Members may fork while we scan; look again until nothing of ours is left.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return static_cast<int>(signalled.size());
}

int run(int fd) {
  Groups groups;
  std::string pending;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: every copy of the write end is closed, so maced is gone
    pending.append(buf, static_cast<std::size_t>(n));
    std::size_t begin = 0;
    for (std::size_t nl; (nl = pending.find('\n', begin)) != std::string::npos; begin = nl + 1) {
      std::string line = pending.substr(begin, nl - begin);
      if (!apply_line(line, groups))
        std::fprintf(stderr, "maced-keeper: ignoring a malformed line: %s\n", line.c_str());
    }
    pending.erase(0, begin);
  }
  if (groups.empty()) return 0;
  const std::size_t group_count = groups.size();
  int killed = sweep(groups, std::chrono::seconds(5));
  std::fprintf(stderr,
               "maced-keeper: maced exited with %zu process group(s) still registered; "
               "killed %d process(es) left in them\n",
               group_count, killed);
  return 0;
}

}  // namespace keeper

bool start_keeper(std::string& error) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) < 0) {
    error = std::string("cannot create the keeper's pipe: ") + std::strerror(errno);
    return false;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("cannot fork the keeper: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return false;
  }
  if (pid == 0) {
    ::close(fds[1]);
    // Ctrl-C in a terminal, or systemd's SIGTERM to the whole cgroup, reaches the keeper
    // too; it must stay until maced is gone and then clean up, which EOF tells it.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2})
      std::signal(sig, SIG_IGN);
    ::prctl(PR_SET_NAME, "maced-keeper", 0, 0, 0);
    close_inherited_fds(fds[0]);
    std::_Exit(keeper::run(fds[0]));
  }
  ::close(fds[0]);
  the_keeper = pid;
  write_fd.store(fds[1], std::memory_order_release);
  openpiton::set_process_group_registry({&report_started, &report_ended});
  return true;
}

pid_t keeper_pid() { return the_keeper; }

}  // namespace mace

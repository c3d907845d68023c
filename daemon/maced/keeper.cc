#include "maced/keeper.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "os/errno_text.h"
#include "os/proc.h"
#include "os/process_group.h"
#include "os/unique_fd.h"
#include "slurm/job_status.h"
#include "slurm/slurm_commands.h"
#include "slurm/srun_command.h"

namespace mace {
namespace {

std::atomic<int> write_fd{-1};
pid_t the_keeper = -1;

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
  auto stat = os::read_proc_stat(pgid);
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

bool is_job_id(std::string_view id) {
  return !id.empty() && id.size() <= 32 &&
         std::all_of(id.begin(), id.end(), [](char c) { return (c >= '0' && c <= '9') || c == '_'; });
}

void report_job(char sign, const std::string& job_id) {
  int fd = write_fd.load(std::memory_order_acquire);
  if (fd < 0 || !is_job_id(job_id)) return;
  const std::string line = std::string("J") + sign + job_id + "\n";
  write_all(fd, line.data(), line.size());
}

// Keeps only what the keeper needs: the pipe's read end, standard error for its log, and
// /dev/null on 0 and 1 (so it never holds maced's output pipes or its listening socket).
void close_inherited_fds(int keep) {
  {
    os::UniqueFd devnull(::open("/dev/null", O_RDWR | O_CLOEXEC));
    if (devnull) {
      ::dup2(devnull.get(), 0);
      ::dup2(devnull.get(), 1);
      if (devnull.get() <= 2) (void)devnull.release();  // it is 0 or 1 itself now
    }
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
  auto stat = os::read_proc_stat(pid);
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
    auto leader = os::read_proc_stat(pgid);
    // A different process holds the group's id: the group emptied and the id was reused.
    if (leader && leader->start != start) continue;
    groups.emplace(pgid, start);
  }
  if (groups.empty()) return 0;

  const pid_t self = ::getpid();
  auto ours = [&](const os::ProcStat& stat) {
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
    os::for_each_pid([&](pid_t pid) {
      if (pid == self) return;
      auto stat = os::read_proc_stat(pid);
      // A zombie is already dead; whoever inherited it reaps it.
      if (!stat || stat->gone() || !ours(*stat)) return;
      ++found;
      os::UniqueFd pidfd(os::open_pidfd(pid));
      if (pidfd) {
        // The pidfd pins this process: check it is still the one we matched.
        auto again = os::read_proc_stat(pid);
        if (again && again->start == stat->start && ours(*again) &&
            os::pidfd_send_signal(pidfd.get(), SIGKILL))
          signalled.insert(pid);
      } else if (errno == ENOSYS) {
        if (::kill(pid, SIGKILL) == 0) signalled.insert(pid);
      }
    });
    if (found == 0 || std::chrono::steady_clock::now() >= give_up) break;
    // Members may fork while we scan; look again until nothing of ours is left.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return static_cast<int>(signalled.size());
}

bool apply_job_line(const std::string& line, std::set<std::string>& jobs) {
  if (line.size() < 3 || line[0] != 'J' || (line[1] != '+' && line[1] != '-')) return false;
  const std::string id = line.substr(2);
  if (!is_job_id(id)) return false;
  if (line[1] == '+')
    jobs.insert(id);
  else
    jobs.erase(id);
  return true;
}

int cancel_jobs(const std::set<std::string>& registered, const slurm::SlurmSettings& settings) {
  const slurm::SlurmCommands commands(settings);
  std::vector<std::string> ids(registered.begin(), registered.end());
  bool listed = true;
  try {
    const std::string ours = slurm::comment_prefix(settings.instance);
    for (const auto& job : commands.live_jobs_of(::geteuid()))
      if (job.comment.starts_with(ours) && !registered.contains(job.id)) ids.push_back(job.id);
  } catch (const slurm::CommandFailure& failure) {
    std::fprintf(stderr, "maced-keeper: cannot list maced's Slurm jobs: %s\n", failure.message.c_str());
    listed = false;
  }
  if (ids.empty()) return listed ? 0 : -1;
  try {
    commands.cancel(ids);
  } catch (const slurm::CommandFailure& failure) {
    std::fprintf(stderr, "maced-keeper: scancel failed: %s\n", failure.message.c_str());
    return -1;
  }
  return static_cast<int>(ids.size());
}

int run(int fd, const std::optional<slurm::SlurmSettings>& slurm) {
  Groups groups;
  std::set<std::string> jobs;
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
      const bool applied = line.starts_with("J") ? apply_job_line(line, jobs) : apply_line(line, groups);
      if (!applied)
        std::fprintf(stderr, "maced-keeper: ignoring a malformed line: %s\n", line.c_str());
    }
    pending.erase(0, begin);
  }
  if (!groups.empty()) {
    const std::size_t group_count = groups.size();
    int killed = sweep(groups, std::chrono::seconds(5));
    std::fprintf(stderr,
                 "maced-keeper: maced exited with %zu process group(s) still registered; "
                 "killed %d process(es) left in them\n",
                 group_count, killed);
  }
  // After the sweep: no srun of maced's is left to submit another job.
  if (slurm) {
    const int cancelled = cancel_jobs(jobs, *slurm);
    if (cancelled != 0)
      std::fprintf(stderr, "maced-keeper: maced exited with %zu Slurm job(s) registered; "
                   "cancelled %d of its jobs\n", jobs.size(), cancelled);
  }
  return 0;
}

}  // namespace keeper

void start_keeper(std::optional<slurm::SlurmSettings> slurm) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) < 0)
    throw std::runtime_error("cannot create the keeper's pipe: " + os::errno_text(errno));
  os::UniqueFd read_end(fds[0]), write_end(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot fork the keeper: " + os::errno_text(errno));
  if (pid == 0) {
    write_end.reset();
    // Ctrl-C in a terminal, or systemd's SIGTERM to the whole cgroup, reaches the keeper
    // too; it must stay until maced is gone and then clean up, which EOF tells it.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2})
      std::signal(sig, SIG_IGN);
    ::prctl(PR_SET_NAME, "maced-keeper", 0, 0, 0);
    close_inherited_fds(read_end.get());
    std::_Exit(keeper::run(read_end.get(), slurm));
  }
  the_keeper = pid;
  // maced holds the write end until it exits, however it exits: its end is the keeper's EOF.
  write_fd.store(write_end.release(), std::memory_order_release);
  os::set_process_group_registry({&report_started, &report_ended});
}

pid_t keeper_pid() { return the_keeper; }

void keeper_job_started(const std::string& job_id) { report_job('+', job_id); }
void keeper_job_ended(const std::string& job_id) { report_job('-', job_id); }

}  // namespace mace

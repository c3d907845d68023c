#include "os/process_group.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

#include "os/child_launch.h"
#include "os/errno_text.h"
#include "os/proc.h"
#include "os/process_output.h"
#include "os/unique_fd.h"

namespace mace::os {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr int kReadsPerWakeup = 16;  // then look at timers and the token again
constexpr auto kGroupExitWait = std::chrono::milliseconds(2000);
constexpr auto kFallbackPollInterval = std::chrono::milliseconds(20);

std::atomic<void (*)(pid_t) noexcept> registry_started{nullptr};
std::atomic<void (*)(pid_t) noexcept> registry_ended{nullptr};

// Members of process group `pgid` that are still running (not zombies), except `except`.
// kill(-pgid, 0) cannot tell: it succeeds for a group of zombies, and a killed orphan stays a
// zombie until init gets round to reaping it (seconds, in some containers).
int count_live_members(pid_t pgid, pid_t except) {
  if (::kill(-pgid, 0) < 0 && errno == ESRCH) return 0;
  int live = 0;
  for_each_pid([&](pid_t pid) {
    if (pid == except) return;
    auto stat = read_proc_stat(pid);
    if (stat && stat->pgrp == pgid && !stat->gone()) ++live;
  });
  return live;
}

// Kills every live member of `pgid`, waiting (bounded) until none runs any more. SIGKILL is
// only queued by kill(); the victims may still be finishing a system call.
void kill_group_and_wait(pid_t pgid, std::chrono::milliseconds limit) {
  const auto give_up = Clock::now() + limit;
  auto pause = std::chrono::milliseconds(1);
  while (count_live_members(pgid, -1) > 0 && Clock::now() < give_up) {
    ::kill(-pgid, SIGKILL);  // members exist, so the group id cannot have been reused
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

// Without a pidfd: has the leader exited? Leaves it unreaped (WNOWAIT).
bool leader_exited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0)
    return errno == ECHILD;
  return info.si_pid != 0;
}

ResourceUsage resource_usage(const struct rusage& u) {
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  ResourceUsage out;
  out.cpu_seconds = seconds(u.ru_utime) + seconds(u.ru_stime);
  out.peak_rss_bytes = static_cast<std::int64_t>(u.ru_maxrss) * 1024;  // Linux: kilobytes
  return out;
}

int ceil_millis(Clock::duration d) {
  if (d <= Clock::duration::zero()) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<int>(std::min<std::int64_t>(ms, 24 * 3600 * 1000));
}

// Watches one launched group until nothing of it is left: reads its output, enforces the
// deadline and the cancel token, kills what the leader leaves behind, reaps the leader.
class GroupWatch {
 public:
  GroupWatch(const ProcessSpec& spec, const CancelToken* cancel, ProcessResult& result,
             LaunchedChild child, int log_fd, Clock::time_point start)
      : spec_(spec),
        cancel_(cancel),
        result_(result),
        pid_(child.pid),
        output_read_(std::move(child.output)),
        pidfd_(open_pidfd(child.pid)),
        output_(spec, result, log_fd) {
    if (spec.timeout > std::chrono::milliseconds::zero()) deadline_ = start + spec.timeout;
  }

  // Left by an exception (a throwing callback): the group must not outlive us.
  ~GroupWatch() {
    if (leader_reaped_) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    report_group_ended(pid_);
    reap_child(pid_);
  }

  GroupWatch(const GroupWatch&) = delete;
  GroupWatch& operator=(const GroupWatch&) = delete;

  void run() {
    while (!leader_reaped_ || output_read_.valid()) {
      if (!act_on_timers(Clock::now())) break;
      wait_and_handle();
    }
    output_read_.reset();
    output_.finish();
    // Members that redirected their output elsewhere (so did not hold up the drain) may
    // still be dying. Callers rely on the group being gone when we return.
    kill_group_and_wait(pid_, kGroupExitWait);
  }

 private:
  enum class Stopping { no, term_sent, kill_sent };

  // False when output capture must stop: the drain time after the leader's exit ran out.
  bool act_on_timers(Clock::time_point now) {
    if (stopping_ == Stopping::no && deadline_ && now >= *deadline_) begin_stop(true);
    if (stopping_ == Stopping::term_sent && !leader_reaped_ && now >= kill_at_) send_kill();
    if (leader_reaped_ && now >= drain_deadline_) {
      result_.output_abandoned = true;
      return false;
    }
    return true;
  }

  void wait_and_handle() {
    pollfd fds[3];
    nfds_t count = 0;
    int output_index = -1, pidfd_index = -1, cancel_index = -1;
    if (output_read_.valid()) {
      output_index = static_cast<int>(count);
      fds[count++] = {output_read_.get(), POLLIN, 0};
    }
    if (!leader_reaped_ && pidfd_.valid()) {
      pidfd_index = static_cast<int>(count);
      fds[count++] = {pidfd_.get(), POLLIN, 0};
    }
    if (cancel_ && stopping_ == Stopping::no && !leader_reaped_) {
      cancel_index = static_cast<int>(count);
      fds[count++] = {cancel_->fd(), POLLIN, 0};
    }

    int ready = ::poll(fds, count, poll_timeout_ms(Clock::now()));
    if (ready < 0) {
      if (errno == EINTR) return;
      throw std::system_error(errno, std::generic_category(), "poll");  // ~GroupWatch kills
    }
    if (output_index >= 0 && fds[output_index].revents != 0) read_output();
    if (!leader_reaped_) {
      bool exited = pidfd_index >= 0 ? fds[pidfd_index].revents != 0
                                     : (!pidfd_.valid() && leader_exited(pid_));
      if (exited) on_leader_exit();
    }
    if (cancel_index >= 0 && fds[cancel_index].revents != 0) begin_stop(false);
  }

  // Until the next timer: the deadline, the SIGKILL after SIGTERM, the end of the drain.
  int poll_timeout_ms(Clock::time_point now) const {
    std::optional<Clock::time_point> wake;
    auto wake_by = [&](Clock::time_point t) { wake = wake ? std::min(*wake, t) : t; };
    if (stopping_ == Stopping::no && deadline_) wake_by(*deadline_);
    if (stopping_ == Stopping::term_sent && !leader_reaped_) wake_by(kill_at_);
    if (leader_reaped_) wake_by(drain_deadline_);
    if (!leader_reaped_ && !pidfd_.valid()) wake_by(now + kFallbackPollInterval);
    return wake ? ceil_millis(*wake - now) : -1;
  }

  void send_kill() {
    ::kill(-pid_, SIGKILL);
    stopping_ = Stopping::kill_sent;
  }

  void begin_stop(bool because_of_timeout) {
    if (stopping_ != Stopping::no || leader_reaped_) return;
    (because_of_timeout ? result_.timed_out : result_.cancelled) = true;
    ::kill(-pid_, SIGTERM);
    stopping_ = Stopping::term_sent;
    kill_at_ = Clock::now() + spec_.kill_grace;
    if (spec_.kill_grace <= std::chrono::milliseconds::zero()) send_kill();
  }

  void on_leader_exit() {
    // The leader is a zombie, so its pid (= the group id) cannot be reused until we reap
    // it: kill the rest of the group first. Leftover daemons of a finished build die here.
    if (stopping_ == Stopping::no) result_.stragglers_killed = count_live_members(pid_, pid_);
    ::kill(-pid_, SIGKILL);
    report_group_ended(pid_);
    struct rusage usage {};
    int status = reap_child(pid_, &usage);
    leader_reaped_ = true;
    if (status != -1) result_.usage = resource_usage(usage);
    if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result_.term_signal = WTERMSIG(status);
    drain_deadline_ = Clock::now() + spec_.drain_timeout;
  }

  void read_output() {
    for (int i = 0; i < kReadsPerWakeup; ++i) {
      ssize_t n = ::read(output_read_.get(), buffer_.data(), buffer_.size());
      if (n > 0) {
        output_.consume(buffer_.data(), static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      output_read_.reset();  // EOF (or an error we cannot recover from)
      return;
    }
  }

  const ProcessSpec& spec_;
  const CancelToken* cancel_;
  ProcessResult& result_;
  const pid_t pid_;
  UniqueFd output_read_;
  UniqueFd pidfd_;
  ProcessOutput output_;
  std::vector<char> buffer_ = std::vector<char>(kReadChunk);
  Stopping stopping_ = Stopping::no;
  Clock::time_point kill_at_{};
  std::optional<Clock::time_point> deadline_;
  bool leader_reaped_ = false;
  Clock::time_point drain_deadline_{};
};

// Why `spec` cannot be launched at all; empty when it can.
std::string spec_problem(const ProcessSpec& spec) {
  if (spec.argv.empty()) return "empty argv: nothing to run";
  for (const auto& [name, value] : spec.env) {
    if (name.empty() || name.find('=') != std::string::npos)
      return "invalid environment variable name '" + name + "'";
  }
  return "";
}

}  // namespace

void report_group_started(pid_t pgid) noexcept {
  if (auto hook = registry_started.load(std::memory_order_acquire)) hook(pgid);
}

void report_group_ended(pid_t pgid) noexcept {
  if (auto hook = registry_ended.load(std::memory_order_acquire)) hook(pgid);
}

ProcessResult run_process_group(const ProcessSpec& spec, const CancelToken* cancel) {
  ProcessResult result;
  const auto start = Clock::now();
  auto stop_clock = [&] {
    result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  };
  auto launch_failure = [&](std::string message) {
    result.launch_failed = true;
    result.error = std::move(message);
    stop_clock();
    return result;
  };

  if (std::string problem = spec_problem(spec); !problem.empty()) return launch_failure(problem);
  if (cancel && cancel->cancelled()) {
    result.cancelled = true;
    stop_clock();
    return result;
  }

  UniqueFd log_fd;
  if (!spec.log_path.empty()) {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (spec.log_append ? O_APPEND : O_TRUNC);
    log_fd.reset(::open(spec.log_path.c_str(), flags, 0644));
    if (!log_fd)
      return launch_failure("cannot open log file '" + spec.log_path + "': " + errno_text(errno));
  }

  LaunchedChild child = launch_child(spec);
  if (child.pid <= 0) return launch_failure(std::move(child.error));
  result.pid = child.pid;
  GroupWatch(spec, cancel, result, std::move(child), log_fd.get(), start).run();
  stop_clock();
  return result;
}

void set_process_group_registry(ProcessGroupRegistry registry) noexcept {
  registry_started.store(registry.started, std::memory_order_release);
  registry_ended.store(registry.ended, std::memory_order_release);
}

std::string_view to_string(CommandPurpose purpose) {
  switch (purpose) {
    case CommandPurpose::command: return "command";
    case CommandPurpose::build: return "build";
    case CommandPurpose::simulate: return "simulate";
    case CommandPurpose::compile_workload: return "compile-workload";
    case CommandPurpose::verilator_version: return "verilator-version";
    case CommandPurpose::coverage: return "coverage";
    case CommandPurpose::unit_test_build: return "unit-test-build";
  }
  return "";
}

std::string_view to_string(HostStop stop) {
  switch (stop) {
    case HostStop::none: return "";
    case HostStop::node_failure: return "node_failure";
    case HostStop::out_of_memory: return "out_of_memory";
    case HostStop::never_started: return "never_started";
    case HostStop::killed_by_scheduler: return "killed_by_scheduler";
  }
  return "";
}

}  // namespace mace::os

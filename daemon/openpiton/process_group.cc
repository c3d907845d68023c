#include "openpiton/process_group.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

extern char** environ;

namespace mace::openpiton {

// ---- CancelToken ----------------------------------------------------------------------

CancelToken::CancelToken() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

CancelToken::~CancelToken() {
  if (fd_ >= 0) ::close(fd_);
}

void CancelToken::cancel() noexcept {
  if (cancelled_.exchange(true, std::memory_order_acq_rel)) return;
  const int saved_errno = errno;  // async-signal-safe: leave errno as it was
  const std::uint64_t one = 1;
  ssize_t written;
  do {
    written = ::write(fd_, &one, sizeof one);
  } while (written < 0 && errno == EINTR);
  errno = saved_errno;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string errno_text(int err) { return std::generic_category().message(err); }

// Owns one descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// ---- The child, between fork and exec ---------------------------------------------------
// Only async-signal-safe calls from here on: another thread of the parent may have held a
// malloc or stdio lock at the moment of fork. Everything is prepared before the fork.

enum ChildStage : int { kSetsid = 1, kPdeathsig, kRedirect, kChdir, kExec };

struct ChildFailure {
  int stage;
  int err;
};

struct ChildPlan {
  pid_t parent = -1;
  int devnull = -1;
  int output_write = -1;
  int status_write = -1;  // CLOEXEC: EOF in the parent means exec succeeded
  const char* working_dir = nullptr;  // null: stay
  std::vector<const char*> candidates;  // paths to try in order
  bool searched = false;  // candidates come from a PATH search
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  struct sigaction default_action {};
  sigset_t empty_mask{};
};

[[noreturn]] void child_fail(int status_fd, int stage, int err) {
  ChildFailure failure{stage, err};
  ssize_t ignored = ::write(status_fd, &failure, sizeof failure);
  (void)ignored;
  ::_exit(127);
}

// Moves a descriptor out of 0..2 so the dup2 calls below cannot clobber it (the daemon may
// run with its standard descriptors closed, so our pipe can be fd 1).
int above_stdio(int fd) { return fd > 2 ? fd : ::fcntl(fd, F_DUPFD_CLOEXEC, 3); }

[[noreturn]] void child_main(const ChildPlan& plan) {
  // The signal mask is still "all blocked" (set by the parent around fork), so no handler of
  // the parent's can run in here while the dispositions are reset. Ignored dispositions
  // survive exec; handled ones become default anyway.
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    ::sigaction(sig, &plan.default_action, nullptr);  // EINVAL for libc-reserved ones: fine
  }
  int status_fd = above_stdio(plan.status_write);
  if (status_fd < 0) ::_exit(127);
  if (::setsid() < 0) child_fail(status_fd, kSetsid, errno);
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) child_fail(status_fd, kPdeathsig, errno);
  // The parent may have died before prctl took effect: then nobody would ever kill us.
  if (::getppid() != plan.parent) ::_exit(127);

  int in_fd = above_stdio(plan.devnull);
  int out_fd = above_stdio(plan.output_write);
  if (in_fd < 0 || out_fd < 0) child_fail(status_fd, kRedirect, errno);
  if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(out_fd, 2) < 0)
    child_fail(status_fd, kRedirect, errno);

  if (plan.working_dir && ::chdir(plan.working_dir) < 0) child_fail(status_fd, kChdir, errno);

#ifdef CLOSE_RANGE_CLOEXEC
  // Other libraries of the daemon may have descriptors without CLOEXEC (or be between open
  // and fcntl); a build's leftover daemon must not keep a socket of ours open. 0..2 are the
  // dup2 copies, which have no CLOEXEC.
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
#endif

  ::sigprocmask(SIG_SETMASK, &plan.empty_mask, nullptr);

  // Like execvp: remember EACCES, skip entries where the file is not found, stop at any other
  // error (the file exists but cannot run).
  int err = ENOENT;
  bool saw_eacces = false;
  for (const char* path : plan.candidates) {
    ::execve(path, plan.argv, plan.envp);
    err = errno;
    if (!plan.searched) break;
    if (err == EACCES) {
      saw_eacces = true;
    } else if (err != ENOENT && err != ENOTDIR && err != ELOOP && err != ENAMETOOLONG &&
               err != ESTALE && err != ENODEV && err != ETIMEDOUT) {
      break;
    }
  }
  if (plan.searched && saw_eacces && (err == ENOENT || err == ENOTDIR)) err = EACCES;
  child_fail(status_fd, kExec, err);
}

std::string describe_failure(const ChildFailure& failure, const ProcessSpec& spec,
                             const std::string& path_searched) {
  const std::string why = errno_text(failure.err);
  switch (failure.stage) {
    case kSetsid:
      return "setsid failed: " + why;
    case kPdeathsig:
      return "prctl(PR_SET_PDEATHSIG) failed: " + why;
    case kRedirect:
      return "cannot redirect standard input/output: " + why;
    case kChdir:
      return "cannot change directory to '" + spec.working_dir + "': " + why;
    case kExec: {
      std::string message = "cannot execute '" + spec.argv[0] + "': " + why;
      if (!path_searched.empty()) message += " (searched PATH=" + path_searched + ")";
      return message;
    }
    default:
      return "child setup failed: " + why;
  }
}

// ---- Process groups ----------------------------------------------------------------------

// Parses /proc/<pid>/stat: "pid (comm) S ppid pgrp ...". comm may hold spaces and ')'.
bool read_stat(const char* pid_name, char& state, pid_t& pgrp) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%s/stat", pid_name);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[512];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  char* close_paren = std::strrchr(buf, ')');
  if (!close_paren) return false;
  int ppid = 0, group = 0;
  if (std::sscanf(close_paren + 1, " %c %d %d", &state, &ppid, &group) != 3) return false;
  pgrp = group;
  return true;
}

// Members of process group `pgid` that are still running (not zombies), except `except`.
// kill(-pgid, 0) cannot tell: it succeeds for a group of zombies, and a killed orphan stays a
// zombie until init gets round to reaping it (seconds, in some containers).
int count_live_members(pid_t pgid, pid_t except) {
  if (::kill(-pgid, 0) < 0 && errno == ESRCH) return 0;
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  int live = 0;
  while (dirent* entry = ::readdir(proc)) {
    const char* name = entry->d_name;
    if (name[0] < '1' || name[0] > '9') continue;
    if (std::atoi(name) == except) continue;
    char state = 0;
    pid_t group = 0;
    if (!read_stat(name, state, group) || group != pgid) continue;
    if (state != 'Z' && state != 'X' && state != 'x') ++live;
  }
  ::closedir(proc);
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

std::optional<int> open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) return static_cast<int>(fd);
#endif
  (void)pid;
  return std::nullopt;
}

// Without a pidfd: has the leader exited? Leaves it unreaped (WNOWAIT).
bool leader_exited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0)
    return errno == ECHILD;
  return info.si_pid != 0;
}

std::atomic<void (*)(pid_t) noexcept> registry_started{nullptr};
std::atomic<void (*)(pid_t) noexcept> registry_ended{nullptr};

void report_started(pid_t pgid) noexcept {
  if (auto hook = registry_started.load(std::memory_order_acquire)) hook(pgid);
}
void report_ended(pid_t pgid) noexcept {
  if (auto hook = registry_ended.load(std::memory_order_acquire)) hook(pgid);
}

int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// Kills and reaps the group if the run is left by an exception (a throwing callback).
struct LeaderGuard {
  pid_t pid = -1;
  bool reaped = false;
  ~LeaderGuard() {
    if (pid <= 0 || reaped) return;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    report_ended(pid);
    reap(pid);
  }
};

// ---- Output -----------------------------------------------------------------------------

// Fans the merged output out to the log file, the tail, and the line consumers.
class OutputSink {
 public:
  OutputSink(const ProcessSpec& spec, ProcessResult& result, int log_fd)
      : spec_(spec), result_(result), log_fd_(log_fd) {
    line_.reserve(std::min<std::size_t>(spec.max_line_bytes, 4096));
  }

  void consume(const char* data, std::size_t size) {
    result_.output_bytes += size;
    write_log(data, size);
    keep_tail(data, size);
    if (!spec_.on_line && !spec_.is_error_line) return;
    while (size > 0) {
      const char* newline = static_cast<const char*>(std::memchr(data, '\n', size));
      std::size_t piece = newline ? static_cast<std::size_t>(newline - data) : size;
      add_to_line(data, piece);
      if (!newline) break;
      end_line();
      data += piece + 1;
      size -= piece + 1;
    }
  }

  void finish() {
    if (in_line_) end_line();
    if (result_.tail.size() > spec_.tail_bytes)
      result_.tail.erase(0, result_.tail.size() - spec_.tail_bytes);
  }

 private:
  void write_log(const char* data, std::size_t size) {
    if (log_fd_ < 0) return;
    while (size > 0) {
      ssize_t n = ::write(log_fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        result_.log_error = "cannot write log file '" + spec_.log_path + "': " + errno_text(errno);
        log_fd_ = -1;  // the caller's UniqueFd closes it
        return;
      }
      data += n;
      size -= static_cast<std::size_t>(n);
    }
  }

  void keep_tail(const char* data, std::size_t size) {
    const std::size_t cap = spec_.tail_bytes;
    if (cap == 0) return;
    std::string& tail = result_.tail;
    if (size >= cap) {
      tail.assign(data + size - cap, cap);
      return;
    }
    tail.append(data, size);
    if (tail.size() > 2 * cap) tail.erase(0, tail.size() - cap);  // amortised trimming
  }

  void add_to_line(const char* data, std::size_t size) {
    in_line_ = true;
    if (line_.size() >= spec_.max_line_bytes) return;
    line_.append(data, std::min(size, spec_.max_line_bytes - line_.size()));
    if (line_.size() < spec_.max_line_bytes) return;
    truncated_ = true;
  }

  void end_line() {
    std::string_view line(line_);
    if (!truncated_ && !line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (spec_.on_line) spec_.on_line(line);
    if (spec_.is_error_line && spec_.is_error_line(line)) {
      ++result_.error_lines_total;
      if (result_.error_lines.size() < spec_.max_error_lines) result_.error_lines.emplace_back(line);
    }
    line_.clear();
    in_line_ = false;
    truncated_ = false;
  }

  const ProcessSpec& spec_;
  ProcessResult& result_;
  int log_fd_;
  std::string line_;
  bool in_line_ = false;  // bytes seen since the last newline (line_ may be empty if capped)
  bool truncated_ = false;
};

// PATH search in the parent (allocation is not allowed in the child): the list of paths to
// try, in order. Empty PATH entries mean the working directory, as for execvp.
std::vector<std::string> exec_candidates(const ProcessSpec& spec, std::string& path_searched) {
  const std::string& program = spec.argv[0];
  if (program.find('/') != std::string::npos) return {program};
  auto path_entry = spec.env.find("PATH");
  path_searched = path_entry != spec.env.end() ? path_entry->second : "/usr/local/bin:/usr/bin:/bin";
  std::vector<std::string> candidates;
  std::size_t begin = 0;
  while (true) {
    std::size_t end = path_searched.find(':', begin);
    std::string dir = path_searched.substr(begin, end == std::string::npos ? std::string::npos
                                                                           : end - begin);
    candidates.push_back((dir.empty() ? std::string(".") : dir) + "/" + program);
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return candidates;
}

int ceil_millis(Clock::duration d) {
  if (d <= Clock::duration::zero()) return 0;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<int>(std::min<std::int64_t>(ms, 24 * 3600 * 1000));
}

constexpr std::size_t kReadChunk = 64 * 1024;
constexpr int kReadsPerWakeup = 16;  // then look at timers and the token again
constexpr auto kGroupExitWait = std::chrono::milliseconds(2000);
constexpr auto kFallbackPollInterval = std::chrono::milliseconds(20);

}  // namespace

// ---- run_process_group ------------------------------------------------------------------

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

  if (spec.argv.empty()) return launch_failure("empty argv: nothing to run");
  for (const auto& [name, value] : spec.env) {
    if (name.empty() || name.find('=') != std::string::npos)
      return launch_failure("invalid environment variable name '" + name + "'");
  }
  if (cancel && cancel->cancelled()) {
    result.cancelled = true;
    stop_clock();
    return result;
  }

  UniqueFd log_fd;
  if (!spec.log_path.empty()) {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (spec.log_append ? O_APPEND : O_TRUNC);
    log_fd.reset(::open(spec.log_path.c_str(), flags, 0644));
    if (!log_fd.valid())
      return launch_failure("cannot open log file '" + spec.log_path + "': " + errno_text(errno));
  }

  // Everything the child needs, built before fork.
  std::vector<char*> argv;
  for (const auto& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : spec.env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string path_searched;
  const std::vector<std::string> candidates = exec_candidates(spec, path_searched);

  UniqueFd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull.valid()) return launch_failure("cannot open /dev/null: " + errno_text(errno));
  int output_pipe[2], status_pipe[2];
  if (::pipe2(output_pipe, O_CLOEXEC) < 0) return launch_failure("pipe: " + errno_text(errno));
  UniqueFd output_read(output_pipe[0]), output_write(output_pipe[1]);
  if (::pipe2(status_pipe, O_CLOEXEC) < 0) return launch_failure("pipe: " + errno_text(errno));
  UniqueFd status_read(status_pipe[0]), status_write(status_pipe[1]);
  // Only our end is non-blocking: the child's stdout must stay an ordinary blocking pipe.
  ::fcntl(output_read.get(), F_SETFL, ::fcntl(output_read.get(), F_GETFL) | O_NONBLOCK);
  ::fcntl(output_read.get(), F_SETPIPE_SZ, 1 << 20);  // fewer wakeups for chatty builds

  ChildPlan plan;
  plan.parent = ::getpid();
  plan.devnull = devnull.get();
  plan.output_write = output_write.get();
  plan.status_write = status_write.get();
  plan.working_dir = spec.working_dir.empty() ? nullptr : spec.working_dir.c_str();
  for (const auto& candidate : candidates) plan.candidates.push_back(candidate.c_str());
  plan.searched = !path_searched.empty();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.default_action.sa_handler = SIG_DFL;
  sigemptyset(&plan.default_action.sa_mask);
  sigemptyset(&plan.empty_mask);

  // Block every signal in this thread across fork, so the child starts with no handler able
  // to run until it has reset them all (what posix_spawn does too).
  sigset_t all_signals, old_mask;
  sigfillset(&all_signals);
  ::pthread_sigmask(SIG_SETMASK, &all_signals, &old_mask);
  const pid_t pid = ::fork();
  if (pid == 0) child_main(plan);
  const int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) return launch_failure("fork: " + errno_text(fork_errno));
  report_started(pid);

  LeaderGuard guard{pid};
  result.pid = pid;
  output_write.reset();
  status_write.reset();
  devnull.reset();

  // EOF: exec succeeded (CLOEXEC closed the child's end). Otherwise, why not.
  ChildFailure failure{};
  ssize_t got;
  do {
    got = ::read(status_read.get(), &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  status_read.reset();
  if (got == static_cast<ssize_t>(sizeof failure)) {
    report_ended(pid);  // the child exits on its own here and had no time for children
    reap(pid);
    guard.reaped = true;
    result.pid = -1;  // nothing of the spec ran
    return launch_failure(describe_failure(failure, spec, path_searched));
  }

  UniqueFd pidfd(open_pidfd(pid).value_or(-1));
  OutputSink sink(spec, result, log_fd.get());
  std::vector<char> buffer(kReadChunk);

  enum class Stopping { no, term_sent, kill_sent };
  Stopping stopping = Stopping::no;
  Clock::time_point kill_at{};
  std::optional<Clock::time_point> deadline;
  if (spec.timeout > std::chrono::milliseconds::zero()) deadline = start + spec.timeout;
  bool leader_reaped = false;
  Clock::time_point drain_deadline{};

  auto send_kill = [&] {
    ::kill(-pid, SIGKILL);
    stopping = Stopping::kill_sent;
  };
  auto begin_stop = [&](bool because_of_timeout) {
    if (stopping != Stopping::no || leader_reaped) return;
    (because_of_timeout ? result.timed_out : result.cancelled) = true;
    ::kill(-pid, SIGTERM);
    stopping = Stopping::term_sent;
    kill_at = Clock::now() + spec.kill_grace;
    if (spec.kill_grace <= std::chrono::milliseconds::zero()) send_kill();
  };
  auto on_leader_exit = [&] {
    // The leader is a zombie, so its pid (= the group id) cannot be reused until we reap it:
    // kill the rest of the group first. Leftover daemons of a finished build die here.
    if (stopping == Stopping::no) result.stragglers_killed = count_live_members(pid, pid);
    ::kill(-pid, SIGKILL);
    report_ended(pid);
    int status = reap(pid);
    guard.reaped = true;
    leader_reaped = true;
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
    drain_deadline = Clock::now() + spec.drain_timeout;
  };
  auto read_output = [&] {
    for (int i = 0; i < kReadsPerWakeup; ++i) {
      ssize_t n = ::read(output_read.get(), buffer.data(), buffer.size());
      if (n > 0) {
        sink.consume(buffer.data(), static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      output_read.reset();  // EOF (or an error we cannot recover from)
      return;
    }
  };

  while (!leader_reaped || output_read.valid()) {
    const auto now = Clock::now();
    if (stopping == Stopping::no && deadline && now >= *deadline) begin_stop(true);
    if (stopping == Stopping::term_sent && !leader_reaped && now >= kill_at) send_kill();
    if (leader_reaped && now >= drain_deadline) {
      result.output_abandoned = true;
      break;
    }

    pollfd fds[3];
    nfds_t count = 0;
    int output_index = -1, pidfd_index = -1, cancel_index = -1;
    if (output_read.valid()) {
      output_index = static_cast<int>(count);
      fds[count++] = {output_read.get(), POLLIN, 0};
    }
    if (!leader_reaped && pidfd.valid()) {
      pidfd_index = static_cast<int>(count);
      fds[count++] = {pidfd.get(), POLLIN, 0};
    }
    if (cancel && stopping == Stopping::no && !leader_reaped) {
      cancel_index = static_cast<int>(count);
      fds[count++] = {cancel->fd(), POLLIN, 0};
    }

    std::optional<Clock::time_point> wake;
    auto wake_by = [&](Clock::time_point t) { wake = wake ? std::min(*wake, t) : t; };
    if (stopping == Stopping::no && deadline) wake_by(*deadline);
    if (stopping == Stopping::term_sent && !leader_reaped) wake_by(kill_at);
    if (leader_reaped) wake_by(drain_deadline);
    if (!leader_reaped && !pidfd.valid()) wake_by(now + kFallbackPollInterval);
    const int timeout_ms = wake ? ceil_millis(*wake - now) : -1;

    int ready = ::poll(fds, count, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "poll");  // guard kills the group
    }
    if (output_index >= 0 && fds[output_index].revents != 0) read_output();
    if (!leader_reaped) {
      bool exited = pidfd_index >= 0 ? fds[pidfd_index].revents != 0
                                     : (!pidfd.valid() && leader_exited(pid));
      if (exited) on_leader_exit();
    }
    if (cancel_index >= 0 && fds[cancel_index].revents != 0) begin_stop(false);
  }
  output_read.reset();
  sink.finish();

  // Members that redirected their output elsewhere (so did not hold up the drain) may still
  // be dying. Callers rely on the group being gone when we return.
  kill_group_and_wait(pid, kGroupExitWait);
  stop_clock();
  return result;
}

void set_process_group_registry(ProcessGroupRegistry registry) noexcept {
  registry_started.store(registry.started, std::memory_order_release);
  registry_ended.store(registry.ended, std::memory_order_release);
}

std::map<std::string, std::string> inherited_environment() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view text(*entry);
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    env.emplace(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return env;
}

}  // namespace mace::openpiton

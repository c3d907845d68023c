#include "os/child_launch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "os/errno_text.h"

namespace mace::os {
namespace {

// ---- The child, between fork and exec ---------------------------------------------------
// Only async-signal-safe calls from here on: another thread of the parent may have held a
// malloc or stdio lock at the moment of fork. Everything is prepared before the fork.

enum ChildStage : int { kSetsid = 1, kPdeathsig, kRedirect, kChdir, kFileLimit, kExec };

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
  rlim_t max_file_bytes = RLIM_INFINITY;  // RLIMIT_FSIZE, for the child and what it starts
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
  if (plan.max_file_bytes != RLIM_INFINITY) {
    // Only lowered: a limit the daemon itself runs under is never raised for its children.
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_FSIZE, &limit) < 0) child_fail(status_fd, kFileLimit, errno);
    if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > plan.max_file_bytes) {
      limit.rlim_cur = plan.max_file_bytes;
      if (::setrlimit(RLIMIT_FSIZE, &limit) < 0) child_fail(status_fd, kFileLimit, errno);
    }
  }

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
    case kFileLimit:
      return "cannot limit the size of the files it writes to " + std::to_string(spec.max_file_bytes) +
             " bytes: " + why;
    case kExec: {
      std::string message = "cannot execute '" + spec.argv[0] + "': " + why;
      if (!path_searched.empty()) message += " (searched PATH=" + path_searched + ")";
      return message;
    }
    default:
      return "child setup failed: " + why;
  }
}

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

LaunchedChild failed_launch(std::string message) {
  LaunchedChild out;
  out.error = std::move(message);
  return out;
}

}  // namespace

int reap_child(pid_t pid, struct rusage* usage) {
  int status = 0;
  while (::wait4(pid, &status, 0, usage) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

LaunchedChild launch_child(const ProcessSpec& spec) {
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
  if (!devnull) return failed_launch("cannot open /dev/null: " + errno_text(errno));
  int output_pipe[2], status_pipe[2];
  if (::pipe2(output_pipe, O_CLOEXEC) < 0) return failed_launch("pipe: " + errno_text(errno));
  UniqueFd output_read(output_pipe[0]), output_write(output_pipe[1]);
  if (::pipe2(status_pipe, O_CLOEXEC) < 0) return failed_launch("pipe: " + errno_text(errno));
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
  if (spec.max_file_bytes > 0) plan.max_file_bytes = static_cast<rlim_t>(spec.max_file_bytes);
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
  if (pid < 0) return failed_launch("fork: " + errno_text(fork_errno));
  report_group_started(pid);
  output_write.reset();
  status_write.reset();
  devnull.reset();

  // EOF: exec succeeded (CLOEXEC closed the child's end). Otherwise, why not.
  ChildFailure failure{};
  ssize_t got;
  do {
    got = ::read(status_read.get(), &failure, sizeof failure);
  } while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof failure)) {
    report_group_ended(pid);  // the child exits on its own here and had no time for children
    reap_child(pid);
    return failed_launch(describe_failure(failure, spec, path_searched));
  }
  LaunchedChild out;
  out.pid = pid;
  out.output = std::move(output_read);
  return out;
}

}  // namespace mace::os

#pragma once
// Runs one external command (an OpenPiton `sims` build or simulation, a make, a script) as
// the leader of its own process group and session, and makes sure that nothing of that
// group outlives the call.
//
// Why a process group: a build spawns make -j, g++, perl and python grandchildren, and some
// tools leave helpers running. Signalling only the pid we forked would orphan all of them.
// The child calls setsid(), so its pid is also its process-group id, and `kill(-pgid, sig)`
// reaches every descendant that did not deliberately leave the group (a process that calls
// setsid()/setpgid() itself escapes; only a cgroup could catch it).
//
// Why no global state: the daemon runs several of these at once from different threads, and
// other libraries in the same process own children of their own. So there is no SIGCHLD
// handler, no waitpid(-1), no changed signal disposition: the runner reaps exactly its own
// pid, and notices the leader's exit through a pidfd in its poll set (the output pipe is no
// use for that, because grandchildren may hold it open after the leader exits).
//
// Linux only (pidfd, prctl, /proc). ProcessSpec::env usually starts from
// inherited_environment() (os/environment.h).

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "os/cancel_token.h"

namespace mace::os {

// What a command is for.
enum class CommandPurpose {
  command,            // anything else
  build,              // sims building a model
  simulate,           // sims running a workload
  compile_workload,   // a workload's compiler
  verilator_version,  // the version probe
  coverage,           // verilator_coverage
  unit_test_build,    // a unit-test environment's build
};
// Its word, as a runner names jobs: "build", "compile-workload", ...
std::string_view to_string(CommandPurpose purpose);

// What to run and how to watch it.
struct ProcessSpec {
  // The program and its arguments; never a shell string (no quoting bugs, no injection).
  // argv[0] containing a '/' is used as a path (relative paths are relative to
  // `working_dir`); otherwise it is searched in the PATH of `env` below (not the daemon's
  // own PATH, since the child gets `env`), or in /usr/local/bin:/usr/bin:/bin without one.
  std::vector<std::string> argv;
  // The child's complete environment. Nothing is inherited: a build must not depend on
  // whatever the daemon happened to be started with. Copy inherited_environment() and
  // change it if that is what you want (os/environment.h). Names must be non-empty and free of '='.
  std::map<std::string, std::string> env;
  // The child's working directory; empty: the daemon's.
  std::string working_dir;
  // The largest file the command (and everything it starts) may write, in bytes; zero: no
  // limit. A write past it fails, and the process that made it gets SIGXFSZ, which ends it
  // unless it is caught (RLIMIT_FSIZE, inherited by every descendant, and by a Slurm job
  // through srun's propagation of limits). So a runaway transcript stops at this size
  // instead of filling the disk.
  std::uint64_t max_file_bytes = 0;
  // What the command is for: how a runner that places work elsewhere names it and what it
  // asks for it (a Slurm job's name and resources, os/command_runner.h).
  CommandPurpose purpose = CommandPurpose::command;

  // Wall-clock limit from launch; zero: none. On expiry the group is stopped (see
  // kill_grace) and the result says timed_out.
  std::chrono::milliseconds timeout{0};
  // Between SIGTERM to the group and SIGKILL to the group, on timeout or cancel. Long enough
  // for tools to remove temporary files; short enough that a stuck build frees its slot.
  std::chrono::milliseconds kill_grace{10000};
  // How long to keep reading output after the leader exited and the group was killed. Only a
  // process that left the group (and so could not be killed) can keep the pipe open that
  // long; then capture stops and the result says output_abandoned.
  std::chrono::milliseconds drain_timeout{1000};

  // Full transcript of standard output and standard error (merged, in the order written),
  // written as it arrives; never held in memory, so it may grow to gigabytes. Empty: none.
  // The directory must exist. Truncated first unless log_append.
  std::string log_path;
  bool log_append = false;

  // How much of the end of the output to keep in ProcessResult::tail.
  std::size_t tail_bytes = 64 * 1024;
  // Lines longer than this are cut to their first max_line_bytes bytes for on_line,
  // is_error_line and error_lines (the log file still gets all of them), so a 50 MB line
  // with no newline costs max_line_bytes of memory, not 50 MB.
  std::size_t max_line_bytes = 64 * 1024;

  // Called in the runner's thread for every line of output, without its "\n" (or "\r\n");
  // a last line with no newline is delivered at the end. May be empty. If it throws, the
  // group is killed and reaped and the exception propagates out of run_process_group.
  std::function<void(std::string_view line)> on_line;
  // Picks out the lines worth reporting (Verilator's "%Error: file.v:12:3: ...", g++'s
  // "file.cc:3:1: error: ..."). The first max_error_lines matches are kept in
  // ProcessResult::error_lines; all are counted. May be empty. Same thread and exception
  // rules as on_line.
  std::function<bool(std::string_view line)> is_error_line;
  std::size_t max_error_lines = 200;
};

// Who ended a command that neither finished on its own nor was stopped by the caller's
// timeout or token: the scheduler or machine a runner placed it on (os/command_runner.h).
// run_process_group itself never reports one.
enum class HostStop {
  none,
  node_failure,   // the machine running it went down, drained or failed
  out_of_memory,  // the scheduler killed it for using more memory than it asked for
  never_started,  // it waited for the machine longer than the runner allows
  killed_by_scheduler,  // the scheduler ended it for another reason (an operator's cancel, ...)
};
// "" for none, otherwise the enumerator's name: the word the adapter reports.
std::string_view to_string(HostStop stop);

// Thrown by a step made of commands (a version probe, a workload's compile) when the
// machine or scheduler ended one of them: the step did not fail, its host did, and the
// step's caller reports it as that host stop rather than as the step's own failure.
class HostStopped : public std::runtime_error {
 public:
  HostStopped(HostStop stop, const std::string& detail) : std::runtime_error(detail), stop_(stop) {}
  HostStop stop() const { return stop_; }

 private:
  HostStop stop_;
};

// What a command's processes used, as the kernel accounted it when its leader was reaped
// (wait4): the leader and every descendant that it, or they, waited for. A process killed
// with the group, or one that left it, is not in it.
struct ResourceUsage {
  double cpu_seconds = 0;  // user and system time, all of them together
  // The largest peak resident set of any ONE of them (the kernel keeps no sum): for a
  // build, its biggest compiler or Verilator process, not the machine's whole load.
  std::int64_t peak_rss_bytes = 0;
};

struct ProcessResult {
  pid_t pid = -1;         // the leader's pid, which is also the group's id; -1: not started
  int exit_code = -1;     // the leader's exit status; -1 if it did not exit normally
  int term_signal = 0;    // the signal that killed the leader; 0 if it exited normally

  bool timed_out = false;      // the group was stopped because spec.timeout expired
  bool cancelled = false;      // the group was stopped (or never started) because of the token
  bool launch_failed = false;  // nothing ran: see `error`
  // Why the launch failed, naming the failing step and errno, e.g.
  // "cannot execute '/no/such/prog': No such file or directory".
  std::string error;

  // Live members of the group besides the leader when the leader exited on its own (a
  // build's leftover daemons); all of them were killed. 0 when we stopped the group.
  int stragglers_killed = 0;
  // The leader exited but something outside the group kept the output pipe open past
  // spec.drain_timeout; output written after that was not captured.
  bool output_abandoned = false;

  double wall_seconds = 0;          // from launch until the group was gone
  // Unset when no leader was reaped here (nothing launched), and when a runner placed the
  // command on another machine: what it reaped there was its own client, not the command.
  std::optional<ResourceUsage> usage;
  std::uint64_t output_bytes = 0;   // total bytes of output, merged
  std::string tail;                 // the last spec.tail_bytes bytes of output
  std::vector<std::string> error_lines;  // the first spec.max_error_lines matches, in order
  std::size_t error_lines_total = 0;     // every match, also those not kept
  // Set if the log file could not be written (disk full...); the run goes on without it.
  std::string log_error;

  // Set when the machine or scheduler that ran the command ended it; host_stop_detail
  // says what happened, naming the machine and the scheduler's own reason.
  HostStop host_stop = HostStop::none;
  std::string host_stop_detail;

  // It ran, was not stopped, and exited with status 0.
  bool succeeded() const {
    return !launch_failed && !timed_out && !cancelled && host_stop == HostStop::none &&
           exit_code == 0;
  }
};

// Runs `spec` to completion in the calling thread and returns once the leader has been
// reaped and no live process is left in its group.
//
// The child: becomes a session and process-group leader (setsid); gets SIGKILL if the
// calling *thread* dies (PR_SET_PDEATHSIG; grandchildren do not, so run the daemon under a
// service manager that kills its cgroup, or give a watcher a ProcessGroupRegistry); starts with the default signal mask and
// dispositions (the daemon's blocked or ignored signals, SIGPIPE say, are not passed on);
// has stdin on /dev/null; and inherits no descriptor but 0, 1 and 2.
//
// Stopping: on timeout or cancel, SIGTERM to the group, then after spec.kill_grace SIGKILL
// to the group. When the leader exits, on its own or not, the rest of the group gets
// SIGKILL before the leader is reaped (while its zombie keeps the group id from being
// reused), so nothing of a finished build keeps running.
//
// Thread-safe: any number of calls may run at once in different threads. `cancel` may be
// null; if it is already cancelled nothing is started. Launch problems (empty argv, bad
// environment name, unopenable log file, fork/chdir/exec failure) are reported in the
// result, not thrown.
ProcessResult run_process_group(const ProcessSpec& spec, const CancelToken* cancel = nullptr);

// Optional: tells someone outside this library about every process group
// run_process_group starts and ends, so a watcher that outlives the daemon (maced's keeper)
// can kill what is left of them when the daemon dies without cleaning up, kill -9 included.
//
// `started` runs in the runner's thread right after fork, while the new leader is an
// unreaped child (so /proc/<pgid> is certainly that process); `ended` runs after SIGKILL
// went to the whole group and before the leader is reaped, so no group id the watcher still
// holds can have been reused. Both must be thread-safe, must not throw, and should be
// quick (one write()). Either may be null.
struct ProcessGroupRegistry {
  void (*started)(pid_t pgid) noexcept = nullptr;
  void (*ended)(pid_t pgid) noexcept = nullptr;
};
// Set once, before any run_process_group call (before the daemon starts threads); later
// calls replace it, but a run already under way may report its end to the old one.
void set_process_group_registry(ProcessGroupRegistry registry) noexcept;

}  // namespace mace::os

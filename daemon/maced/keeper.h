#pragma once
// The keeper: a small process maced forks first thing, which outlives maced only long
// enough to kill every build and simulation maced left behind (REQ-BUD-13).
//
// Why a separate process: maced stops its process groups itself on SIGTERM, and each
// group's leader gets SIGKILL when the thread that started it dies (PR_SET_PDEATHSIG), but
// grandchildren (make -j, g++, a hung simulator's helpers) do not. After kill -9 or a crash
// nothing inside maced runs any more; only another process can clean up. Under systemd the
// service's cgroup does it anyway (KillMode=control-group); the keeper is what makes the
// same promise hold when maced is started by hand.
//
// How: maced and the keeper share a pipe whose write end only maced holds (CLOEXEC, so no
// build inherits it). Each process group run_process_group starts is reported as
// "+PGID STARTTIME\n" and its end as "-PGID\n" (one write() each, atomic below PIPE_BUF, so
// any thread may report). When the pipe reaches EOF, maced is gone, however it died: the
// keeper SIGKILLs every process still in a registered group or in its session, and exits.
//
// Pid reuse: a group's id stays allocated while any member (or the leader's unreaped
// zombie) exists, and maced reports the end of a group before it reaps the leader. So a
// registered id names our group for as long as the group has members. The keeper still
// checks: a live process whose pid is the group id but whose start time differs means the
// group emptied and the id was reused, and that group is left alone; each process is
// signalled through a pidfd opened after it was matched and re-checked, so a pid that dies
// and is reused between the scan and the signal is never hit.
//
// Slurm jobs: maced also reports each job it submits ("J+ID\n") and sees end ("J-ID\n"). A
// job runs on another machine, out of reach of any signal. When maced is gone the keeper
// first sweeps the process groups (srun among them, so no srun submits anything more), then
// cancels every job still registered and every live job of maced's user whose comment
// carries maced's instance: a job srun submitted in the moment before maced could register
// it is found that way. The death of srun alone does not end a running job at once (Slurm
// waits InactiveLimit for it).
//
// Limits: a process that calls setsid() leaves both the group and the session and cannot be
// found this way (only a cgroup catches it); and a grandchild forked in the microseconds
// between fork() and the registration write of its group's leader is missed if maced dies
// in exactly that window.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "slurm/slurm_settings.h"


namespace mace {


// Forks the keeper. Must be called before maced starts any thread (the child runs ordinary
// C++ after fork). On success maced keeps the pipe's write end open until it exits and
// set_process_group_registry() is pointed at it; throws std::runtime_error otherwise.
// `slurm`: the cluster whose jobs (see above) the keeper cancels; unset: none.
void start_keeper(std::optional<slurm::SlurmSettings> slurm = std::nullopt);

// A Slurm job submitted / seen to end: the keeper cancels those still registered when maced
// is gone. Thread-safe, one write each; IDs that are not Slurm job IDs are not sent.
void keeper_job_started(const std::string& job_id);
void keeper_job_ended(const std::string& job_id);

// The keeper's pid, or -1 before start_keeper.
pid_t keeper_pid();

// The pieces of the keeper, exposed for tests.
namespace keeper {

// Start time (field 22 of /proc/PID/stat, clock ticks since boot), or nullopt when no such
// process exists.
std::optional<std::uint64_t> start_time(pid_t pid);

// Group id -> the start time of its leader, as registered.
using Groups = std::map<pid_t, std::uint64_t>;

// Applies one protocol line ("+PGID START" or "-PGID") to `groups`; false when malformed.
bool apply_line(const std::string& line, Groups& groups);

// SIGKILLs every live process whose process group or session is one of `groups` (and that
// started no earlier than its leader), scanning /proc again until none is left or `limit`
// passed. Groups whose id was reused are skipped. Returns how many processes it signalled.
int sweep(const Groups& groups, std::chrono::milliseconds limit);

// Applies one job line ("J+ID" or "J-ID") to `jobs`; false when malformed.
bool apply_job_line(const std::string& line, std::set<std::string>& jobs);

// Cancels `registered` and the live jobs of this user whose comment carries
// `slurm.instance`; how many it cancelled, or -1 when Slurm could not be asked.
int cancel_jobs(const std::set<std::string>& registered, const slurm::SlurmSettings& slurm);

// The keeper's body: reads `fd` until EOF, then sweeps and, when `slurm` is set, cancels
// the jobs. Returns the exit status.
int run(int fd, const std::optional<slurm::SlurmSettings>& slurm = std::nullopt);

}  // namespace keeper
}  // namespace mace

#pragma once
// What squeue and sinfo say about a job and a node, read from the fixed formats MACE asks
// them for, and what a job's final state means for the command it ran. Pure text work:
// the commands themselves are run by slurm_commands.h.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "os/process_group.h"

namespace mace::slurm {

// squeue -O with these fields, '|' after each; the comment last, since it is the one
// field another user's job may fill with anything (a '|' included).
inline constexpr std::string_view kJobFields =
    "JobID:|,State:|,Reason:|,NodeList:|,exit_code:|,Comment:";

struct JobStatus {
  std::string id;       // digits (an array or het job's "12_3" / "12+1" is kept as shown)
  std::string state;    // PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, TIMEOUT, ...
  std::string reason;   // "None", "Resources", "ReqNodeNotAvail,...", "TimeLimit", ...
  std::string nodes;    // "" while pending
  // The wait status of the job's command (exit code << 8 | signal), when Slurm knows it.
  std::optional<int> wait_status;
  std::string comment;  // "(null)" as "" 
};

// One line of `squeue -h -O kJobFields`; nullopt when it is not one.
std::optional<JobStatus> parse_job_line(std::string_view line);
// Every line that parses, of squeue's whole answer.
std::vector<JobStatus> parse_job_lines(std::string_view output);

// Still holds its node or is waiting for one: maced must not consider it gone.
bool is_live(const JobStatus& job);
bool is_pending(const JobStatus& job);
// Holds its node and runs there: steps can start in it.
bool is_running(const JobStatus& job);
// Refused before it ever had a node (FAILED with no node list): a request the cluster
// cannot meet, not a command that failed.
bool refused_before_a_node(const JobStatus& job);
// Ended by its own command (COMPLETED, or FAILED for a nonzero exit): nothing of the node's
// doing to ask sinfo about.
bool ended_by_its_command(const JobStatus& job);
// The state maced records for a job it cancelled itself.
inline constexpr std::string_view kCancelledState = "CANCELLED";

// Slurm put the job back in the queue (after a node failure, with --requeue): its work on
// the node was lost, and maced runs it again itself rather than wait for Slurm's.
bool is_requeued(const JobStatus& job);

// sinfo -h -N -n NODE -O with these fields; the reason last (an operator's free text).
inline constexpr std::string_view kNodeFields = "StateLong:|,Reason:";

struct NodeStatus {
  std::string state;   // as sinfo says it: "idle", "mixed", "down*", "drained", ...
  std::string reason;  // the operator's or Slurm's reason; "" for none
};

std::optional<NodeStatus> parse_node_line(std::string_view line);

// Whether new work can start on a node in this state: idle, mixed, allocated, completing
// or planned, and responding. Everything else (down, drained, draining, fail, maint,
// reserved, future, unknown, a '*' for not responding, ...) is not: an allowlist, so a
// state Slurm adds later is refused until someone looks at it.
bool accepts_work(const NodeStatus& node);

// "node n1 is down* (disk died)"; "node n1 is drained" when there is no reason.
std::string describe_node(const std::string& name, const NodeStatus& node);

// How the job's end reads as the result of the command it ran, for a job maced did not
// stop itself: a normal end sets exit_code/term_signal from the job's wait status; TIMEOUT
// and DEADLINE set timed_out; NODE_FAIL and BOOT_FAIL are node_failure, OUT_OF_MEMORY
// out_of_memory, CANCELLED and PREEMPTED (by someone else) killed_by_scheduler, each with
// a detail naming the job, the node and Slurm's reason. `node` is the node the job was
// pinned to; `node_now` what sinfo says of it at the end, when known.
void apply_final_state(const JobStatus& job, const std::string& node,
                       const std::optional<NodeStatus>& node_now, os::ProcessResult& result);

}  // namespace mace::slurm

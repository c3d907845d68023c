#include "slurm/job_status.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "os/text.h"

namespace mace::slurm {
namespace {

// Splits `line` at the first `count - 1` '|' into `count` fields; the last keeps the rest
// (a trailing '|' squeue writes after it removed). False when there are fewer.
template <std::size_t N>
bool split_fields(std::string_view line, std::array<std::string_view, N>& fields) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (!line.empty() && line.back() == '|') line.remove_suffix(1);
  for (std::size_t i = 0; i + 1 < N; ++i) {
    const auto bar = line.find('|');
    if (bar == std::string_view::npos) return false;
    fields[i] = os::trim(line.substr(0, bar));
    line.remove_prefix(bar + 1);
  }
  fields[N - 1] = os::trim(line);
  return true;
}

bool is_job_id(std::string_view id) {
  if (id.empty() || id.size() > 32 || !std::isdigit(static_cast<unsigned char>(id.front())))
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '[' ||
           c == ']' || c == '-';
  });
}

bool is_state_word(std::string_view state) {
  return !state.empty() && state.size() <= 32 &&
         std::all_of(state.begin(), state.end(), [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; });
}

std::string or_empty_when_null(std::string_view text) {
  return text == "(null)" ? std::string() : std::string(text);
}

}  // namespace

std::optional<JobStatus> parse_job_line(std::string_view line) {
  std::array<std::string_view, 6> f;
  if (!split_fields(line, f)) return std::nullopt;
  if (!is_job_id(f[0]) || !is_state_word(f[1])) return std::nullopt;
  JobStatus job;
  job.id = std::string(f[0]);
  job.state = std::string(f[1]);
  job.reason = or_empty_when_null(f[2]);
  job.nodes = or_empty_when_null(f[3]);
  int status = 0;
  const auto [end, error] = std::from_chars(f[4].data(), f[4].data() + f[4].size(), status);
  if (error == std::errc() && end == f[4].data() + f[4].size() && status >= 0)
    job.wait_status = status;
  job.comment = or_empty_when_null(f[5]);
  return job;
}

std::vector<JobStatus> parse_job_lines(std::string_view output) {
  std::vector<JobStatus> jobs;
  for (std::string_view line : os::split_lines_dropping_newlines(output))
    if (auto job = parse_job_line(line)) jobs.push_back(std::move(*job));
  return jobs;
}

bool is_pending(const JobStatus& job) {
  return job.state == "PENDING" || job.state == "CONFIGURING" || job.state == "REQUEUED" ||
         job.state == "RESV_DEL_HOLD" || job.state == "REQUEUE_HOLD" || job.state == "REQUEUE_FED";
}

bool is_running(const JobStatus& job) { return job.state == "RUNNING"; }

bool refused_before_a_node(const JobStatus& job) { return job.state == "FAILED" && job.nodes.empty(); }

bool ended_by_its_command(const JobStatus& job) {
  return job.state == "COMPLETED" || job.reason == "NonZeroExitCode";
}

bool is_requeued(const JobStatus& job) {
  return job.state == "REQUEUED" || job.state == "REQUEUE_HOLD" || job.state == "REQUEUE_FED";
}

bool is_live(const JobStatus& job) {
  return is_pending(job) || job.state == "RUNNING" || job.state == "COMPLETING" ||
         job.state == "SUSPENDED" || job.state == "STOPPED" || job.state == "SIGNALING" ||
         job.state == "STAGE_OUT" || job.state == "RESIZING";
}

std::optional<NodeStatus> parse_node_line(std::string_view line) {
  std::array<std::string_view, 2> f;
  if (!split_fields(line, f) || f[0].empty()) return std::nullopt;
  NodeStatus node;
  node.state = std::string(f[0]);
  node.reason = f[1] == "none" || f[1] == "(null)" ? std::string() : std::string(f[1]);
  return node;
}

bool accepts_work(const NodeStatus& node) {
  static constexpr std::array<std::string_view, 5> kWorking = {"idle", "mixed", "allocated",
                                                               "completing", "planned"};
  return std::find(kWorking.begin(), kWorking.end(), node.state) != kWorking.end();
}

std::string describe_node(const std::string& name, const NodeStatus& node) {
  std::string text = "node " + name + " is " + node.state;
  if (!node.reason.empty()) text += " (" + node.reason + ")";
  return text;
}

void apply_final_state(const JobStatus& job, const std::string& node,
                       const std::optional<NodeStatus>& node_now, os::ProcessResult& result) {
  if (job.wait_status) {
    const int status = *job.wait_status;
    if ((status & 0x7f) != 0) {
      result.exit_code = -1;
      result.term_signal = status & 0x7f;
    } else {
      result.exit_code = (status >> 8) & 0xff;
      result.term_signal = 0;
    }
  }
  auto stop = [&](os::HostStop why, std::string what) {
    result.host_stop = why;
    result.host_stop_detail = "Slurm job " + job.id + " on node " + node + " " + what;
    if (!job.reason.empty() && job.reason != "None") result.host_stop_detail += " (" + job.reason + ")";
    if (node_now && !accepts_work(*node_now))
      result.host_stop_detail += "; " + describe_node(node, *node_now);
  };
  if (job.state == "TIMEOUT" || job.state == "DEADLINE") {
    result.timed_out = true;
  } else if (job.state == "NODE_FAIL" || job.state == "BOOT_FAIL") {
    stop(os::HostStop::node_failure, "ended " + job.state + ": the node failed");
  } else if (job.state == "OUT_OF_MEMORY") {
    stop(os::HostStop::out_of_memory, "ran out of the memory it asked for");
  } else if (job.state == kCancelledState) {
    stop(os::HostStop::killed_by_scheduler, "was cancelled outside maced");
  } else if (job.state == "PREEMPTED") {
    stop(os::HostStop::killed_by_scheduler, "was preempted");
  } else if (job.state == "FAILED" && job.reason == "JobLaunchFailure" && node_now &&
             !accepts_work(*node_now)) {
    stop(os::HostStop::node_failure, "could not start");
  }
}

}  // namespace mace::slurm

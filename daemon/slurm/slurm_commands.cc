#include "slurm/slurm_commands.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "os/process_group.h"
#include "os/text.h"

namespace mace::slurm {
namespace {

constexpr auto kQueryTimeout = std::chrono::seconds(60);
constexpr std::size_t kMaxAnswerBytes = 4 * 1024 * 1024;
constexpr std::size_t kMaxCancelBatch = 200;

std::string first_line(std::string_view text) {
  for (std::string_view line : os::split_lines_dropping_newlines(text))
    if (!os::trim(line).empty()) return std::string(os::trim(line).substr(0, 300));
  return "";
}

}  // namespace

SlurmCommands::SlurmCommands(const SlurmSettings& settings) : bin_dir_(settings.bin_dir) {
  environment_ = settings.environment;
  if (!environment_.contains("PATH"))
    environment_["PATH"] = bin_dir_.empty() ? "/usr/local/bin:/usr/bin:/bin" : bin_dir_ + ":/usr/bin:/bin";
}

std::string SlurmCommands::program(const std::string& name) const {
  if (!bin_dir_.empty()) return (std::filesystem::path(bin_dir_) / name).string();
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
    const std::string path = std::string(dir) + "/" + name;
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return name;  // found in environment_'s PATH, or reported as not startable
}

std::string SlurmCommands::query(std::vector<std::string> argv, bool missing_job_is_empty) const {
  const std::string name = argv.front();
  argv.front() = program(name);
  os::ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.env = environment_;
  spec.working_dir = "/";
  spec.timeout = kQueryTimeout;
  spec.kill_grace = std::chrono::seconds(2);
  spec.tail_bytes = kMaxAnswerBytes;
  spec.max_line_bytes = 64 * 1024;
  // stderr is merged into the one pipe; Slurm's commands write errors with their own
  // name first ("squeue: error: ..."), which no answer line starts with.
  const os::ProcessResult result = os::run_process_group(spec);
  if (result.launch_failed) throw CommandFailure{name + " cannot be run: " + result.error};
  if (result.timed_out) throw CommandFailure{name + " did not answer within 60 s"};
  if (result.exit_code != 0) {
    if (missing_job_is_empty && result.tail.find("Invalid job id") != std::string::npos) return "";
    throw CommandFailure{name + " failed (exit " + std::to_string(result.exit_code) +
                         "): " + first_line(result.tail)};
  }
  if (result.output_bytes > kMaxAnswerBytes)
    throw CommandFailure{name + " answered more than " + std::to_string(kMaxAnswerBytes) + " bytes"};
  std::string answer;
  for (std::string_view line : os::split_lines_dropping_newlines(result.tail)) {
    if (line.starts_with(name + ":")) continue;  // a warning, not an answer
    answer.append(line);
    answer += '\n';
  }
  return answer;
}

std::optional<JobStatus> SlurmCommands::job(const std::string& id) const {
  const std::string out =
      query({"squeue", "-h", "-t", "all", "-j", id, "-O", std::string(kJobFields)}, true);
  for (auto& job : parse_job_lines(out))
    if (job.id == id) return job;
  return std::nullopt;
}

std::vector<JobStatus> SlurmCommands::jobs_named(const std::string& name) const {
  return parse_job_lines(
      query({"squeue", "-h", "-t", "all", "-n", name, "-O", std::string(kJobFields)}));
}

std::vector<std::pair<std::string, std::string>> SlurmCommands::steps_of(const std::string& id) const {
  std::vector<std::pair<std::string, std::string>> steps;
  const std::string out = query({"squeue", "-h", "-s", "-j", id, "-o", "%i %j"}, true);
  for (std::string_view line : os::split_lines_dropping_newlines(out)) {
    line = os::trim(line);
    const auto space = line.find(' ');
    if (space == std::string_view::npos || !line.starts_with(id + ".")) continue;
    steps.emplace_back(std::string(line.substr(0, space)), std::string(os::trim(line.substr(space + 1))));
  }
  return steps;
}

std::vector<JobStatus> SlurmCommands::live_jobs_of(uid_t uid) const {
  auto jobs = parse_job_lines(
      query({"squeue", "-h", "-u", std::to_string(uid), "-O", std::string(kJobFields)}));
  std::erase_if(jobs, [](const JobStatus& job) { return !is_live(job); });
  return jobs;
}

std::optional<NodeStatus> SlurmCommands::node(const std::string& name) const {
  const std::string out =
      query({"sinfo", "-h", "-N", "-n", name, "-O", std::string(kNodeFields)});
  for (std::string_view line : os::split_lines_dropping_newlines(out))
    if (auto node = parse_node_line(line)) return node;
  return std::nullopt;
}

void SlurmCommands::cancel(const std::vector<std::string>& ids) const {
  for (std::size_t at = 0; at < ids.size(); at += kMaxCancelBatch) {
    std::vector<std::string> argv = {"scancel", "--quiet"};
    const std::size_t end = std::min(ids.size(), at + kMaxCancelBatch);
    argv.insert(argv.end(), ids.begin() + static_cast<std::ptrdiff_t>(at),
                ids.begin() + static_cast<std::ptrdiff_t>(end));
    query(std::move(argv), true);
  }
}

std::vector<std::string> SlurmCommands::cancel_and_wait(const std::vector<std::string>& ids,
                                                        std::chrono::milliseconds limit) const {
  if (ids.empty()) return {};
  cancel(ids);
  const auto give_up = std::chrono::steady_clock::now() + limit;
  auto pause = std::chrono::milliseconds(20);
  std::vector<std::string> live = ids;
  while (true) {
    std::vector<std::string> still;
    for (const auto& id : live) {
      auto job = this->job(id);
      if (job && is_live(*job)) still.push_back(id);
    }
    live = std::move(still);
    if (live.empty() || std::chrono::steady_clock::now() >= give_up) return live;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
}

}  // namespace mace::slurm

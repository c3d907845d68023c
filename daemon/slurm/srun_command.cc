#include "slurm/srun_command.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string_view>

#include "os/text.h"

namespace mace::slurm {
namespace {

constexpr std::size_t kMaxJobNameBytes = 200;

bool job_name_byte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '.' || c == '_' || c == ':' || c == '-';
}

bool read_by_slurm(const std::string& name) {
  for (const char* prefix : {"SLURM_", "SBATCH_", "SRUN_", "SALLOC_"})
    if (name.starts_with(prefix)) return true;
  return false;
}

// "mace:<run>:<label>:<what>", or "mace:<run>:<what>" without a label, every unsafe byte
// '_', bounded.
std::string safe_job_name(const Placement& placement, std::string_view what) {
  // A ':' inside a field would change the count of fields.
  auto field = [](std::string text) {
    for (char& c : text)
      if (!job_name_byte(c) || c == ':') c = '_';
    return text;
  };
  std::string name = "mace:" + field(placement.run_id) + ":" +
                     (placement.label.empty() ? std::string() : field(placement.label) + ":") +
                     field(std::string(what));
  if (name.size() > kMaxJobNameBytes) name.resize(kMaxJobNameBytes);
  return name;
}

// The options every job asks with, whatever it runs: where, the account and the limits.
void add_site_options(const SlurmSettings& settings, std::vector<std::string>& argv) {
  if (!settings.partition.empty()) argv.push_back("--partition=" + settings.partition);
  if (!settings.account.empty()) argv.push_back("--account=" + settings.account);
  if (!settings.qos.empty()) argv.push_back("--qos=" + settings.qos);
  if (!settings.gres.empty()) argv.push_back("--gres=" + settings.gres);
}

}  // namespace

std::string job_name(const Placement& placement, os::CommandPurpose purpose) {
  return safe_job_name(placement, os::to_string(purpose));
}

std::string allocation_name(const Placement& placement) {
  return safe_job_name(placement, "workloads");
}

std::string complaint(std::string_view output, std::string_view command) {
  const std::string prefix = std::string(command) + ":";
  std::string found;
  for (std::string_view line : os::split_lines_dropping_newlines(output)) {
    line = os::trim(line);
    if (line.starts_with(prefix)) found = std::string(line.substr(0, 500));
  }
  if (found.empty()) found = std::string(os::trim(os::last_bytes(output, 300)));
  return found;
}

std::optional<os::ProcessResult> not_started(const os::ProcessSpec& spec, const os::CancelToken* cancel) {
  os::ProcessResult result;
  if (cancel && cancel->cancelled()) {
    result.cancelled = true;
    return result;
  }
  if (spec.argv.empty()) {
    result.launch_failed = true;
    result.error = "nothing to run: the command is empty";
    return result;
  }
  return std::nullopt;
}

std::string next_job_token() {
  static std::atomic<unsigned long long> counter{0};
  return std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

std::string comment_prefix(const std::string& instance) { return "mace:" + instance + ":"; }

std::string job_comment(const std::string& instance, const std::string& token) {
  return comment_prefix(instance) + token;
}

StepKind step_kind(os::CommandPurpose purpose) {
  switch (purpose) {
    case os::CommandPurpose::build:
    case os::CommandPurpose::unit_test_build:
      return StepKind::build;
    case os::CommandPurpose::command:
    case os::CommandPurpose::simulate:
    case os::CommandPurpose::compile_workload:
    case os::CommandPurpose::verilator_version:
    case os::CommandPurpose::coverage:
      return StepKind::simulate;
  }
  return StepKind::simulate;
}

std::string time_limit(std::chrono::milliseconds timeout, std::int64_t cap_minutes) {
  std::int64_t minutes = 0;
  if (timeout.count() > 0) minutes = (timeout.count() + 59'999) / 60'000;
  if (cap_minutes > 0 && (minutes == 0 || cap_minutes < minutes)) minutes = cap_minutes;
  if (minutes <= 0) return "";
  return std::to_string(minutes);
}

std::vector<std::string> srun_argv(const SlurmSettings& settings, const Placement& placement,
                                   const os::ProcessSpec& spec, const std::string& program,
                                   const std::string& comment) {
  const StepResources& resources =
      resources_for(settings, step_kind(spec.purpose), placement.core);
  std::vector<std::string> argv = {
      program,
      "--quiet",
      "--job-name=" + job_name(placement, spec.purpose),
      "--comment=" + comment,
      "--nodelist=" + placement.node,
      "--nodes=1",
      "--ntasks=1",
      "--cpus-per-task=" + std::to_string(std::max(resources.cpus, 1)),
      // One failing task ends the job; the node's own resources are released at once.
      "--kill-on-bad-exit=1",
  };
  if (resources.memory_mb > 0) argv.push_back("--mem=" + std::to_string(resources.memory_mb));
  if (auto limit = time_limit(spec.timeout, resources.time_limit_min); !limit.empty())
    argv.push_back("--time=" + limit);
  add_site_options(settings, argv);
  if (!spec.working_dir.empty()) argv.push_back("--chdir=" + spec.working_dir);
  argv.insert(argv.end(), settings.srun_options.begin(), settings.srun_options.end());
  argv.push_back("--");
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  return argv;
}

std::vector<std::string> salloc_argv(const SlurmSettings& settings, const Placement& placement,
                                     std::size_t steps, const std::string& program,
                                     const std::string& comment, std::chrono::seconds wait) {
  const StepResources& resources = resources_for(settings, StepKind::simulate, placement.core);
  steps = std::max<std::size_t>(steps, 1);
  std::vector<std::string> argv = {
      program,
      "--no-shell",
      "--job-name=" + allocation_name(placement),
      "--comment=" + comment,
      "--nodelist=" + placement.node,
      "--nodes=1",
      "--ntasks=" + std::to_string(steps),
      "--cpus-per-task=" + std::to_string(std::max(resources.cpus, 1)),
      "--immediate=" + std::to_string(std::max<std::int64_t>(wait.count(), 1)),
  };
  if (resources.memory_mb > 0)
    argv.push_back("--mem=" + std::to_string(resources.memory_mb * static_cast<std::int64_t>(steps)));
  if (resources.time_limit_min > 0) argv.push_back("--time=" + std::to_string(resources.time_limit_min));
  add_site_options(settings, argv);
  return argv;
}

std::vector<std::string> step_argv(const SlurmSettings& settings, const Placement& placement,
                                   const os::ProcessSpec& spec, const std::string& program,
                                   const std::string& allocation_id, const std::string& step_name) {
  const StepResources& resources = resources_for(settings, StepKind::simulate, placement.core);
  std::vector<std::string> argv = {
      program,
      "--quiet",
      "--jobid=" + allocation_id,
      "--job-name=" + step_name,
      "--nodes=1",
      "--ntasks=1",
      "--cpus-per-task=" + std::to_string(std::max(resources.cpus, 1)),
      // Only this step's CPUs, so the allocation's other steps run beside it.
      "--exact",
      "--kill-on-bad-exit=1",
  };
  if (resources.memory_mb > 0) argv.push_back("--mem=" + std::to_string(resources.memory_mb));
  if (auto limit = time_limit(spec.timeout, resources.time_limit_min); !limit.empty())
    argv.push_back("--time=" + limit);
  // A step is given all of its job's generic resources unless it asks for none, and then
  // the allocation's steps would wait for one another.
  if (!settings.gres.empty()) argv.push_back("--gres=none");
  if (!spec.working_dir.empty()) argv.push_back("--chdir=" + spec.working_dir);
  argv.insert(argv.end(), settings.srun_options.begin(), settings.srun_options.end());
  argv.push_back("--");
  argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
  return argv;
}

std::map<std::string, std::string> srun_environment(
    const std::map<std::string, std::string>& command_env,
    const std::map<std::string, std::string>& slurm_env) {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : command_env)
    if (!read_by_slurm(name)) env[name] = value;
  for (const auto& [name, value] : slurm_env)
    if (name != "PATH") env[name] = value;
  return env;
}

}  // namespace mace::slurm

#include "maced/executor_config.h"

#include "core/run_spec_limits.h"

#include <algorithm>
#include <array>
#include <set>

#include "maced/config_fields.h"

namespace mace {
namespace {

using config_fields::integer_field;
using config_fields::limit_field;
using config_fields::object_with_keys;
using config_fields::shown;
using config_fields::string_field;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr int64_t kMaxCpus = 4096;
constexpr int64_t kMaxMemoryMb = 64LL * 1024 * 1024;  // 64 TiB
constexpr int64_t kMaxTimeLimitMin = 366LL * 24 * 60;
constexpr int64_t kMaxPendingLimitS = 30LL * 24 * 3600;
constexpr int64_t kMaxCleanupLimitS = 3600;
constexpr std::size_t kMaxSrunOptions = 32;
constexpr std::size_t kMaxOptionBytes = 256;
constexpr std::size_t kMaxEnvironment = 32;
constexpr std::size_t kMaxEnvValueBytes = 4096;
constexpr int64_t kMaxInfrastructureRetries = 20;

// The options MACE forms itself (slurm/srun_command.h): one given again would change
// where, as whom or under what name a job runs, or what maced reads back.
constexpr std::array<std::string_view, 24> kOwnedOptions = {
    "--nodelist", "--nodes", "--ntasks", "--cpus-per-task", "--mem", "--time", "--partition",
    "--account", "--qos", "--gres", "--job-name", "--comment", "--chdir", "--export",
    "--output", "--error", "--input", "--pty", "--kill-on-bad-exit", "--quiet", "--jobid",
    "--uid", "--gid", "--nodefile"};

bool slurm_word_byte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
         c == '.' || c == '_' || c == '-';
}

bool slurm_word(std::string_view text) {
  return !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), slurm_word_byte);
}

// partition, account, qos: Slurm names.
void read_name(object obj, std::string_view key, const std::string& path, std::string& out,
               FieldErrors& errors) {
  auto value = string_field(obj, key, path, errors);
  if (!value) return;
  if (!slurm_word(*value)) {
    errors.push_back({path, "must be a Slurm name (letters, digits, '.', '_', '-'; at most 64), "
                            "got \"" + value->substr(0, 60) + "\""});
    return;
  }
  out = *value;
}

// name[:type]:count, as --gres takes it.
bool gres_spec(std::string_view text) {
  if (text.empty() || text.size() > 64) return false;
  int colons = 0;
  for (char c : text) {
    if (c == ':') ++colons;
    else if (!slurm_word_byte(c)) return false;
  }
  const auto last = text.rfind(':');
  return colons >= 1 && colons <= 2 && last + 1 < text.size() &&
         std::all_of(text.begin() + static_cast<std::ptrdiff_t>(last) + 1, text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

void read_resources(element value, const std::string& path, slurm::StepResources& out,
                    FieldErrors& errors) {
  const auto resources = object_with_keys(value, path, {"cpus", "memory_mb", "time_limit_min"}, errors);
  if (!resources) return;
  const object obj = *resources;
  // Only what is given replaces the value `out` starts with (a core's starts from the
  // step's own).
  auto given = [&](std::string_view key, int64_t max, std::string_view unit) -> std::optional<int64_t> {
    if (obj.at_key(key).error()) return std::nullopt;
    return limit_field(obj, key, path + "." + std::string(key), 1, max, unit, errors);
  };
  if (auto n = given("cpus", kMaxCpus, "CPUs")) out.cpus = static_cast<int>(*n);
  if (auto n = given("memory_mb", kMaxMemoryMb, "MiB")) out.memory_mb = *n;
  if (auto n = given("time_limit_min", kMaxTimeLimitMin, "minutes")) out.time_limit_min = *n;
}

void read_cores(element value, slurm::SlurmSettings& settings, FieldErrors& errors) {
  const std::string path = "executor.slurm.cores";
  const auto cores = object_with_keys(value, path, {"sparc", "pico", "ariane", "generic"}, errors,
                                      "keyed by core (sparc, pico, ariane, generic)");
  if (!cores) return;
  for (auto [core, steps] : *cores) {
    const std::string at = path + "." + std::string(core);
    const auto step_object = object_with_keys(steps, at, {"build", "simulate"}, errors);
    if (!step_object) continue;
    const object by_step = *step_object;
    element build, simulate;
    if (!by_step.at_key("build").get(build)) {
      slurm::StepResources resources = settings.build;
      read_resources(build, at + ".build", resources, errors);
      settings.build_by_core[std::string(core)] = resources;
    }
    if (!by_step.at_key("simulate").get(simulate)) {
      slurm::StepResources resources = settings.simulate;
      read_resources(simulate, at + ".simulate", resources, errors);
      settings.simulate_by_core[std::string(core)] = resources;
    }
  }
}

void read_srun_options(element value, slurm::SlurmSettings& settings, FieldErrors& errors) {
  const std::string path = "executor.slurm.srun_options";
  simdjson::dom::array list;
  if (value.get(list) || list.size() > kMaxSrunOptions) {
    errors.push_back({path, "must be a list of at most " + std::to_string(kMaxSrunOptions) +
                            " options, each \"--name\" or \"--name=value\""});
    return;
  }
  std::size_t i = 0;
  for (element entry : list) {
    const std::string at = path + "[" + std::to_string(i++) + "]";
    std::string_view option;
    const bool shaped =
        !entry.get(option) && option.size() > 2 && option.size() <= kMaxOptionBytes &&
        option.starts_with("--") &&
        std::all_of(option.begin(), option.end(), [](char c) {
          return slurm_word_byte(c) || c == '=' || c == ',' || c == ':' || c == '/' || c == '+';
        });
    if (!shaped) {
      errors.push_back({at, "must be one whole long option, \"--name\" or \"--name=value\" "
                            "(letters, digits and . _ - = , : / +), got " + shown(entry)});
      continue;
    }
    const std::string_view name = option.substr(0, option.find('='));
    if (std::find(kOwnedOptions.begin(), kOwnedOptions.end(), name) != kOwnedOptions.end()) {
      errors.push_back({at, std::string(name) + " is set by MACE itself for every job; use the "
                            "executor.slurm field for it, if there is one"});
      continue;
    }
    settings.srun_options.emplace_back(option);
  }
}

void read_environment(element value, slurm::SlurmSettings& settings, FieldErrors& errors) {
  const std::string path = "executor.slurm.environment";
  object obj;
  if (value.get(obj) || obj.size() > kMaxEnvironment) {
    errors.push_back({path, "must be an object of at most " + std::to_string(kMaxEnvironment) +
                            " variables, {\"NAME\": \"value\"}"});
    return;
  }
  for (auto [name, entry] : obj) {
    const std::string at = path + "." + std::string(name);
    const bool good_name =
        !name.empty() && name.size() <= 64 && !(name[0] >= '0' && name[0] <= '9') &&
        std::all_of(name.begin(), name.end(), [](char c) {
          return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        });
    std::string_view text;
    if (!good_name) {
      errors.push_back({at, "must be an upper-case variable name ([A-Z_][A-Z0-9_]*)"});
    } else if (entry.get(text) || text.size() > kMaxEnvValueBytes ||
               text.find('\0') != std::string_view::npos) {
      errors.push_back({at, "must be a string of at most " + std::to_string(kMaxEnvValueBytes) +
                            " bytes without NUL"});
    } else {
      settings.environment[std::string(name)] = std::string(text);
    }
  }
}

void read_slurm(element value, slurm::SlurmSettings& settings, FieldErrors& errors) {
  const std::string path = "executor.slurm";
  const auto slurm_object = object_with_keys(
      value, path,
      {"partition", "account", "qos", "gres", "build", "simulate", "cores", "srun_options",
       "pending_limit_s", "cleanup_limit_s", "bin_dir", "environment"},
      errors, "(see docs/slurm.md)");
  if (!slurm_object) return;
  const object obj = *slurm_object;
  read_name(obj, "partition", path + ".partition", settings.partition, errors);
  read_name(obj, "account", path + ".account", settings.account, errors);
  read_name(obj, "qos", path + ".qos", settings.qos, errors);
  if (auto gres = string_field(obj, "gres", path + ".gres", errors)) {
    if (gres_spec(*gres))
      settings.gres = *gres;
    else
      errors.push_back({path + ".gres", "must be name[:type]:count as --gres takes it, e.g. "
                                        "\"openpiton:1\"; got \"" + gres->substr(0, 60) + "\""});
  }
  element part;
  if (!obj.at_key("build").get(part)) read_resources(part, path + ".build", settings.build, errors);
  if (!obj.at_key("simulate").get(part))
    read_resources(part, path + ".simulate", settings.simulate, errors);
  // After build and simulate: a core's resources start from them.
  if (!obj.at_key("cores").get(part)) read_cores(part, settings, errors);
  if (!obj.at_key("srun_options").get(part)) read_srun_options(part, settings, errors);
  if (auto s = limit_field(obj, "pending_limit_s", path + ".pending_limit_s",
                           settings.pending_limit.count(), kMaxPendingLimitS, "seconds", errors))
    settings.pending_limit = std::chrono::seconds(*s);
  if (auto s = limit_field(obj, "cleanup_limit_s", path + ".cleanup_limit_s",
                           settings.cleanup_limit.count(), kMaxCleanupLimitS, "seconds", errors))
    settings.cleanup_limit = std::chrono::seconds(*s);
  if (auto dir = string_field(obj, "bin_dir", path + ".bin_dir", errors)) {
    if ((*dir)[0] != '/' || dir->find('\0') != std::string::npos)
      errors.push_back({path + ".bin_dir", "must be an absolute path, got \"" + dir->substr(0, 60) + "\""});
    else
      settings.bin_dir = *dir;
  }
  if (!obj.at_key("environment").get(part)) read_environment(part, settings, errors);
}

void read_dispatch(object obj, ExecutorConfig& executor, FieldErrors& errors) {
  if (auto text = string_field(obj, "dispatch", "executor.dispatch", errors)) {
    if (auto dispatch = dispatch_from_string(*text))
      executor.dispatch = *dispatch;
    else
      errors.push_back({"executor.dispatch", "must be \"queue\" or \"batches\", got \"" +
                                                 text->substr(0, 60) + "\""});
  }
  element value;
  if (obj.at_key("infrastructure_retries").get(value)) return;
  int64_t n = -1;
  if (value.type() != simdjson::dom::element_type::INT64 || value.get(n) || n < 0 ||
      n > kMaxInfrastructureRetries) {
    errors.push_back({"executor.infrastructure_retries",
                      "must be an integer from 0 to " + std::to_string(kMaxInfrastructureRetries) +
                          ", got " + shown(value)});
    return;
  }
  executor.infrastructure_retries = static_cast<int>(n);
}

}  // namespace

std::string slurm_node_problem(std::string_view node) {
  if (node == "local") return "is \"local\"; the slurm executor needs the Slurm node that holds the checkout";
  if (!slurm_word(node)) return "must be a Slurm node name (letters, digits, '.', '_', '-'; at most 64)";
  return "";
}

void read_executor(element value, ExecutorConfig& executor, FieldErrors& errors) {
  const auto executor_object =
      object_with_keys(value, "executor", {"kind", "slurm", "dispatch", "infrastructure_retries", "parallel_workloads"},
                       errors, "with \"kind\" (\"local\" or \"slurm\")");
  if (!executor_object) return;
  const object obj = *executor_object;
  read_dispatch(obj, executor, errors);
  if (auto n = integer_field(obj, "parallel_workloads", "executor.parallel_workloads", executor.parallel_workloads,
                             0, kMaxParallelWorkloads, "workloads", errors))
    executor.parallel_workloads = *n;
  if (auto kind = string_field(obj, "kind", "executor.kind", errors)) {
    if (*kind == "local")
      executor.kind = ExecutorConfig::Kind::local;
    else if (*kind == "slurm")
      executor.kind = ExecutorConfig::Kind::slurm;
    else
      errors.push_back({"executor.kind", "must be \"local\" or \"slurm\", got \"" + kind->substr(0, 60) + "\""});
  }
  element slurm_settings;
  if (!obj.at_key("slurm").get(slurm_settings)) {
    if (executor.kind != ExecutorConfig::Kind::slurm)
      errors.push_back({"executor.slurm", "is only read with \"kind\": \"slurm\""});
    else
      read_slurm(slurm_settings, executor.slurm, errors);
  }
}

}  // namespace mace

#include "openpiton/sims_command.h"

#include "openpiton/generic_tile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace mace::openpiton {
namespace {

bool is_define_name(std::string_view name) {
  static const std::regex pattern("[A-Z_][A-Z0-9_]*");
  return std::regex_match(name.begin(), name.end(), pattern);
}

bool is_network_name(std::string_view name) {
  static const std::regex pattern("[A-Za-z0-9_]+");
  return std::regex_match(name.begin(), name.end(), pattern);
}

// The sims options a BuildConfig may add on its own. Everything else sims knows either
// belongs to this command (build ID, core, caches, defines: a second value would silently
// override ours), redirects the model (-model_dir), or runs shell commands
// (-pre_process_cmd, -sim_q_command); an option sims does not know it ignores, which would
// hide a typo.
const std::set<std::string, std::less<>>& extra_options_allowed() {
  static const std::set<std::string, std::less<>> allowed = {"vlt_build_args"};
  return allowed;
}

void check_extra_flag(const std::string& flag) {
  static const std::regex pattern(R"(-([a-z][a-z0-9_]*)(=[A-Za-z0-9_+\-.,/:=]*)?)");
  std::smatch match;
  if (!std::regex_match(flag, match, pattern)) {
    throw std::invalid_argument(
        "extra sims flag '" + flag +
        "' must be -option or -option=value, the value made of letters, digits and _+-.,/:=");
  }
  if (!extra_options_allowed().count(match[1].str())) {
    throw std::invalid_argument("extra sims flag '" + flag +
                                "' sets an option a build configuration may not set");
  }
}

void check_config(const BuildConfig& config) {
  if (config.x_tiles < 1 || config.y_tiles < 1) {
    throw std::invalid_argument("a mesh needs at least one tile each way, not " +
                                std::to_string(config.x_tiles) + "x" +
                                std::to_string(config.y_tiles));
  }
  for (Cache cache : kAllCaches) {
    const CacheGeometry& geometry = config.caches[cache];
    if (geometry.size_bytes <= 0 || geometry.associativity <= 0) {
      throw std::invalid_argument("cache " + std::string(to_string(cache)) +
                                  " needs a positive size and associativity (fill in the "
                                  "checkout's defaults first)");
    }
  }
  if (!config.network.empty() && !is_network_name(config.network)) {
    throw std::invalid_argument("network '" + config.network +
                                "' is not a plain name (letters, digits, _)");
  }
  for (const auto& define : config.rtl_defines) {
    if (!is_define_name(define)) {
      throw std::invalid_argument("RTL define '" + define +
                                  "' is not an upper-snake-case identifier");
    }
  }
  for (const auto& flag : config.extra_flags) check_extra_flag(flag);
}

// The `verilator` that `env`'s PATH names, as exec would find it.
std::optional<std::string> find_in_path(const std::map<std::string, std::string>& env,
                                        const std::string& program) {
  const auto path = env.find("PATH");
  std::istringstream elements(path != env.end() ? path->second : "/usr/local/bin:/usr/bin:/bin");
  std::string directory;
  while (std::getline(elements, directory, ':')) {
    if (directory.empty()) continue;
    std::string candidate = directory + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

struct InstalledBinary {
  std::string path;
  dev_t device;
  ino_t inode;
  off_t size;
  long long mtime_ns;
  auto operator<=>(const InstalledBinary&) const = default;
};

}  // namespace

std::optional<VerilatorVersion> parse_verilator_version(std::string_view output) {
  static const std::regex pattern(R"(^Verilator (\d+)\.(\d+)\b.*)");
  std::istringstream lines{std::string(output)};
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch match;
    if (std::regex_match(line, match, pattern)) {
      return VerilatorVersion{std::stoi(match[1]), std::stoi(match[2]), line};
    }
  }
  return std::nullopt;
}

VerilatorVersion detect_verilator_version(const std::map<std::string, std::string>& env,
                                          const os::CancelToken* cancel,
                                          const os::CommandRunner& runner) {
  // Known here: keyed by what this machine sees of it. Not here: only the runner's machine
  // has it, so ask by name there, and every time (nothing here tells an upgrade).
  std::optional<InstalledBinary> key;
  std::string program = "verilator";
  if (const auto binary = find_in_path(env, "verilator")) {
    struct stat info {};
    if (stat(binary->c_str(), &info) == 0) {
      key = InstalledBinary{*binary, info.st_dev, info.st_ino, info.st_size,
                            info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec};
      program = *binary;
    }
  }

  static std::mutex mutex;
  static std::map<InstalledBinary, VerilatorVersion> known;
  if (key) {
    std::lock_guard lock(mutex);
    if (auto it = known.find(*key); it != known.end()) return it->second;
  }

  os::ProcessSpec spec;
  spec.argv = {program, "--version"};
  spec.env = env;
  spec.purpose = os::CommandPurpose::verilator_version;
  spec.timeout = std::chrono::seconds(60);
  spec.kill_grace = std::chrono::seconds(2);
  const os::ProcessResult result = runner.run(spec, cancel);
  if (result.host_stop != os::HostStop::none)
    throw os::HostStopped(result.host_stop, "`" + program + " --version` failed: " + result.host_stop_detail);
  if (!result.succeeded()) {
    std::string why = result.launch_failed                         ? result.error
                      : result.timed_out                           ? std::string("timed out")
                      : result.exit_code == 127 && !key
                          ? "verilator is not in the build environment's PATH"
                          : "exit " + std::to_string(result.exit_code);
    throw std::runtime_error("`" + program + " --version` failed: " + why);
  }
  const auto version = parse_verilator_version(result.tail);
  if (!version) {
    throw std::runtime_error("cannot read a version from `" + program +
                             " --version`: " + result.tail.substr(0, 200));
  }
  if (key) {
    std::lock_guard lock(mutex);
    known[*key] = *version;
  }
  return *version;
}

std::vector<std::string> sims_build_argv(const BuildConfig& config,
                                         const VerilatorVersion& verilator) {
  check_config(config);
  std::vector<std::string> argv = {
      "sims",
      "-sys=manycore",
      "-x_tiles=" + std::to_string(config.x_tiles),
      "-y_tiles=" + std::to_string(config.y_tiles),
      "-vlt_build",
      "-build_id=" + build_id(config),
  };
  switch (config.core) {
    case Core::pico:
    case Core::generic: argv.push_back("-pico"); break;
    case Core::ariane: argv.push_back("-ariane"); break;
    case Core::sparc: break;
  }
  // Always explicit, so that nothing the environment or a changed manycore.config says
  // can make a model differ from its build ID.
  for (Cache cache : kAllCaches) {
    const std::string name(to_string(cache));
    argv.push_back("-config_" + name + "_size=" + std::to_string(config.caches[cache].size_bytes));
    argv.push_back("-config_" + name +
                   "_associativity=" + std::to_string(config.caches[cache].associativity));
  }
  if (!config.network.empty()) argv.push_back(std::string(kNetworkOption) + config.network);
  for (const auto& define : build_defines(config)) {
    argv.push_back("-config_rtl=" + define);
  }
  if (config.core == Core::generic) {
    // The Generic Tile (generic_tile.h): the tile hosts mace_generic_wrapper, and the
    // generated file list brings the wrapper and the core's files in.
    argv.push_back("-config_rtl=" + std::string(kGenericCoreDefine));
    argv.push_back(std::string(kGeneratedFlistOption));
  }
  if (verilator.needs_timing_option()) argv.push_back("-vlt_build_args=--no-timing");
  argv.insert(argv.end(), config.extra_flags.begin(), config.extra_flags.end());
  return argv;
}

}  // namespace mace::openpiton

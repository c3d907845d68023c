#include "openpiton/git_command.h"

#include "os/environment.h"

namespace mace::openpiton {

os::ProcessSpec git_command(const std::filesystem::path& top,
                            const std::vector<std::string>& arguments) {
  os::ProcessSpec spec;
  spec.argv = {"git", "-c", "safe.directory=" + top.string()};
  for (const char* setting : {"core.excludesFile=/dev/null", "core.fsmonitor=false"})
    spec.argv.insert(spec.argv.end(), {"-c", setting});
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  const auto inherited = os::inherited_environment();
  for (const char* kept : {"PATH", "HOME"})
    if (auto it = inherited.find(kept); it != inherited.end()) spec.env[kept] = it->second;
  if (!spec.env.count("PATH")) spec.env["PATH"] = "/usr/local/bin:/usr/bin:/bin";
  spec.env["GIT_OPTIONAL_LOCKS"] = "0";
  spec.env["LC_ALL"] = "C";
  spec.working_dir = top.string();
  return spec;
}

std::string git_failure(const os::ProcessResult& result) {
  if (result.launch_failed) return result.error;
  if (result.cancelled) return "cancelled";
  if (result.timed_out) return "timed out";
  if (result.term_signal != 0) return "killed by signal " + std::to_string(result.term_signal);
  return "exit " + std::to_string(result.exit_code);
}

}  // namespace mace::openpiton

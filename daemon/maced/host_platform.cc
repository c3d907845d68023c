#include "maced/host_platform.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace mace {

std::vector<std::string> host_platform_problems(std::string_view system_name,
                                                const std::filesystem::path& shell) {
  std::vector<std::string> problems;
  if (system_name != "Linux")
    problems.push_back("this machine runs " + std::string(system_name) +
                       "; MACE needs Linux (process groups, /proc, pidfds)");
  struct stat st {};
  if (::stat(shell.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(shell.c_str(), X_OK) != 0)
    problems.push_back("there is no executable POSIX shell at " + shell.string() +
                       "; sims and MACE's helpers run under it");
  return problems;
}

std::vector<std::string> this_host_platform_problems() {
  struct utsname host {};
  if (::uname(&host) != 0) return {"uname(2) failed: the operating system cannot be told"};
  return host_platform_problems(host.sysname, kPosixShell);
}

}  // namespace mace

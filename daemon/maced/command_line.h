#pragma once
// maced's command line and the defaults systemd's environment gives it: where it listens,
// keeps its state, reads its configuration and finds the gate workloads.

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mace {

struct MacedOptions {
  std::string socket_path;
  std::string state_dir;
  std::string config_path;  // empty: no file, every default
  std::string workloads_dir;
  // Instead of serving: write a backup of the state into this new directory, or restore
  // the state from the backup in this one (maced/state_backup.h); empty: serve.
  std::string backup_to;
  std::string restore_from;
};

// What the command line asks: to run with these options, or to exit at once with
// `exit_code` after printing `out` (to stdout: --version, --help) or `err` (to stderr:
// a bad argument, with the usage).
struct CommandLine {
  MacedOptions options;
  std::optional<int> exit_code;
  std::string out;
  std::string err;
};

// `env` reads the environment (RUNTIME_DIRECTORY, STATE_DIRECTORY, MACE_WORKLOADS_DIR);
// `installed_workloads` is where an install put the gate workloads.
CommandLine parse_command_line(const std::vector<std::string>& args,
                               const std::function<const char*(const char*)>& env,
                               const std::string& installed_workloads);

}  // namespace mace

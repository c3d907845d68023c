#include "maced/command_line.h"

namespace mace {
namespace {

std::string usage(const std::string& installed_workloads) {
  return "usage: maced [--socket PATH] [--state-dir DIR] [--config FILE]\n"
         "       maced --backup NEW_DIR [--state-dir DIR] [--config FILE]\n"
         "       maced --restore BACKUP_DIR [--state-dir DIR] [--config FILE]\n"
         "\n"
         "  --socket PATH     Unix socket to listen on when systemd passes none\n"
         "                    (default $RUNTIME_DIRECTORY/maced.sock, else /run/maced/maced.sock)\n"
         "  --state-dir DIR   where mace.db and run directories live\n"
         "                    (default $STATE_DIRECTORY, else /var/lib/maced)\n"
         "  --config FILE     configuration file (JSON; see docs/operating-maced.md)\n"
         "  --workloads DIR   the gate workloads (default $MACE_WORKLOADS_DIR, else the installed\n"
         "                    " + installed_workloads + ")\n"
         "  --backup NEW_DIR  write a backup of the state (the store and the runs' kept logs) into\n"
         "                    a new directory, while maced runs or not, and exit\n"
         "  --restore BACKUP_DIR\n"
         "                    restore the state from a backup, with maced stopped, and exit\n"
         "  --version         print the version and exit\n";
}

// systemd may list several directories separated by ':'; the first is ours.
std::string first_dir(const std::string& list) { return list.substr(0, list.find(':')); }

void apply_defaults(MacedOptions& options, const std::function<const char*(const char*)>& env,
                    const std::string& installed_workloads) {
  if (options.socket_path.empty()) {
    const char* runtime = env("RUNTIME_DIRECTORY");
    options.socket_path = runtime ? first_dir(runtime) + "/maced.sock" : "/run/maced/maced.sock";
  }
  if (options.workloads_dir.empty()) {
    const char* dir = env("MACE_WORKLOADS_DIR");
    options.workloads_dir = dir && *dir ? dir : installed_workloads;
  }
  if (options.state_dir.empty()) {
    const char* state = env("STATE_DIRECTORY");
    options.state_dir = state ? first_dir(state) : "/var/lib/maced";
  }
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& args,
                               const std::function<const char*(const char*)>& env,
                               const std::string& installed_workloads) {
  CommandLine line;
  auto refuse = [&](const std::string& why) {
    line.exit_code = 2;
    line.err = "maced: " + why + "\n" + usage(installed_workloads);
    return line;
  };
  const std::pair<const char*, std::string MacedOptions::*> valued[] = {
      {"--socket", &MacedOptions::socket_path},
      {"--state-dir", &MacedOptions::state_dir},
      {"--config", &MacedOptions::config_path},
      {"--workloads", &MacedOptions::workloads_dir},
      {"--backup", &MacedOptions::backup_to},
      {"--restore", &MacedOptions::restore_from}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--version") {
      line.exit_code = 0;
      line.out = std::string("maced ") + MACE_VERSION + "\n";
      return line;
    }
    if (arg == "--help" || arg == "-h") {
      line.exit_code = 0;
      line.out = usage(installed_workloads);
      return line;
    }
    bool known = false;
    for (const auto& [name, field] : valued) {
      if (arg != name) continue;
      if (i + 1 >= args.size()) return refuse(arg + " needs a value");
      line.options.*field = args[++i];
      known = true;
    }
    if (!known) return refuse("unknown argument " + arg);
  }
  if (!line.options.backup_to.empty() && !line.options.restore_from.empty())
    return refuse("--backup and --restore: one at a time");
  apply_defaults(line.options, env, installed_workloads);
  return line;
}

}  // namespace mace

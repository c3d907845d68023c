// mace: the command-line client of maced.

#include <iostream>
#include <string>
#include <vector>

#include "command_table.h"
#include "commands.h"
#include "escaped_output.h"
#include "exit_codes.h"
#include "suggestion.h"

namespace {

using namespace mace::client;

struct CommandLine {
  GlobalOptions global;
  std::vector<std::string> words;  // the command and its arguments
  bool help = false;               // --help or -h anywhere before "--"
};

// Global options may stand anywhere before "--", so `mace list --json` works too.
bool read_command_line(int argc, char** argv, CommandLine& line) {
  bool after_dashes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (after_dashes) {
      line.words.push_back(a);
    } else if (a == "--") {
      after_dashes = true;
      line.words.push_back(a);
    } else if (a == "--json") {
      line.global.json = true;
    } else if (a == "--socket" || a == "--socket=") {
      if (a == "--socket=" || i + 1 >= argc || !*argv[i + 1]) {
        std::cerr << "mace: --socket needs a path\n";
        return false;
      }
      line.global.socket_path = argv[++i];
    } else if (a.rfind("--socket=", 0) == 0 && a.size() > 9) {
      line.global.socket_path = a.substr(9);
    } else if (a == "--help" || a == "-h") {
      line.help = true;
    } else {
      line.words.push_back(a);
    }
  }
  // `mace help [COMMAND]` is `mace [COMMAND] --help`.
  if (!line.words.empty() && line.words[0] == "help") {
    line.words.erase(line.words.begin());
    line.help = true;
  }
  return true;
}

// The command the words name, with how many words its name takes.
const CommandInfo* find_command(const std::vector<std::string>& words, std::size_t& used) {
  for (const CommandInfo& command : command_table()) {
    const std::string name = command.name;
    used = name.find(' ') == std::string::npos ? 1 : 2;
    if (words.size() < used) continue;
    if ((used == 1 ? words[0] : words[0] + " " + words[1]) == name) return &command;
  }
  return nullptr;
}

std::vector<std::string> visible_command_names() {
  std::vector<std::string> names;
  for (const CommandInfo& command : command_table())
    if (!command.hidden) names.push_back(command.name);
  return names;
}

// A first word that is no command: a group (`mace eval`), a typo, or nothing known.
int unknown_command(const std::vector<std::string>& words, bool help) {
  const std::string group_text = group_help(words[0]);
  if (!group_text.empty() && (help || words.size() == 1)) {
    (help ? std::cout : std::cerr) << group_text;
    return help ? kExitOk : kExitBadInput;
  }
  const std::string typed = group_text.empty() ? words[0] : words[0] + " " + words[1];
  std::cerr << "mace: unknown command \"" << typed << "\"";
  if (auto meant = closest_word(typed, visible_command_names()))
    std::cerr << "; did you mean \"" << *meant << "\"?";
  std::cerr << "\n  `mace --help` lists the commands.\n";
  return kExitBadInput;
}

int run_command(const CommandInfo& command, const CommandLine& line, std::size_t used) {
  if (line.help) {
    std::cout << command_help(command);
    return kExitOk;
  }
  const std::vector<std::string> tail(line.words.begin() + static_cast<long>(used),
                                      line.words.end());
  ArgumentError error;
  const auto args = parse_arguments(tail, command.accepts, error);
  if (!args) {
    std::cerr << "mace " << command.name << ": " << error.message;
    if (!error.unknown_flag.empty()) {
      std::vector<std::string> flags(command.accepts.switches.begin(),
                                     command.accepts.switches.end());
      flags.insert(flags.end(), command.accepts.with_values.begin(),
                   command.accepts.with_values.end());
      flags.insert(flags.end(), command.accepts.repeatable.begin(), command.accepts.repeatable.end());
      flags.insert(flags.end(), {"--json", "--socket", "--help"});
      if (auto meant = closest_word(error.unknown_flag, flags))
        std::cerr << "; did you mean " << *meant << "?";
    }
    std::cerr << "\nusage: mace " << command.name << " " << command.synopsis << "\n";
    return kExitBadInput;
  }
  if (args->has("--raw")) leave_standard_output_raw();
  return command.run(line.global, *args);
}

}  // namespace

int main(int argc, char** argv) {
  // Everything printed from here on shows control characters as escapes (escaped_output.h).
  EscapedStandardStreams escaped;
  CommandLine line;
  if (!read_command_line(argc, argv, line)) return kExitBadInput;
  if (line.words.empty()) {
    (line.help ? std::cout : std::cerr) << overall_help();
    return line.help ? kExitOk : kExitBadInput;
  }
  std::size_t used = 0;
  if (const CommandInfo* command = find_command(line.words, used))
    return run_command(*command, line, used);
  return unknown_command(line.words, line.help);
}

#pragma once
// Every `mace` command: its name, arguments, flags and help, in one table from which the
// dispatcher, `mace --help`, `mace COMMAND --help` and the suggestions for a mistyped
// command or flag are all made.

#include <string>
#include <vector>

#include "arguments.h"
#include "commands.h"

namespace mace::client {

struct CommandInfo {
  const char* name;      // one word, or two ("spec check")
  const char* synopsis;  // its arguments, as `mace NAME SYNOPSIS`
  const char* summary;   // one line for `mace --help`
  const char* details;   // paragraphs for `mace NAME --help`
  int (*run)(const GlobalOptions&, const Arguments&);
  ArgumentSpec accepts;
  bool hidden = false;  // started by programs (mcp), not listed for people
};

const std::vector<CommandInfo>& command_table();

// `mace --help`: every command with its summary, the options and the exit codes.
std::string overall_help();
// `mace NAME --help`.
std::string command_help(const CommandInfo& command);
// `mace eval --help`: the commands whose first word is `group`; empty when none is.
std::string group_help(const std::string& group);

}  // namespace mace::client

// mace verdict FILE...: the verdict of each simulation transcript, read exactly as maced
// reads it, one line per file, for people and scripts. No daemon needed.

#include <iostream>

#include "commands.h"
#include "core/json_writer.h"
#include "exit_codes.h"
#include "openpiton/verdict.h"

namespace mace::client {

int cmd_verdict(const GlobalOptions& global, const Arguments& args) {
  if (args.positional.empty()) {
    std::cerr << "usage: mace verdict SIM_LOG...\n";
    return kExitBadInput;
  }
  bool unreadable = false;
  for (const std::string& file : args.positional) {
    auto result = openpiton::read_verdict(file);
    if (!result.error.empty()) {
      std::cerr << "mace: " << result.error << "\n";
      unreadable = true;
    }
    std::string verdict(openpiton::to_string(result.verdict));
    if (global.json) {
      JsonWriter w;
      w.begin_object().field("file", file).field("verdict", verdict);
      w.field("marker_line", result.marker_line);
      if (!result.error.empty()) w.field("error", result.error);
      w.end_object();
      std::cout << w.str() << "\n";
    } else if (args.positional.size() == 1) {
      std::cout << verdict << "\n";
    } else {
      std::cout << file << ": " << verdict << "\n";
    }
  }
  return unreadable ? kExitBadInput : kExitOk;
}

}  // namespace mace::client

// mace replay RUN [--until N] [--watch]: re-executes a recorded run from its record.

#include <charconv>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"

namespace mace::client {

int cmd_replay(const GlobalOptions& global, const Arguments& args) {
  constexpr const char* kUsageLine = "usage: mace replay RUN [--until ITERATION] [--watch]";
  if (args.positional.size() != 1) {
    std::cerr << kUsageLine << "\n";
    return kExitBadInput;
  }
  uint32_t until = 0;
  if (auto text = args.value("--until")) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), until);
    if (ec != std::errc() || end != text->data() + text->size() || until == 0) {
      std::cerr << "mace replay: --until must be a positive iteration number, got \"" << *text
                << "\"\n";
      return kExitBadInput;
    }
  }
  const std::string& original = args.positional[0];
  std::string run_id;
  int rc = with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    auto request = maced.replayRequest();
    request.setRunId(original);
    request.setUntilIteration(until);
    auto response = answered(request.send().wait(io.waitScope));
    if (response.getErrors().size() > 0) {
      for (auto e : response.getErrors())
        std::cerr << "mace replay: " << e.getPath().cStr() << ": " << e.getMessage().cStr() << "\n";
      return kExitBadInput;
    }
    run_id = response.getRunId().cStr();
    print_accepted_run(global, run_id, original);
    return kExitOk;
  });
  return watch_if_asked(global, args, rc, run_id);
}

}  // namespace mace::client

// mace plan parse FILE: what MACE would read from a planner reply, without a daemon.

#include <cstdint>
#include <iostream>
#include <optional>

#include "commands.h"
#include "core/plan.h"
#include "exit_codes.h"

namespace mace::client {

int cmd_plan_parse(const GlobalOptions&, const Arguments& args) {
  if (args.positional.size() != 1) {
    std::cerr << "usage: mace plan parse FILE\n";
    return kExitBadInput;
  }
  const std::string& file = args.positional[0];
  // One byte over the reply limit is enough for parse_plan to refuse it as too long; the
  // error then gives the file's size, not where the reading stopped.
  const Input input = read_input(file, kMaxReplyBytes + 1);
  if (!input.error.empty()) {
    std::cerr << "mace: " << input.error << "\n";
    return kExitBadInput;
  }
  Plan plan = parse_plan(input.bytes);
  if (input.bytes.size() > kMaxReplyBytes && input.whole_size)
    plan.errors = {reply_too_long_error(input.whole_size)};
  std::cout << plan_to_json(plan) << "\n";
  // The JSON lists skipped lines verbatim; the reasons help whoever wrote the prompt.
  for (size_t i = 0; i < plan.skipped.size(); ++i)
    std::cerr << file << ": skipped: " << plan.skip_reasons[i] << "\n";
  if (!plan.usable()) {
    for (const auto& e : plan.errors) std::cerr << file << ": " << e << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace mace::client

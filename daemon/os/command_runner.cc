#include "os/command_runner.h"

namespace mace::os {

ProcessResult LocalCommandRunner::run(const ProcessSpec& spec, const CancelToken* cancel) const {
  return run_process_group(spec, cancel);
}

std::shared_ptr<const CommandRunner> LocalCommandRunner::labelled(const std::string&) const {
  return shared_from_this();
}

std::shared_ptr<const CommandRunner> LocalCommandRunner::side_by_side(std::size_t, const CancelToken*,
                                                                      std::string&) const {
  return shared_from_this();  // the executor already divides this machine between them
}

std::shared_ptr<const CommandRunner> local_command_runner() {
  static const std::shared_ptr<const CommandRunner> runner =
      std::make_shared<const LocalCommandRunner>();
  return runner;
}

}  // namespace mace::os

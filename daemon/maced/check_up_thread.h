#pragma once
// Check-ups (maced/check_up.h) run on a thread of maced's own: they start programs and wait
// for them for seconds, which the event loop every other call waits on must not. Asks that
// come while one runs share the next check, so a crowd of `mace doctor`s costs one check at
// a time.

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "maced/command_line.h"
#include "maced/config.h"
#include "rpc/check_up_source.h"

namespace mace {

class CheckUpThread final : public rpc::CheckUpSource {
 public:
  CheckUpThread(MacedConfig config, MacedOptions options);
  // Answers nothing more: asks not yet answered fail as the loop ends.
  ~CheckUpThread() override;

  kj::Promise<std::vector<CheckFinding>> check_up() override;

 private:
  using Answer = kj::Own<kj::CrossThreadPromiseFulfiller<std::vector<CheckFinding>>>;
  void run();

  const MacedConfig config_;
  const MacedOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Answer> waiting_;
  bool stopping_ = false;
  std::thread thread_;  // last: it uses everything above
};

}  // namespace mace

#pragma once
// Where `checkUp` answers come from: maced's check-up (maced/check_up.h), run off the event
// loop since it starts programs and waits for them. Without one, maced answers that it has
// none.

#include <vector>

#include <kj/async.h>

#include "core/check_finding.h"

namespace mace::rpc {

class CheckUpSource {
 public:
  virtual ~CheckUpSource() = default;
  // The findings of a check-up, resolved on the calling thread's loop.
  virtual kj::Promise<std::vector<CheckFinding>> check_up() = 0;
};

}  // namespace mace::rpc

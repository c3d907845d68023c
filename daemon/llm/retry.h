#pragma once
// Waiting out a rate limit (REQ-BUD-14): a rate-limited call is tried again after 30, 60
// and 120 seconds, or after the vendor's own reset time when the reply carries one. Any
// other error is final: re-sending a bad request, a blocked prompt or a dead credential
// gives the same answer.

#include <chrono>
#include <functional>
#include <vector>

#include "llm/llm.h"

namespace mace::llm {

struct RetryPolicy {
  std::vector<std::chrono::seconds> waits{std::chrono::seconds(30), std::chrono::seconds(60),
                                          std::chrono::seconds(120)};
  // A vendor reset time beyond this is taken as this: a run must not stall for hours on a
  // daily quota, and the run's own wall-clock budget bounds it anyway.
  std::chrono::seconds max_vendor_wait{300};
  // Multiplies every wait (rounded down to whole seconds). 1 in production.
  double scale = 1.0;

  // Reads MACE_LLM_RETRY_SCALE, a non-negative factor for every wait (0.01 turns 30 s into
  // 0 s, for tests and demos). An unset, unparsable or negative value leaves the real waits.
  static RetryPolicy from_environment(const EnvLookup& env);

  // The wait before retry number `retry` (0-based) after `reply`.
  std::chrono::seconds wait_before_retry(size_t retry, const Reply& reply) const;
};

// Calls `backend` until it answers with anything but rate_limit, or the waits run out;
// returns the last reply. `on_attempt` sees every reply (attempt counts from 1) so each
// call can be recorded with its usage (REQ-BUD-12); `sleep` does the waiting.
Reply call_with_retries(Backend& backend, const Request& request, const RetryPolicy& policy,
                        const std::function<void(std::chrono::seconds)>& sleep,
                        const std::function<void(const Reply&, int attempt)>& on_attempt);

}  // namespace mace::llm

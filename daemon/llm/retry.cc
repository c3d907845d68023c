#include "llm/retry.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace mace::llm {

RetryPolicy RetryPolicy::from_environment(const EnvLookup& env) {
  RetryPolicy policy;
  auto text = env ? env("MACE_LLM_RETRY_SCALE") : std::nullopt;
  if (!text || text->empty()) return policy;
  char* end = nullptr;
  double factor = std::strtod(text->c_str(), &end);
  if (end != text->c_str() + text->size() || !std::isfinite(factor) || factor < 0) return policy;
  policy.scale = factor;
  return policy;
}

std::chrono::seconds RetryPolicy::wait_before_retry(size_t retry, const Reply& reply) const {
  std::chrono::seconds base{0};
  if (reply.retry_after) {
    base = std::clamp(*reply.retry_after, std::chrono::seconds(0), max_vendor_wait);
  } else if (retry < waits.size()) {
    base = waits[retry];
  }
  return std::chrono::seconds(
      static_cast<std::chrono::seconds::rep>(std::floor(static_cast<double>(base.count()) * scale)));
}

Reply call_with_retries(Backend& backend, const Request& request, const RetryPolicy& policy,
                        const std::function<void(std::chrono::seconds)>& sleep,
                        const std::function<void(const Reply&, int attempt)>& on_attempt) {
  for (size_t retry = 0;; ++retry) {
    Reply reply = backend.call(request);
    if (on_attempt) on_attempt(reply, static_cast<int>(retry) + 1);
    if (reply.ok || reply.error_class != ErrorClass::rate_limit || retry >= policy.waits.size()) {
      return reply;
    }
    if (sleep) sleep(policy.wait_before_retry(retry, reply));
  }
}

}  // namespace mace::llm

#pragma once
// How an LLM call failed, in one word: what the retry policy decides on (REQ-BUD-14), the
// store records of every attempt (REQ-BUD-12) and replay compares.

#include <string_view>

#include "core/enum_text.h"

namespace mace {

enum class LlmErrorClass {
  none,
  rate_limit,       // retried after 30, 60, 120 s (REQ-BUD-14), or the vendor's reset time
  authentication,
  billing,
  invalid_request,
  server,
  output_limit,     // MAX_TOKENS / output length
  blocked,          // safety or policy block of the prompt or the reply
  timeout,
  unknown,
};

// The enumerator's name ("none" for none); the store keeps "" for a call that succeeded.
std::string_view to_string(LlmErrorClass c);

}  // namespace mace

#pragma once
// What a non-200 answer of Vertex AI means, for the retry policy and for people.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "llm/llm.h"

namespace mace::llm {

// The class and message of a non-200 answer, from its status and Google's error body
// {"error": {"code", "message", "status", "details"}}. Sets `retry_after` from the
// Retry-After header or a google.rpc.RetryInfo detail when either is given.
ErrorClass classify_vertex_error(long http_status, std::string_view body,
                                 const std::optional<std::string>& retry_after_header,
                                 std::string& message,
                                 std::optional<std::chrono::seconds>& retry_after);

}  // namespace mace::llm

#include "llm/vertex_errors.h"

#include <algorithm>
#include <cmath>

#include <simdjson.h>

#include "llm/http_client.h"
#include "llm/vertex_json.h"

namespace mace::llm {

using simdjson::dom::element;
using vertex::excerpt;
using vertex::string_field;

ErrorClass classify_vertex_error(long http_status, std::string_view body,
                                 const std::optional<std::string>& retry_after_header,
                                 std::string& message,
                                 std::optional<std::chrono::seconds>& retry_after) {
  std::string status, text;
  bool billing = false;
  simdjson::dom::parser parser;
  element root, err;
  if (!parser.parse(body.data(), body.size()).get(root)) {
    // Some front ends answer with a one-element array around the error.
    if (simdjson::dom::array arr; !root.get_array().get(arr) && arr.size() > 0) {
      element first;
      if (!arr.at(0).get(first)) root = first;
    }
    if (!root["error"].get(err) && err.is_object()) {
      status = string_field(err, "status");
      text = string_field(err, "message");
      simdjson::dom::array details;
      if (!err["details"].get_array().get(details)) {
        for (element d : details) {
          std::string type = string_field(d, "@type");
          if (type.find("google.rpc.RetryInfo") != std::string::npos && !retry_after) {
            // retryDelay is a proto Duration: "30s" or "1.5s".
            std::string delay = string_field(d, "retryDelay");
            if (!delay.empty() && delay.back() == 's') {
              try {
                // Bounded before it becomes an integer: a delay past what int64_t holds (or
                // NaN) was undefined behaviour. The longest wait is about 31 years, as for a
                // Retry-After header (http_client.cc).
                constexpr double kLongestWait = 999'999'999;
                const double seconds = std::ceil(std::stod(delay.substr(0, delay.size() - 1)));
                if (seconds == seconds)  // not NaN
                  retry_after = std::chrono::seconds(
                      static_cast<int64_t>(std::clamp(seconds, 0.0, kLongestWait)));
              } catch (...) {
              }
            }
          }
          if (string_field(d, "reason") == "BILLING_DISABLED") billing = true;
        }
      }
    }
  }
  if (retry_after_header) {
    if (auto parsed = parse_retry_after(*retry_after_header)) retry_after = parsed;
  }

  message = "vertex: HTTP " + std::to_string(http_status);
  if (!status.empty()) message += " " + status;
  message += ": " + (text.empty() ? excerpt(body) : text);

  if (http_status == 429 || status == "RESOURCE_EXHAUSTED") return ErrorClass::rate_limit;
  if (billing) return ErrorClass::billing;
  if (http_status == 401 || http_status == 403 || status == "UNAUTHENTICATED" ||
      status == "PERMISSION_DENIED") {
    return ErrorClass::authentication;
  }
  if (status == "DEADLINE_EXCEEDED" || http_status == 504) return ErrorClass::timeout;
  if (http_status >= 500) return ErrorClass::server;
  if (http_status == 400 || http_status == 404 || status == "INVALID_ARGUMENT" ||
      status == "NOT_FOUND" || status == "FAILED_PRECONDITION" || status == "OUT_OF_RANGE") {
    return ErrorClass::invalid_request;
  }
  return ErrorClass::unknown;
}

}  // namespace mace::llm

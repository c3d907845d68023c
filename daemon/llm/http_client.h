#pragma once
// A small blocking HTTP client over libcurl: one POST, one answer. The LLM backends call
// it from a run's own thread, so nothing here is asynchronous.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mace::llm {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type
  std::string body;
  std::string content_type = "application/json";
  std::chrono::milliseconds timeout{600'000};
};

struct HttpResponse {
  // 0 when no HTTP answer arrived; `error` then says why.
  long status = 0;
  std::string body;
  // Names lower-cased; a repeated header keeps its last value.
  std::map<std::string, std::string> headers;
  std::string error;
  bool timed_out = false;

  bool transport_ok() const { return status != 0; }
  std::optional<std::string> header(std::string_view name) const;
};

HttpResponse http_post(const HttpRequest& request);

// Retry-After as delta-seconds or an HTTP-date (RFC 9110 §10.2.3); nullopt when neither.
// A date in the past gives zero.
std::optional<std::chrono::seconds> parse_retry_after(
    std::string_view value,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace mace::llm

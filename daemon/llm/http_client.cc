#include "llm/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include "os/text.h"

namespace mace::llm {

namespace {

void ensure_curl_initialised() {
  // curl_global_init is not thread-safe on every build of libcurl; do it once, before any
  // handle exists, and never clean up (other threads may still hold handles at exit).
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(data, size * n);
  // A redirect or a 100 Continue starts a new header block; keep only the last one.
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    (*headers)[lower(os::trim(line.substr(0, colon)))] = std::string(os::trim(line.substr(colon + 1)));
  }
  return size * n;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  auto it = headers.find(lower(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

HttpResponse http_post(const HttpRequest& request) {
  ensure_curl_initialised();
  HttpResponse response;
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) {
    response.error = "curl_easy_init failed";
    return response;
  }

  std::unique_ptr<curl_slist, SlistDeleter> list;
  auto add_header = [&list](const std::string& line) {
    curl_slist* next = curl_slist_append(list.get(), line.c_str());
    if (next != nullptr) {
      (void)list.release();
      list.reset(next);
    }
  };
  add_header("Content-Type: " + request.content_type);
  // libcurl would otherwise send "Expect: 100-continue" for large bodies and wait a second.
  add_header("Expect:");
  for (const auto& [name, value] : request.headers) add_header(name + ": " + value);

  char error_buffer[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list.get());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min<long long>(request.timeout.count(), 30'000)));
  // Run threads must not get SIGALRM/SIGPIPE from libcurl's resolver.
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");

  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    response.status = 0;
    response.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    response.error = error_buffer[0] != '\0' ? std::string(error_buffer) : curl_easy_strerror(rc);
    return response;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value,
                                                      std::chrono::system_clock::time_point now) {
  value = os::trim(value);
  if (value.empty()) return std::nullopt;
  constexpr long long kLongestWait = 999'999'999;  // seconds: about 31 years
  if (std::all_of(value.begin(), value.end(),
                  [](unsigned char ch) { return std::isdigit(ch) != 0; })) {
    if (value.size() > 9) return std::chrono::seconds(kLongestWait);
    return std::chrono::seconds(std::stoll(std::string(value)));
  }
  std::string text(value);
  time_t when = curl_getdate(text.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  // In seconds: a date centuries ahead is past what the system clock's nanoseconds hold,
  // and converting it to a time_point would overflow.
  const long long now_s =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const long long delta = static_cast<long long>(when) - now_s;
  return std::chrono::seconds(std::clamp(delta, 0LL, kLongestWait));
}

}  // namespace mace::llm

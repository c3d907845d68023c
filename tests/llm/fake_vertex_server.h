#pragma once
// A real HTTP/1.1 server on 127.0.0.1 that answers like Vertex AI's generateContent and
// Google's OAuth token endpoint, so the vertex backend is tested through libcurl and real
// sockets. Replies are scripted in order; every request is recorded for assertions.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace mace::llm::testing {

struct RecordedRequest;

struct ScriptedResponse {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};
  // When set, the answer is computed from the request it answers (a scripted model that
  // reads what a tool returned); the fields above are then ignored.
  std::function<ScriptedResponse(const RecordedRequest&)> compute = {};
  // text/event-stream for a streamed answer (tests/llm/fake_anthropic_server.h).
  std::string content_type = "application/json; charset=UTF-8";
};

struct RecordedRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string header(const std::string& lower_name) const;
};

// What the token endpoint saw in one JWT-bearer exchange.
struct TokenExchange {
  std::string grant_type;
  std::string header_json;
  std::string claims_json;
  bool signature_valid = false;
};

// input is promptTokenCount, which (as on Vertex) includes the `cached` tokens of
// cachedContentTokenCount.
struct Usage3 {
  int64_t input = 0, output = 0, thinking = 0, cached = 0;
};

class FakeVertexServer {
 public:
  FakeVertexServer();
  ~FakeVertexServer();
  FakeVertexServer(const FakeVertexServer&) = delete;
  FakeVertexServer& operator=(const FakeVertexServer&) = delete;

  uint16_t port() const { return port_; }
  std::string base_url() const;
  std::string token_uri() const { return base_url() + "/token"; }

  // Answers for the generateContent path, in order. With none left it answers 500.
  void push(ScriptedResponse response);
  // Answers every request but the token endpoint's instead of the script (another vendor's
  // API over the same HTTP server: fake_anthropic_server.h). Set before any request.
  void set_handler(std::function<ScriptedResponse(const RecordedRequest&)> handler);

  static ScriptedResponse text(const std::string& text, Usage3 usage = {},
                               const std::string& finish_reason = "STOP");
  // One model turn asking for the given calls: {function name, args as JSON}.
  static ScriptedResponse function_calls(
      const std::vector<std::pair<std::string, std::string>>& calls, Usage3 usage = {});
  static ScriptedResponse max_tokens(const std::string& partial_text, Usage3 usage = {});
  static ScriptedResponse blocked_prompt(const std::string& reason);
  static ScriptedResponse error(int code, const std::string& status, const std::string& message,
                                std::vector<std::pair<std::string, std::string>> headers = {});
  static ScriptedResponse malformed();

  std::vector<RecordedRequest> requests() const;        // generateContent calls
  std::vector<RecordedRequest> token_requests() const;  // token endpoint calls
  std::vector<TokenExchange> token_exchanges() const;

  // The token endpoint verifies JWTs with this key (PEM SubjectPublicKeyInfo).
  void set_token_public_key(const std::string& pem);
  void set_token_expires_in(int seconds) { token_expires_in_ = seconds; }

 private:
  void serve();
  void handle(int fd);
  ScriptedResponse answer(const RecordedRequest& request);
  ScriptedResponse answer_token(const RecordedRequest& request);

  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> token_expires_in_{3600};
  mutable std::mutex mutex_;
  std::deque<ScriptedResponse> script_;
  std::vector<RecordedRequest> requests_;
  std::vector<RecordedRequest> token_requests_;
  std::vector<TokenExchange> exchanges_;
  std::string public_key_pem_;
  std::function<ScriptedResponse(const RecordedRequest&)> handler_;
  int tokens_issued_ = 0;
  std::thread thread_;
};

// An environment made of a map, for the EnvLookup every setting is read through.
inline std::function<std::optional<std::string>(const std::string&)> map_env(
    std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// A fresh directory under $TMPDIR, removed with its files at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::string path_;
};

// An RSA key made at test time (no private key is committed).
struct TestRsaKey {
  std::string private_pem;  // PKCS#8, as Google's key files hold it
  std::string public_pem;
  static TestRsaKey generate();
};

}  // namespace mace::llm::testing

#pragma once
// A fake of Anthropic's Messages API (POST /v1/messages) on 127.0.0.1, for the real Claude
// Code and opencode CLIs (ANTHROPIC_BASE_URL / opencode's provider baseURL). It answers
// each request of the main model with the next scripted turn, as the real API does: a
// plain JSON message, or server-sent events when the request says "stream": true, with
// text or a tool_use block and usage; or an error as the API sends it (429 with
// retry-after and the anthropic-ratelimit-* reset headers, 529 overloaded_error, 401
// authentication_error). Requests for a session title (opencode asks its small model for
// one) are answered apart and take no turn.

#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "fake_vertex_server.h"

namespace mace::llm::testing {

struct AnthropicTurn {
  enum class Kind { text, tool_use, error };
  Kind kind = Kind::text;
  std::string text;
  // tool_use: the first tool the request offers whose name ends with `tool_suffix`
  // (claude names MCP tools mcp__mace__<tool>, opencode mace_<tool>), with this input.
  std::string tool_suffix;
  std::string tool_input_json;
  int status = 0;         // error
  int retry_after_s = 0;  // 429
};

class FakeAnthropicServer {
 public:
  FakeAnthropicServer();
  std::string base_url() const { return http_.base_url(); }

  void push(AnthropicTurn turn);
  static AnthropicTurn text(std::string text);
  static AnthropicTurn tool_use(std::string tool_suffix, std::string input_json);
  static AnthropicTurn error(int status, int retry_after_s = 0);

  // The requests of the main model, in order (title requests left out).
  std::vector<RecordedRequest> message_requests() const;

  // The usage every answer reports: input 11, output 7, cache writes 3, cache reads 5.
  static constexpr int64_t kInput = 11, kOutput = 7, kCacheWrite = 3, kCacheRead = 5;

 private:
  ScriptedResponse answer(const RecordedRequest& request);

  mutable std::mutex mutex_;
  std::deque<AnthropicTurn> turns_;
  std::vector<RecordedRequest> message_requests_;
  int served_ = 0;
  FakeVertexServer http_;  // its HTTP server, answering through answer()
};

}  // namespace mace::llm::testing

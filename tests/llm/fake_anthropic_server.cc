#include "fake_anthropic_server.h"

#include <simdjson.h>

#include "core/json_writer.h"

namespace mace::llm::testing {
namespace {

void write_usage(JsonWriter& w, int64_t output) {
  w.key("usage").begin_object();
  w.field("input_tokens", FakeAnthropicServer::kInput)
      .field("cache_creation_input_tokens", FakeAnthropicServer::kCacheWrite)
      .field("cache_read_input_tokens", FakeAnthropicServer::kCacheRead)
      .field("output_tokens", output);
  w.end_object();
}

std::string event(const std::string& name, const std::string& data) {
  return "event: " + name + "\ndata: " + data + "\n\n";
}

// One message, as JSON or as the stream of events the API sends for it.
ScriptedResponse message(const std::string& model, bool stream, const std::string& text,
                         const std::string& tool_name, const std::string& tool_input,
                         const std::string& id) {
  const bool tool = !tool_name.empty();
  const std::string stop = tool ? "tool_use" : "end_turn";
  ScriptedResponse r;
  if (!stream) {
    JsonWriter w;
    w.begin_object().field("id", id).field("type", "message").field("role", "assistant");
    w.field("model", model).key("content").begin_array().begin_object();
    if (tool)
      w.field("type", "tool_use").field("id", "toolu_" + id).field("name", tool_name).key("input").raw(tool_input);
    else
      w.field("type", "text").field("text", text);
    w.end_object().end_array().field("stop_reason", stop).key("stop_sequence").null();
    write_usage(w, FakeAnthropicServer::kOutput);
    w.end_object();
    r.body = w.take();
    return r;
  }
  r.content_type = "text/event-stream";
  JsonWriter start;
  start.begin_object().field("type", "message_start").key("message").begin_object();
  start.field("id", id).field("type", "message").field("role", "assistant").field("model", model);
  start.key("content").begin_array().end_array().key("stop_reason").null().key("stop_sequence").null();
  write_usage(start, 1);
  start.end_object().end_object();
  r.body += event("message_start", start.take());
  JsonWriter block;
  block.begin_object().field("type", "content_block_start").field("index", 0).key("content_block").begin_object();
  if (tool)
    block.field("type", "tool_use").field("id", "toolu_" + id).field("name", tool_name).key("input").begin_object().end_object();
  else
    block.field("type", "text").field("text", "");
  block.end_object().end_object();
  r.body += event("content_block_start", block.take());
  JsonWriter delta;
  delta.begin_object().field("type", "content_block_delta").field("index", 0).key("delta").begin_object();
  if (tool)
    delta.field("type", "input_json_delta").field("partial_json", tool_input);
  else
    delta.field("type", "text_delta").field("text", text);
  delta.end_object().end_object();
  r.body += event("content_block_delta", delta.take());
  r.body += event("content_block_stop", R"({"type":"content_block_stop","index":0})");
  JsonWriter end;
  end.begin_object().field("type", "message_delta").key("delta").begin_object();
  end.field("stop_reason", stop).key("stop_sequence").null().end_object();
  end.key("usage").begin_object().field("output_tokens", FakeAnthropicServer::kOutput).end_object();
  end.end_object();
  r.body += event("message_delta", end.take());
  r.body += event("message_stop", R"({"type":"message_stop"})");
  return r;
}

// The API's error answers: body and headers as Anthropic documents them.
ScriptedResponse api_error(int status, int retry_after_s) {
  std::string type, text;
  switch (status) {
    case 401: type = "authentication_error"; text = "invalid x-api-key"; break;
    case 429: type = "rate_limit_error";
      text = "Number of request tokens has exceeded your per-minute rate limit"; break;
    case 529: type = "overloaded_error"; text = "Overloaded"; break;
    default: type = "api_error"; text = "Internal server error"; break;
  }
  JsonWriter w;
  w.begin_object().field("type", "error").key("error").begin_object();
  w.field("type", type).field("message", text).end_object();
  w.field("request_id", "req_fake" + std::to_string(status)).end_object();
  ScriptedResponse r;
  r.status = status;
  r.body = w.take();
  r.headers.emplace_back("request-id", "req_fake" + std::to_string(status));
  if (status == 429) {
    r.headers.emplace_back("retry-after", std::to_string(retry_after_s));
    // RFC 3339 reset times; far enough ahead to be a reset, not a past moment.
    r.headers.emplace_back("anthropic-ratelimit-requests-limit", "50");
    r.headers.emplace_back("anthropic-ratelimit-requests-remaining", "0");
    r.headers.emplace_back("anthropic-ratelimit-requests-reset", "2030-01-01T00:00:00Z");
    r.headers.emplace_back("anthropic-ratelimit-tokens-limit", "40000");
    r.headers.emplace_back("anthropic-ratelimit-tokens-remaining", "0");
    r.headers.emplace_back("anthropic-ratelimit-tokens-reset", "2030-01-01T00:00:00Z");
  }
  if (status == 401) r.headers.emplace_back("x-should-retry", "false");
  return r;
}

}  // namespace

FakeAnthropicServer::FakeAnthropicServer() {
  http_.set_handler([this](const RecordedRequest& request) { return answer(request); });
}

void FakeAnthropicServer::push(AnthropicTurn turn) {
  std::lock_guard lock(mutex_);
  turns_.push_back(std::move(turn));
}

AnthropicTurn FakeAnthropicServer::text(std::string text) {
  AnthropicTurn t;
  t.text = std::move(text);
  return t;
}

AnthropicTurn FakeAnthropicServer::tool_use(std::string tool_suffix, std::string input_json) {
  AnthropicTurn t;
  t.kind = AnthropicTurn::Kind::tool_use;
  t.tool_suffix = std::move(tool_suffix);
  t.tool_input_json = std::move(input_json);
  return t;
}

AnthropicTurn FakeAnthropicServer::error(int status, int retry_after_s) {
  AnthropicTurn t;
  t.kind = AnthropicTurn::Kind::error;
  t.status = status;
  t.retry_after_s = retry_after_s;
  return t;
}

std::vector<RecordedRequest> FakeAnthropicServer::message_requests() const {
  std::lock_guard lock(mutex_);
  return message_requests_;
}

ScriptedResponse FakeAnthropicServer::answer(const RecordedRequest& request) {
  if (request.path.rfind("/v1/messages", 0) != 0 || request.method != "POST") {
    ScriptedResponse none;
    none.status = 404;
    none.body = R"({"type":"error","error":{"type":"not_found_error","message":"Not found"}})";
    return none;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  std::string model = "claude-sonnet-4-5";
  bool stream = false;
  std::string system;
  std::vector<std::string> tools;
  if (parser.parse(request.body).get(body) == simdjson::SUCCESS) {
    std::string_view m;
    if (body["model"].get(m) == simdjson::SUCCESS) model = std::string(m);
    bool s = false;
    if (body["stream"].get(s) == simdjson::SUCCESS) stream = s;
    system = simdjson::minify(body["system"]);
    simdjson::dom::array list;
    if (body["tools"].get(list) == simdjson::SUCCESS)
      for (auto t : list) {
        std::string_view name;
        if (t["name"].get(name) == simdjson::SUCCESS) tools.emplace_back(name);
      }
  }
  std::unique_lock lock(mutex_);
  const std::string id = "msg_fake" + std::to_string(++served_);
  // opencode names its session with one call to a small model; it is not the agent's turn.
  if (system.find("title generator") != std::string::npos) {
    lock.unlock();
    return message(model, stream, "MACE run", "", "", id);
  }
  message_requests_.push_back(request);
  if (turns_.empty()) {
    lock.unlock();
    return message(model, stream, "fake Messages API: no scripted turn left", "", "", id);
  }
  AnthropicTurn turn = turns_.front();
  turns_.pop_front();
  lock.unlock();
  if (turn.kind == AnthropicTurn::Kind::error) return api_error(turn.status, turn.retry_after_s);
  if (turn.kind == AnthropicTurn::Kind::tool_use) {
    for (const auto& name : tools)
      if (name.size() >= turn.tool_suffix.size() &&
          name.compare(name.size() - turn.tool_suffix.size(), std::string::npos, turn.tool_suffix) == 0)
        return message(model, stream, "", name, turn.tool_input_json, id);
    std::string offered;
    for (const auto& name : tools) offered += " " + name;
    return message(model, stream, "fake Messages API: no tool ending in " + turn.tool_suffix +
                                      " was offered; offered:" + offered, "", "", id);
  }
  return message(model, stream, turn.text, "", "", id);
}

}  // namespace mace::llm::testing

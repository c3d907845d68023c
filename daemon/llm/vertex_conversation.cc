#include "llm/vertex_conversation.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <simdjson.h>

#include "core/json_writer.h"
#include "llm/http_client.h"
#include "llm/vertex_errors.h"
#include "llm/vertex_json.h"
#include "llm/vertex_schema.h"

namespace mace::llm::vertex {
namespace {

using namespace std::chrono_literals;
using simdjson::dom::element;

// Gemini finish reasons that mean the candidate was withheld rather than finished.
const std::set<std::string, std::less<>> kBlockedFinishReasons = {
    "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"};

// Ends the call with a failed reply; `text` is what the model said before it failed.
struct CallFailure {
  ErrorClass error_class;
  std::string message;
  std::string text = {};
};

struct FunctionTarget {
  const Tool* tool = nullptr;
  std::string method;
};

struct FunctionCall {
  std::string name, args;
};

// What the model answered in one round.
struct Turn {
  std::string text;
  std::vector<FunctionCall> calls;
  std::string content_json;  // the model's turn, verbatim
};

void write_text_content(JsonWriter& w, std::string_view role, std::string_view text) {
  w.begin_object();
  w.field("role", role);
  w.key("parts").begin_array().begin_object().field("text", text).end_object().end_array();
  w.end_object();
}

class Conversation {
 public:
  Conversation(const Request& request, const Endpoint& endpoint, AccessTokenSource& tokens)
      : request_(request), endpoint_(endpoint), tokens_(tokens),
        deadline_(std::chrono::steady_clock::now() + request.timeout) {}

  Reply run() {
    try {
      declare_functions();
      JsonWriter w;
      write_text_content(w, "user", request_.prompt);
      contents_.push_back(w.take());
      for (int round = 0; round < endpoint_.max_tool_rounds; ++round) {
        Turn turn = read_turn(post(request_body()));
        if (turn.calls.empty()) {
          reply_.ok = true;
          reply_.text = std::move(turn.text);
          reply_.error_class = ErrorClass::none;
          return std::move(reply_);
        }
        // The model's turn goes back verbatim: Gemini 2.5 checks the thought signatures in it.
        contents_.push_back(std::move(turn.content_json));
        contents_.push_back(answer(turn.calls));
      }
      throw CallFailure{ErrorClass::unknown, "vertex: no text answer after " +
                                                 std::to_string(endpoint_.max_tool_rounds) +
                                                 " rounds of tool calls"};
    } catch (const CallFailure& failure) {
      reply_.ok = false;
      reply_.error_class = failure.error_class;
      reply_.error = failure.message;
      if (!failure.text.empty()) reply_.text = failure.text;
      return std::move(reply_);
    }
  }

 private:
  // Function declarations, and the way back from a declared name to the tool's method.
  void declare_functions() {
    JsonWriter w;
    w.begin_array();
    for (const Tool& tool : request_.tools) {
      for (const ToolMethod& method : tool.methods) {
        std::string fn = function_name(tool.name, method.name);
        if (auto [it, fresh] = targets_.emplace(fn, FunctionTarget{&tool, method.name}); !fresh) {
          throw CallFailure{ErrorClass::invalid_request,
                            "vertex: tool methods " + it->second.tool->name + "." +
                                it->second.method + " and " + tool.name + "." + method.name +
                                " share the function name '" + fn + "' once cut to 64 characters"};
        }
        // A tool is set up per call here, so its bad schema fails this call as a Reply.
        std::string schema;
        try {
          schema = gemini_schema(method.parameters_schema_json);
        } catch (const SetupError& e) {
          throw CallFailure{ErrorClass::invalid_request, "vertex: tool " + tool.name + "." +
                                                             method.name + " parameters: " + e.what()};
        }
        w.begin_object().field("name", fn);
        // Vertex rejects an empty description.
        w.field("description", method.description.empty() ? std::string(" ") : method.description);
        w.key("parameters").raw(schema);
        w.end_object();
      }
    }
    w.end_array();
    declarations_ = w.take();
  }

  std::string request_body() const {
    JsonWriter w;
    w.begin_object();
    w.key("contents").begin_array();
    for (const auto& c : contents_) w.raw(c);
    w.end_array();
    if (!request_.system.empty()) {
      // The role of a system instruction is ignored; only its parts count.
      w.key("systemInstruction").begin_object();
      w.key("parts").begin_array().begin_object().field("text", request_.system).end_object().end_array();
      w.end_object();
    }
    if (!targets_.empty()) {
      w.key("tools").begin_array().begin_object();
      w.key("functionDeclarations").raw(declarations_);
      w.end_object().end_array();
    }
    if (endpoint_.max_output_tokens > 0)
      w.key("generationConfig").begin_object().field("maxOutputTokens", endpoint_.max_output_tokens).end_object();
    w.end_object();
    return w.take();
  }

  std::string timed_out(const std::string& detail = "") const {
    return "vertex: no answer within " + std::to_string(request_.timeout.count()) + " s" +
           (detail.empty() ? "" : ": " + detail);
  }

  // One round trip; a transport failure or a non-200 answer ends the call.
  std::string post(std::string body) {
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline_ - std::chrono::steady_clock::now());
    if (remaining <= 0ms) throw CallFailure{ErrorClass::timeout, timed_out()};
    TokenError token_error;
    auto token = tokens_.token(token_error);
    if (!token) throw CallFailure{token_error.error_class, token_error.message};

    HttpRequest http;
    http.url = endpoint_.url;
    http.body = std::move(body);
    http.timeout = remaining;
    http.headers.emplace_back("Authorization", "Bearer " + *token);
    if (!endpoint_.quota_project.empty())
      http.headers.emplace_back("x-goog-user-project", endpoint_.quota_project);
    HttpResponse response = http_post(http);

    if (!response.transport_ok()) {
      if (response.timed_out) throw CallFailure{ErrorClass::timeout, timed_out(response.error)};
      throw CallFailure{ErrorClass::server, "vertex: cannot reach " + endpoint_.url + ": " + response.error};
    }
    if (response.status != 200) {
      std::string message;
      ErrorClass c = classify_vertex_error(response.status, response.body,
                                           response.header("retry-after"), message, reply_.retry_after);
      throw CallFailure{c, message};
    }
    return std::move(response.body);
  }

  // Every count usageMetadata carries, each kind apart (they are billed apart).
  // promptTokenCount includes the cached tokens (cachedContentTokenCount), billed at the
  // cached-input rate, so they are taken out of the input; toolUsePromptTokenCount (the
  // results of Google's own tools fed back to the model) is billed as input.
  void add_usage(element root) {
    element usage;
    if (root["usageMetadata"].get(usage)) return;
    const int64_t prompt = int_field(usage, "promptTokenCount");
    const int64_t cached = std::min(int_field(usage, "cachedContentTokenCount"), prompt);
    reply_.usage.input_tokens += prompt - cached + int_field(usage, "toolUsePromptTokenCount");
    reply_.usage.cache_read_tokens += cached;
    reply_.usage.output_tokens += int_field(usage, "candidatesTokenCount");
    reply_.usage.thinking_tokens += int_field(usage, "thoughtsTokenCount");
  }

  // The first candidate, or why there is none.
  element first_candidate(element root, const std::string& body) {
    simdjson::dom::array candidates;
    element candidate;
    if (!root["candidates"].get_array().get(candidates) && candidates.size() > 0 &&
        !candidates.at(0).get(candidate))
      return candidate;
    element feedback;
    std::string block;
    if (!root["promptFeedback"].get(feedback)) block = string_field(feedback, "blockReason");
    if (!block.empty()) {
      std::string why = string_field(feedback, "blockReasonMessage");
      throw CallFailure{ErrorClass::blocked,
                        "vertex: prompt blocked: " + block + (why.empty() ? "" : ": " + why)};
    }
    throw CallFailure{ErrorClass::unknown, "vertex: the reply has no candidates: " + excerpt(body)};
  }

  // Text (thoughts left out) and function calls, in the order of the parts.
  static void read_parts(simdjson::dom::array parts, Turn& turn) {
    for (element part : parts) {
      element fc;
      if (!part["functionCall"].get(fc)) {
        element args;
        turn.calls.push_back({string_field(fc, "name"),
                              fc["args"].get(args) ? std::string("{}") : simdjson::minify(args)});
        continue;
      }
      bool thought = false;
      if (!part["thought"].get_bool().get(thought) && thought) continue;
      std::string_view t;
      if (!part["text"].get_string().get(t)) turn.text += t;
    }
  }

  Turn read_turn(const std::string& body) {
    simdjson::dom::parser parser;
    element root;
    if (auto e = parser.parse(body).get(root); e || !root.is_object()) {
      throw CallFailure{ErrorClass::unknown,
                        "vertex: the reply is not a JSON object (" +
                            std::string(e ? simdjson::error_message(e) : "wrong type") +
                            "): " + excerpt(body)};
    }
    add_usage(root);
    element candidate = first_candidate(root, body);
    std::string finish_reason = string_field(candidate, "finishReason");
    Turn turn;
    element content;
    simdjson::dom::array parts;
    if (!candidate["content"].get(content) && !content["parts"].get_array().get(parts)) {
      read_parts(parts, turn);
      turn.content_json = simdjson::minify(content);
    }
    if (finish_reason == "MAX_TOKENS") {
      throw CallFailure{ErrorClass::output_limit,
                        "vertex: the reply reached the output token limit (finishReason MAX_TOKENS)",
                        turn.text};
    }
    if (kBlockedFinishReasons.count(finish_reason) && turn.calls.empty())
      throw CallFailure{ErrorClass::blocked, "vertex: reply blocked (finishReason " + finish_reason + ")"};
    if (finish_reason == "MALFORMED_FUNCTION_CALL" && turn.calls.empty()) {
      std::string why = string_field(candidate, "finishMessage");
      throw CallFailure{ErrorClass::unknown, "vertex: the model produced a malformed function call" +
                                                 (why.empty() ? std::string() : ": " + why)};
    }
    return turn;
  }

  // A failing tool is the model's problem to work around, never the end of the call.
  ToolCallResult run_tool(const FunctionCall& call) {
    auto it = targets_.find(call.name);
    if (it == targets_.end()) return {false, "unknown function '" + call.name + "'"};
    if (!it->second.tool->call) return {false, "tool " + it->second.tool->name + " cannot be called"};
    try {
      return it->second.tool->call(it->second.method, call.args);
    } catch (const std::exception& e) {
      return {false, std::string("tool error: ") + e.what()};
    } catch (...) {
      return {false, "tool error: unknown exception"};
    }
  }

  // The user turn that carries every call's result back.
  std::string answer(const std::vector<FunctionCall>& calls) {
    JsonWriter w;
    w.begin_object().field("role", "user");
    w.key("parts").begin_array();
    for (const FunctionCall& call : calls) {
      ToolCallResult result = run_tool(call);
      ++reply_.tool_calls;
      w.begin_object().key("functionResponse").begin_object();
      w.field("name", call.name);
      w.key("response").begin_object().field(result.ok ? "result" : "error", result.content).end_object();
      w.end_object().end_object();
    }
    w.end_array().end_object();
    return w.take();
  }

  const Request& request_;
  const Endpoint& endpoint_;
  AccessTokenSource& tokens_;
  const std::chrono::steady_clock::time_point deadline_;
  Reply reply_;
  std::map<std::string, FunctionTarget> targets_;
  std::string declarations_;
  std::vector<std::string> contents_;
};

}  // namespace

Reply converse(const Request& request, const Endpoint& endpoint, AccessTokenSource& tokens) {
  return Conversation(request, endpoint, tokens).run();
}

}  // namespace mace::llm::vertex

// opencode: `opencode run --format json --agent mace MESSAGE`, configured through a file
// named by OPENCODE_CONFIG (the agent with our system prompt, our MCP server, only its
// tools, and permissions that deny the rest rather than ask). It is merged with the site's
// own opencode configuration (~/.config/opencode), where providers and keys live. stdout is one JSON event per line:
//   {"type":"step_start","sessionID":"ses_..","part":{"type":"step-start",..}}
//   {"type":"text","part":{"type":"text","text":".."}}
//   {"type":"tool_use","part":{"type":"tool","tool":"mace_echo_say","state":{..}}}
//   {"type":"step_finish","part":{"type":"step-finish","reason":"stop",
//        "tokens":{"total":26,"input":11,"output":7,"reasoning":0,"cache":{"write":3,"read":5}},
//        "cost":0.00015075}}
//   {"type":"error","error":{"name":"APIError","data":{"message":..,"statusCode":429,
//        "isRetryable":true,"responseHeaders":{"retry-after":"30"}}}}
// (The shapes are those opencode 1.18.33 prints against a fake Messages API.) Each step's
// token kinds are disjoint (total = input + output + reasoning + cache read + cache write)
// and its cost is opencode's own reckoning at its models' list prices; the call's cost is
// the sum over its steps, counted as reported. opencode exits 0 on some failed model calls
// and 1 on others, so the error events decide, not the exit code. The parser also reads `opencode export` session JSON, where the same error
// objects sit in messages[].info.error (CHIA's recorded fixtures are of that form).

#include <simdjson.h>

#include "core/json_writer.h"
#include "llm/cli_backend.h"

namespace mace::llm::cli {
namespace {

using simdjson::dom::element;

// Past this a single argument hits the kernel's limit (MAX_ARG_STRLEN, 128 KiB); opencode
// then gets the message on standard input, which it reads when stdin is not a terminal.
constexpr size_t kMaxArgumentBytes = 100 * 1024;

class OpenCode final : public Vendor {
 public:
  std::string name() const override { return "opencode"; }

  Invocation prepare(const Request& request, const CallContext& ctx) const override {
    JsonWriter w;
    w.begin_object().field("$schema", "https://opencode.ai/config.json");
    w.key("agent").begin_object().key("mace").begin_object().field("mode", "primary");
    w.field("prompt", request.system.empty() ? std::string("You are a helpful assistant.")
                                             : request.system);
    w.end_object().end_object();
    if (ctx.mcp) {
      w.key("mcp").begin_object().key("mace").begin_object().field("type", "local");
      w.key("command").begin_array().value(ctx.mcp->command);
      for (const auto& a : ctx.mcp->args) w.value(a);
      w.end_array().field("enabled", true).end_object().end_object();
    }
    // Only MACE's tools (its MCP server "mace", whose tools opencode names mace_*): the
    // agent touches the checkout through them alone, and nothing stops to ask a question
    // nobody is there to answer. The permissions deny what a tool left on by some other
    // configuration could still do.
    w.key("tools").begin_object().field("*", false).field("mace_*", true).end_object();
    w.key("permission").begin_object().field("edit", "deny").field("bash", "deny");
    w.field("webfetch", "deny").field("external_directory", "deny").end_object();
    w.end_object();
    std::string config = ctx.dir + "/opencode.json";
    write_file(config, w.str());

    Invocation inv;
    inv.env["OPENCODE_CONFIG"] = config;
    // A stray opencode.json in some parent directory must not change the call.
    inv.env["OPENCODE_DISABLE_PROJECT_CONFIG"] = "1";
    inv.args = {"run", "--format", "json", "--agent", "mace"};
    if (!ctx.model.empty()) inv.args.insert(inv.args.end(), {"--model", ctx.model});
    if (request.prompt.size() <= kMaxArgumentBytes)
      inv.args.push_back(request.prompt);
    else
      inv.stdin_text = request.prompt;
    return inv;
  }

  Reply parse(std::string_view out, std::string_view err, int exit_code,
              std::chrono::system_clock::time_point now) const override {
    return parse_opencode_output(out, err, exit_code, now);
  }
};

void add_tokens(Usage& usage, element tokens) {
  usage.input_tokens += json_int(tokens, "input");
  usage.output_tokens += json_int(tokens, "output");
  usage.thinking_tokens += json_int(tokens, "reasoning");
  element cache;
  if (tokens["cache"].get(cache) == simdjson::SUCCESS) {
    usage.cache_read_tokens += json_int(cache, "read");
    usage.cache_write_tokens += json_int(cache, "write");
  }
}

// A step's or message's cost, when it carries one.
void add_cost(Usage& usage, element holder) {
  if (auto cost = json_number(holder, "cost")) {
    usage.cost_usd += *cost;
    usage.cost_source = CostSource::reported;
  }
}

std::optional<std::chrono::seconds> retry_after_header(element data,
                                                       std::chrono::system_clock::time_point now) {
  element headers;
  if (data["responseHeaders"].get(headers) != simdjson::SUCCESS) return std::nullopt;
  std::string_view v;
  if (headers["retry-after-ms"].get(v) == simdjson::SUCCESS) {
    try {
      return std::chrono::seconds(static_cast<int64_t>(std::stod(std::string(v)) / 1000 + 0.999));
    } catch (const std::exception&) {
    }
  }
  if (headers["retry-after"].get(v) == simdjson::SUCCESS) {
    try {
      size_t used = 0;
      double s = std::stod(std::string(v), &used);
      if (used == v.size()) return std::chrono::seconds(static_cast<int64_t>(s + 0.999));
    } catch (const std::exception&) {
    }
    // The HTTP-date form: "Wed, 21 Oct 2015 07:28:00 GMT".
    std::tm tm{};
    std::string text(v);
    if (::strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm)) {
      auto at = std::chrono::system_clock::from_time_t(::timegm(&tm));
      auto wait = std::chrono::duration_cast<std::chrono::seconds>(at - now);
      return wait.count() > 0 ? wait : std::chrono::seconds(0);
    }
  }
  return std::nullopt;
}

// opencode's error objects: {name, data:{message, statusCode, isRetryable, ...}}.
Reply classify_error(element error, std::chrono::system_clock::time_point now) {
  std::string_view name = json_string(error, "name");
  element data;
  bool has_data = error["data"].get(data) == simdjson::SUCCESS;
  std::string_view message = has_data ? json_string(data, "message") : std::string_view();
  int64_t status = has_data ? json_int(data, "statusCode") : 0;
  bool retryable = has_data && json_bool(data, "isRetryable");
  std::string text = std::string(name) + ": " + (message.empty() ? "(no message)" : std::string(message));
  std::string lower = lowered(message);

  if (name == "MessageOutputLengthError") return failure(ErrorClass::output_limit, text);
  // The prompt does not fit the model: sending it again cannot help, so it is the
  // request's fault, not the reply's length.
  if (name == "ContextOverflowError") return failure(ErrorClass::invalid_request, text);
  if (name == "ProviderAuthError" || status == 401 || status == 403)
    return failure(ErrorClass::authentication, text);
  if (status == 402 || contains_any(lower, {"billing", "payment", "credit", "insufficient_quota"}))
    return failure(ErrorClass::billing, text);
  if (status == 429 || contains_any(lower, {"rate limit", "too many requests"})) {
    auto wait = has_data ? retry_after_header(data, now) : std::nullopt;
    if (!wait) wait = parse_reset_time(message, now);
    return failure(ErrorClass::rate_limit, text, wait);
  }
  if (name == "APIError") {
    if (status >= 500 || retryable) return failure(ErrorClass::server, text);
    return failure(ErrorClass::invalid_request, text);
  }
  if (name == "MessageAbortedError") return failure(ErrorClass::unknown, text);
  // UnknownError and the rest carry only a message: "Model not found: x/y".
  return failure(classify_message(message), text);
}

// What opencode printed, read as it goes: the JSON event lines of `opencode run
// --format json` or one session export document.
class OpenCodeTranscript {
 public:
  explicit OpenCodeTranscript(std::chrono::system_clock::time_point now) : now_(now) {}

  void read(std::string_view out) {
    simdjson::dom::element whole;
    const size_t first = out.find_first_not_of(" \t\r\n");
    if (out.find('\n') != std::string_view::npos && first < out.size() && out[first] == '{' &&
        parser_.parse(out.data(), out.size()).get(whole) == simdjson::SUCCESS) {
      consume(whole);
      return;
    }
    size_t start = 0;
    while (start < out.size()) {
      size_t end = out.find('\n', start);
      if (end == std::string_view::npos) end = out.size();
      std::string_view line = out.substr(start, end - start);
      start = end + 1;
      element e;
      if (line.find('{') != std::string_view::npos &&
          parser_.parse(line.data(), line.size()).get(e) == simdjson::SUCCESS &&
          e.type() == simdjson::dom::element_type::OBJECT)
        consume(e);
    }
  }

  Reply reply(std::string_view out, std::string_view err, int exit_code) {
    if (final_text_.empty()) final_text_ = step_text_;
    Reply reply;
    if (error_) {
      reply = std::move(*error_);
    } else if (truncated_) {
      reply = failure(ErrorClass::output_limit, "the reply reached the output token limit");
    } else if (exit_code != 0 || !any_event_) {
      reply = exit_failure(out, err, exit_code);
    } else {
      reply.ok = true;
      reply.text = final_text_;
    }
    reply.usage = usage_;
    reply.tool_calls = tool_calls_;
    if (!reply.ok && !final_text_.empty() && reply.text.empty()) reply.text = final_text_;
    return reply;
  }

 private:
  void consume(element e) {
    element messages;
    if (e["messages"].get(messages) == simdjson::SUCCESS &&
        messages.type() == simdjson::dom::element_type::ARRAY) {
      any_event_ = true;
      for (element msg : messages.get_array()) consume_exported_message(msg);
      return;
    }
    std::string_view type;
    if (e["type"].get(type) != simdjson::SUCCESS) return;
    any_event_ = true;
    consume_event(type, e);
  }

  // An export: the assistant messages carry tokens, cost, text and errors.
  void consume_exported_message(element msg) {
    element info;
    std::string_view role;
    if (msg["info"].get(info) != simdjson::SUCCESS || info["role"].get(role) != simdjson::SUCCESS ||
        role != "assistant")
      return;
    element tokens;
    if (info["tokens"].get(tokens) == simdjson::SUCCESS) add_tokens(usage_, tokens);
    add_cost(usage_, info);
    keep_first_error(info);
    std::string text;
    simdjson::dom::array parts;
    if (msg["parts"].get(parts) == simdjson::SUCCESS) {
      for (element part : parts) {
        std::string_view type, t;
        if (part["type"].get(type) != simdjson::SUCCESS) continue;
        if (type == "text" && part["text"].get(t) == simdjson::SUCCESS) text += t;
        if (type == "tool") ++tool_calls_;
      }
    }
    if (!text.empty()) final_text_ = text;
  }

  void consume_event(std::string_view type, element e) {
    element part;
    const bool has_part = e["part"].get(part) == simdjson::SUCCESS;
    if (type == "step_start") {
      step_text_.clear();
    } else if (type == "text" && has_part) {
      std::string_view t;
      if (part["text"].get(t) == simdjson::SUCCESS) step_text_ += t;
    } else if (type == "tool_use") {
      ++tool_calls_;
    } else if (type == "step_finish" && has_part) {
      element tokens;
      if (part["tokens"].get(tokens) == simdjson::SUCCESS) add_tokens(usage_, tokens);
      add_cost(usage_, part);
      std::string_view reason;
      if (part["reason"].get(reason) == simdjson::SUCCESS && reason == "length") truncated_ = true;
      if (!step_text_.empty()) final_text_ = step_text_;
    } else if (type == "error") {
      keep_first_error(e);
    }
  }

  void keep_first_error(element holder) {
    element err_object;
    if (!error_ && holder["error"].get(err_object) == simdjson::SUCCESS &&
        err_object.type() == simdjson::dom::element_type::OBJECT)
      error_ = classify_error(err_object, now_);
  }

  // opencode ended without a reply or an error object: what it printed says why.
  Reply exit_failure(std::string_view out, std::string_view err, int exit_code) const {
    std::string_view said = tail(err).empty() ? out : err;
    std::string message = tail(said);
    // All of it: opencode's usage text names its sections at the top.
    std::string lower = lowered(said);
    ErrorClass c = classify_message(said);
    // opencode's own usage text, for an option it does not know.
    if (c == ErrorClass::unknown && contains_any(lower, {"positionals:", "options:"}))
      c = ErrorClass::invalid_request;
    if (message.empty()) message = "exited " + std::to_string(exit_code) + " and printed no events";
    return failure(c, message, parse_reset_time(message, now_));
  }

  std::chrono::system_clock::time_point now_;
  simdjson::dom::parser parser_;
  Usage usage_;
  std::string step_text_, final_text_;
  int tool_calls_ = 0;
  bool any_event_ = false;
  bool truncated_ = false;
  std::optional<Reply> error_;
};

}  // namespace

std::unique_ptr<Vendor> make_opencode_vendor() { return std::make_unique<OpenCode>(); }

}  // namespace mace::llm::cli

namespace mace::llm {

Reply parse_opencode_output(std::string_view out, std::string_view err, int exit_code,
                            std::chrono::system_clock::time_point now) {
  cli::OpenCodeTranscript transcript(now);
  transcript.read(out);
  return transcript.reply(out, err, exit_code);
}

}  // namespace mace::llm

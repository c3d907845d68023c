// Claude Code: `claude --print --output-format json`. The prompt goes on standard input
// (no argument-length limit); the reply is one result object on stdout, as Claude Code
// 2.1.332 prints it (checked against the real CLI and a fake Messages API):
//   {"type":"result","subtype":"success","is_error":false,"result":"...","num_turns":2,
//    "total_cost_usd":0.0002,
//    "usage":{"input_tokens":11,"cache_creation_input_tokens":3,"cache_read_input_tokens":5,
//             "output_tokens":7,"output_tokens_details":{"thinking_tokens":0},...},
//    "modelUsage":{"claude-opus-5-5":{"inputTokens":11,...,"costUSD":0.0002}},
//    "api_error_status":null, ...}
// API failures come back in the same object with is_error true, the API's status and
// error type in api_error_status / api_error_type (401 "authentication_error", 429
// "rate_limit_error", 529 "overloaded_error") and a message in `result` ("Invalid API key
// · Fix external API key", "API Error: 529 Overloaded. ...", "Not logged in · Please run
// /login", "You've hit your limit · resets 4pm (Zone)").
//
// Cost: total_cost_usd is the CLI's own reckoning of what the call cost, at Anthropic's
// list prices for the model that answered, cache writes and reads included; it is counted
// as reported. For a model it has no price for, modelUsage[model].costBasis is "unknown"
// (it is "list" otherwise) and the total is a guess: the cost is then left unreported. usage.output_tokens includes thinking (Anthropic bills thinking as output),
// so thinking is taken out of it and recorded apart.

#include <algorithm>

#include <simdjson.h>

#include "llm/cli_backend.h"

namespace mace::llm::cli {
namespace {

// The usage-limit notices claude prints as its "reply". They may come with is_error false,
// so they are recognised by their exact wording at the start of a short result only,
// never by words a real answer could contain.
bool is_limit_notice(std::string_view result) {
  if (result.size() > 400) return false;
  std::string t = lowered(result);
  for (std::string_view start : {"you've hit your limit", "claude ai usage limit reached",
                                 "5-hour limit reached", "weekly limit reached",
                                 "usage limit reached"})
    if (t.rfind(start, 0) == 0) return true;
  return false;
}

// The Messages API's error type, else its HTTP status, as Claude Code reports them.
ErrorClass classify_api_error(std::string_view type, int64_t status) {
  if (type == "authentication_error" || type == "permission_error") return ErrorClass::authentication;
  if (type == "rate_limit_error") return ErrorClass::rate_limit;
  if (type == "billing_error") return ErrorClass::billing;
  if (type == "overloaded_error" || type == "api_error" || type == "timeout_error")
    return ErrorClass::server;
  if (type == "invalid_request_error" || type == "not_found_error" ||
      type == "request_too_large")
    return ErrorClass::invalid_request;
  if (status == 401 || status == 403) return ErrorClass::authentication;
  if (status == 402) return ErrorClass::billing;
  if (status == 429) return ErrorClass::rate_limit;
  if (status >= 500) return ErrorClass::server;
  if (status >= 400) return ErrorClass::invalid_request;
  return ErrorClass::unknown;
}

// The model that did most of the work: modelUsage names each model the call used (Claude
// Code also asks a small model for side tasks), with its cost.
std::string answering_model(simdjson::dom::element result_object) {
  simdjson::dom::object models;
  if (result_object["modelUsage"].get_object().get(models) != simdjson::SUCCESS) return {};
  std::string best;
  double best_cost = -1;
  for (auto [name, entry] : models) {
    double cost = json_double(entry, "costUSD");
    if (cost > best_cost) {
      best = std::string(name);
      best_cost = cost;
    }
  }
  return best;
}

bool guessed_cost(simdjson::dom::element result_object) {
  simdjson::dom::object models;
  if (result_object["modelUsage"].get_object().get(models) != simdjson::SUCCESS) return false;
  for (auto [name, entry] : models)
    if (json_string(entry, "costBasis") == "unknown") return true;
  return false;
}

class Claude final : public Vendor {
 public:
  std::string name() const override { return "claude"; }

  Invocation prepare(const Request& request, const CallContext& ctx) const override {
    Invocation inv;
    // Nobody is there to approve a tool use, and the agent must touch the checkout only
    // through MACE's MCP tools, which enforce MACE's rules. So:
    //  --tools ""               none of Claude Code's own tools (Bash, Edit, Read, ...) is
    //                           mounted at all;
    //  --permission-mode dontAsk  whatever is not allowed below is denied, never asked;
    //  --allowedTools mcp__mace   allows every tool of the one MCP server MACE configures
    //                           ("mace"), and nothing else;
    //  --strict-mcp-config      only that server: none of the user's own.
    // Why not --dangerously-skip-permissions: Claude Code refuses it as root ("cannot be
    // used with root/sudo privileges"), which maced often is, and it would allow every tool.
    inv.args = {"--print", "--output-format", "json", "--tools", "", "--permission-mode",
                "dontAsk", "--strict-mcp-config", "--no-session-persistence"};
    if (!ctx.model.empty()) inv.args.insert(inv.args.end(), {"--model", ctx.model});
    if (!request.system.empty())
      inv.args.insert(inv.args.end(), {"--system-prompt", request.system});
    if (ctx.mcp) {
      std::string path = ctx.dir + "/mcp.json";
      write_file(path, mcp_servers_json(*ctx.mcp));
      inv.args.insert(inv.args.end(), {"--mcp-config", path, "--allowedTools", "mcp__mace"});
    }
    // MACE waits out rate limits itself (REQ-BUD-14) and records every attempt; Claude
    // Code's own retries are invisible to both and, tried here, retry even a bad key for
    // minutes. A site that wants them sets the variable in maced's environment.
    inv.env_defaults["CLAUDE_CODE_MAX_RETRIES"] = "0";
    // No update checks or telemetry from a daemon's calls.
    inv.env_defaults["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1";
    inv.stdin_text = request.prompt;
    return inv;
  }

  Reply parse(std::string_view out, std::string_view err, int exit_code,
              std::chrono::system_clock::time_point now) const override {
    return parse_claude_output(out, err, exit_code, now);
  }
};

}  // namespace

std::unique_ptr<Vendor> make_claude_vendor() { return std::make_unique<Claude>(); }

}  // namespace mace::llm::cli

namespace mace::llm {

Reply parse_claude_output(std::string_view out, std::string_view err, int exit_code,
                          std::chrono::system_clock::time_point now) {
  using namespace cli;
  simdjson::dom::parser parser;
  simdjson::dom::element result_object;
  bool found = false;
  // One object on a line of its own; scan from the end in case anything precedes it.
  size_t end = out.size();
  while (!found && end > 0) {
    size_t start = out.rfind('\n', end - 1);
    start = start == std::string_view::npos ? 0 : start + 1;
    std::string_view line = out.substr(start, end - start);
    end = start == 0 ? 0 : start - 1;
    simdjson::dom::element e;
    std::string_view type;
    if (line.find('{') != std::string_view::npos &&
        parser.parse(line.data(), line.size()).get(e) == simdjson::SUCCESS &&
        e["type"].get(type) == simdjson::SUCCESS && type == "result") {
      result_object = e;
      found = true;
    }
  }
  if (!found) {
    std::string message = tail(err).empty() ? tail(out) : tail(err);
    if (message.empty()) message = "exited " + std::to_string(exit_code) + " with no result";
    ErrorClass c = classify_message(message);
    if (c == ErrorClass::unknown && exit_code == 0)
      message = "printed no result object: " + message;
    return failure(c, message, parse_reset_time(message, now));
  }

  Reply reply;
  std::string_view text = json_string(result_object, "result");
  std::string_view subtype = json_string(result_object, "subtype");
  bool is_error = json_bool(result_object, "is_error");
  simdjson::dom::element usage;
  if (result_object["usage"].get(usage) == simdjson::SUCCESS) {
    reply.usage.input_tokens = json_int(usage, "input_tokens");
    reply.usage.cache_write_tokens = json_int(usage, "cache_creation_input_tokens");
    reply.usage.cache_read_tokens = json_int(usage, "cache_read_input_tokens");
    int64_t output = json_int(usage, "output_tokens");
    int64_t thinking = 0;
    simdjson::dom::element details;
    if (usage["output_tokens_details"].get(details) == simdjson::SUCCESS)
      thinking = std::min(json_int(details, "thinking_tokens"), output);
    reply.usage.output_tokens = output - thinking;
    reply.usage.thinking_tokens = thinking;
  }
  // For a model it has no price for, Claude Code still prints a total (at some default
  // rate) but marks the model's costBasis "unknown": that is a guess, not a cost.
  if (auto cost = json_number(result_object, "total_cost_usd"); cost && !guessed_cost(result_object)) {
    reply.usage.cost_usd = *cost;
    reply.usage.cost_source = CostSource::reported;
  }
  reply.model = answering_model(result_object);

  if (!is_error && subtype == "success" && !is_limit_notice(text)) {
    reply.ok = true;
    reply.text = std::string(text);
    return reply;
  }
  std::string message(text);
  ErrorClass c;
  if (is_limit_notice(text)) {
    c = ErrorClass::rate_limit;
  } else if (subtype == "error_max_turns") {
    c = ErrorClass::unknown;
    message = "stopped at its turn limit";
  } else {
    if (message.empty()) message = subtype.empty() ? std::string("error") : std::string(subtype);
    c = classify_api_error(json_string(result_object, "api_error_type"),
                           json_int(result_object, "api_error_status"));
    // The API sends a low credit balance as a 400 invalid_request_error: only its words
    // tell it from a bad request.
    ErrorClass by_words = classify_message(message);
    if (c == ErrorClass::unknown || by_words == ErrorClass::billing) c = by_words;
  }
  Reply failed = failure(c, message, parse_reset_time(message, now));
  failed.usage = reply.usage;
  failed.model = reply.model;
  return failed;
}

}  // namespace mace::llm

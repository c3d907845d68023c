// Claude Code: `claude --print --output-format json`. The prompt goes on standard input
// (no argument-length limit); the reply is one result object on stdout:
//   {"type":"result","subtype":"success","is_error":false,"result":"...",
//    "num_turns":2,"usage":{"input_tokens":..,"cache_creation_input_tokens":..,
//    "cache_read_input_tokens":..,"output_tokens":..},"total_cost_usd":..}
// API failures come back in the same object with is_error true and the API's message in
// `result` ("API Error: 529 {...overloaded_error...}", "Invalid API key · Please run
// /login", "Credit balance is too low", "You've hit your limit · resets 4pm (Zone)").
//
// Cost: the spec counts claude replies as 0.0 (budgets-and-replay.md), so total_cost_usd
// is not used even when present.

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

class Claude final : public Vendor {
 public:
  std::string name() const override { return "claude"; }

  Invocation prepare(const Request& request, const CallContext& ctx) const override {
    Invocation inv;
    inv.args = {"--print", "--output-format", "json",
                // Nobody is there to approve a tool use, so none of Claude Code's own tools
                // (Bash, Edit, Write, ...) is mounted: it acts on the checkout only through
                // the MCP tools MACE serves, which enforce MACE's rules.
                "--tools", "", "--dangerously-skip-permissions"};
    if (!ctx.model.empty()) inv.args.insert(inv.args.end(), {"--model", ctx.model});
    if (!request.system.empty())
      inv.args.insert(inv.args.end(), {"--system-prompt", request.system});
    if (ctx.mcp) {
      std::string path = ctx.dir + "/mcp.json";
      write_file(path, mcp_servers_json(*ctx.mcp));
      // Only our server: the user's own MCP servers are not the run's tools.
      inv.args.insert(inv.args.end(), {"--mcp-config", path, "--strict-mcp-config"});
    }
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
    reply.usage.input_tokens = json_int(usage, "input_tokens") +
                               json_int(usage, "cache_creation_input_tokens") +
                               json_int(usage, "cache_read_input_tokens");
    reply.usage.output_tokens = json_int(usage, "output_tokens");
  }
  reply.usage.cost_usd = 0.0;

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
    c = classify_message(message);
  }
  Reply failed = failure(c, message, parse_reset_time(message, now));
  failed.usage = reply.usage;
  return failed;
}

}  // namespace mace::llm

// Antigravity: `agy --print PROMPT` prints the model's final answer as plain text (CHIA);
// print mode has no system-prompt flag, so the system instruction is folded into the
// prompt, and reports no usage at all: its calls leave cost_source `unknown` for the
// run's CostAccounting, which counts maced's configured estimate or refuses such runs at
// submit (llm/cost_accounting.h).
//
// agy reads MCP servers from the customization root of its workspace,
// `<cwd>/.agents/mcp_config.json` ({"mcpServers": {name: {command, args, env}}}); the
// call's own directory is its working directory, so each call has its own servers and
// nothing is merged into the user's ~/.gemini.
//
// agy exits 0 on some failures (it prints a sign-in URL and returns 0 when logged out),
// so a few unmistakable phrases count whatever the exit code; the broad keyword families
// are used only on a non-zero exit, where they cannot misread a real answer.

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "llm/cli_backend.h"

namespace mace::llm::cli {
namespace {

// The kernel's limit on one argument is 128 KiB (MAX_ARG_STRLEN).
constexpr size_t kMaxPromptBytes = 120 * 1024;

class Antigravity final : public Vendor {
 public:
  std::string name() const override { return "antigravity"; }

  Invocation prepare(const Request& request, const CallContext& ctx) const override {
    std::string prompt = request.prompt;
    if (!request.system.empty())
      prompt = "[System Instructions]\n" + request.system + "\n\n[User Request]\n" + prompt;
    if (prompt.size() > kMaxPromptBytes)
      throw std::runtime_error("the prompt (" + std::to_string(prompt.size()) +
                               " bytes) is longer than agy --print accepts");
    if (ctx.mcp) {
      std::filesystem::create_directories(ctx.dir + "/.agents");
      write_file(ctx.dir + "/.agents/mcp_config.json", mcp_servers_json(*ctx.mcp));
    }
    Invocation inv;
    inv.args = {"--dangerously-skip-permissions"};
    if (!ctx.model.empty()) inv.args.insert(inv.args.end(), {"--model", ctx.model});
    // agy's own limit fires a little before ours, so it can say so instead of being killed.
    auto seconds = std::max<int64_t>(1, request.timeout.count() - 10);
    inv.args.insert(inv.args.end(), {"--print-timeout", std::to_string(seconds) + "s"});
    inv.args.insert(inv.args.end(), {"--print", prompt});
    return inv;
  }

  Reply parse(std::string_view out, std::string_view err, int exit_code,
              std::chrono::system_clock::time_point now) const override {
    return parse_antigravity_output(out, err, exit_code, now);
  }
};

}  // namespace

std::unique_ptr<Vendor> make_antigravity_vendor() { return std::make_unique<Antigravity>(); }

}  // namespace mace::llm::cli

namespace mace::llm {

Reply parse_antigravity_output(std::string_view out, std::string_view err, int exit_code,
                               std::chrono::system_clock::time_point now) {
  using namespace cli;
  std::string answer = tail(out, out.size());
  // A short stdout can be a notice rather than an answer; a long one is an answer.
  std::string notices = lowered(err) + "\n" + (answer.size() < 400 ? lowered(answer) : "");
  std::string message = tail(err).empty() ? answer : tail(err);

  if (contains_any(notices, {"rate limit", "usage limit", "too many requests",
                             "resource_exhausted", "resource exhausted"}))
    return failure(ErrorClass::rate_limit, message, parse_reset_time(message, now));
  if (contains_any(notices, {"authentication required", "not logged into antigravity",
                             "please sign in", "please visit the url to log in",
                             "authentication timed out", "authentication cancelled"}))
    return failure(ErrorClass::authentication, message);

  if (exit_code == 0) {
    if (answer.empty()) return failure(ErrorClass::unknown, "agy printed no reply");
    Reply reply;
    reply.ok = true;
    reply.text = answer;
    return reply;
  }
  if (message.empty()) message = "agy exited " + std::to_string(exit_code);
  return failure(classify_message(message), message, parse_reset_time(message, now));
}

}  // namespace mace::llm

#pragma once
// The three command-line agent backends of REQ-PLAT-7: claude (Claude Code), opencode and
// antigravity (`agy`). Each call runs the vendor's CLI once, non-interactively, through
// os::run_process_group (own process group, the request's timeout, an explicit
// environment), in a fresh private directory that also holds the call's MCP
// configuration, its standard input and its captured output.
//
// Why files and not pipes for the CLI's output: opencode cuts its stdout at the pipe
// buffer (CHIA found this), and run_process_group merges stdout with stderr, while the
// parsers need stdout alone. A `/bin/sh -c 'exec "$@" <in >out 2>err'` wrapper (argv, no
// quoting) gives the CLI real files.
//
// Tools (REQ-EXEC-7) reach an agent as one MCP server, `mace --socket S mcp --session T`,
// whose session T is opened in CliOptions::sessions for the length of the call.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "llm/llm.h"
#include "llm/setup_error.h"
#include "llm/tool_sessions.h"

namespace mace::llm {

struct CliOptions {
  // How an agent's MCP configuration starts the tool forwarder: this `mace` binary with
  // `--socket maced_socket mcp --session TOKEN`.
  std::string mace_binary = "mace";
  std::string maced_socket;
  // Where calls with tools open their sessions; a call with tools fails without one.
  ToolSessions* sessions = nullptr;
  // The CLI's whole environment (it needs HOME and the vendor's credentials); empty:
  // maced's own. CLAUDECODE is always dropped, since claude refuses to run nested in it.
  std::map<std::string, std::string> environment;
  // Where each call's private directory is made; empty: $TMPDIR, else /tmp.
  std::string temp_root;
  // Between SIGTERM and SIGKILL when a call times out.
  std::chrono::milliseconds kill_grace{5000};
};

// True for "claude", "opencode" and "antigravity".
bool is_cli_backend(const std::string& backend);

// The CLI's executable: the override variable (MACE_CLAUDE_CLI, MACE_OPENCODE_CLI,
// MACE_ANTIGRAVITY_CLI) if set, else `claude`, `opencode` or `agy` searched on `env`'s
// PATH. Throws SetupError when there is none; only stat()s, so it is cheap enough to run
// at submit time.
std::string find_cli(const std::string& backend,
                     const std::function<const char*(const char*)>& env);

// The backend named `backend` for `model` (empty: the CLI's own default model). Throws
// SetupError for a backend that is not a CLI one or whose CLI is missing, e.g.
// "claude: CLI 'claude' not found on PATH; install it or set MACE_CLAUDE_CLI".
std::unique_ptr<Backend> make_cli_backend(const std::string& backend, const std::string& model,
                                          const std::function<const char*(const char*)>& env,
                                          const CliOptions& options);

// ---------------------------------------------------------------------------------------
// The vendors' output parsers, apart so they can be tested on recorded output. Each turns
// what the CLI printed into a Reply: text, tokens, the vendor's cost where it reports one
// (cost_source `reported`; otherwise left for the run's CostAccounting), and
// on failure the error class and, for a rate limit, the vendor's reset time.

Reply parse_claude_output(std::string_view out, std::string_view err, int exit_code,
                          std::chrono::system_clock::time_point now);
// Accepts `opencode run --format json` event lines and `opencode export` session JSON.
Reply parse_opencode_output(std::string_view out, std::string_view err, int exit_code,
                            std::chrono::system_clock::time_point now);
Reply parse_antigravity_output(std::string_view out, std::string_view err, int exit_code,
                               std::chrono::system_clock::time_point now);

// How long until a reset that `text` announces: "resets 4pm (America/Los_Angeles)",
// "usage limit reached|1767225600" (Unix time), "retry in 41.2s", "retry after 30
// seconds". Nothing when the text names no reset.
std::optional<std::chrono::seconds> parse_reset_time(std::string_view text,
                                                     std::chrono::system_clock::time_point now);

// ---------------------------------------------------------------------------------------
// For the vendor files.

namespace cli {

struct McpLaunch {
  std::string command;
  std::vector<std::string> args;
};

// What one call needs from the common part.
struct CallContext {
  std::string dir;                     // private to the call; the CLI's working directory
  std::string model;                   // may be empty
  std::optional<McpLaunch> mcp;        // set when the request has tools
};

// How to run the CLI for one call.
struct Invocation {
  std::vector<std::string> args;              // after the executable
  std::map<std::string, std::string> env;     // added to the CLI's environment
  // Added only where the CLI's environment does not set them already (a site's own
  // choice wins).
  std::map<std::string, std::string> env_defaults;
  std::string stdin_text;
};

class Vendor {
 public:
  virtual ~Vendor() = default;
  virtual std::string name() const = 0;
  // Writes any files the CLI reads (MCP configuration) into ctx.dir.
  virtual Invocation prepare(const Request& request, const CallContext& ctx) const = 0;
  virtual Reply parse(std::string_view out, std::string_view err, int exit_code,
                      std::chrono::system_clock::time_point now) const = 0;
};

std::unique_ptr<Vendor> make_claude_vendor();
std::unique_ptr<Vendor> make_opencode_vendor();
std::unique_ptr<Vendor> make_antigravity_vendor();

// Writes `content` to `path` (mode 0600); throws std::runtime_error on failure.
void write_file(const std::string& path, std::string_view content);
// `{"mcpServers":{"mace":{"command":..,"args":[..],"env":{}}}}`, the shape claude's
// --mcp-config and antigravity's mcp_config.json share.
std::string mcp_servers_json(const McpLaunch& launch);

// Lower-cased copy with ANSI colour sequences removed, for keyword matching.
std::string lowered(std::string_view text);
// `code` (an HTTP status) in `text` as a number of its own, not inside a longer one.
bool has_status_code(std::string_view text, std::string_view code);
bool contains_any(std::string_view text, std::initializer_list<std::string_view> needles);
// Classifies an error message by its wording, for CLIs that give no structured error.
// Checks rate limit, billing, authentication, output limit, invalid request and server
// families in that order; `unknown` when none matches.
ErrorClass classify_message(std::string_view message);
// A member of a JSON object, or a default when it is missing or of another type.
std::string_view json_string(simdjson::dom::element object, std::string_view key);
bool json_bool(simdjson::dom::element object, std::string_view key);
int64_t json_int(simdjson::dom::element object, std::string_view key);  // also from a double
double json_double(simdjson::dom::element object, std::string_view key);  // also from an int
// A number member, or nothing when it is missing, null or not a number (a cost the vendor
// did not report is not a cost of 0).
std::optional<double> json_number(simdjson::dom::element object, std::string_view key);
// A failed Reply: class, message (cut to a readable length), reset time if a rate limit.
Reply failure(ErrorClass c, std::string_view message,
              std::optional<std::chrono::seconds> retry_after = std::nullopt);
// The last `max` bytes of `text`, trimmed of surrounding whitespace.
std::string tail(std::string_view text, std::size_t max = 2000);

}  // namespace cli
}  // namespace mace::llm

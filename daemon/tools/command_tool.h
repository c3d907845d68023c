#pragma once
// Tools the administrator declares in maced's configuration (`tools`), each method a
// program maced runs when a model calls it (REQ-EXEC-7). A run spec names the ones its
// LLM calls get; the submitter never hands maced code, only names.
//
// How a method runs, and what the program sees:
// - its `command` argv exactly, no shell, as the leader of its own process group and
//   session (os::run_process_group), in a fresh private directory that is its
//   working directory and is removed afterwards;
// - the call's arguments, a JSON object as the model sent it, on standard input (a file,
//   so a program may read it any way it likes);
// - an environment of PATH, HOME, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR, USER and LOGNAME from
//   maced's own (unless CommandToolContext::environment replaces them) plus MACE_TOOL_NAME,
//   MACE_TOOL_METHOD and MACE_RUN_ID. Nothing else of maced's environment, its LLM
//   credentials in particular, reaches the program;
// - `timeout_s` of wall-clock time, then SIGTERM and SIGKILL to the whole group; the run's
//   cancel token stops it the same way.
// Its standard output, at most `max_output_bytes` of it, is the result the model reads. A
// non-zero exit, a signal, a timeout or a program that cannot be started is a failed result
// (ok=false) saying which, with the end of its standard error (which goes to a file in
// the private directory, of which the last 4 KiB are read).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "llm/llm.h"
#include "tools/tool_error.h"

namespace mace::os {
class CancelToken;
}

namespace mace::tools {

inline constexpr int64_t kDefaultToolTimeoutS = 60;
inline constexpr int64_t kMaxToolTimeoutS = 86400;
inline constexpr int64_t kDefaultToolOutputBytes = 64 * 1024;
// What one call may put into a prompt; more is a mistake in the configuration.
inline constexpr int64_t kMaxToolOutputBytes = 16 * 1024 * 1024;

struct CommandMethodConfig {
  std::string name;         // [a-z][a-z0-9_]*, unique within its tool
  std::string description;
  // A JSON-schema object ("type": "object"), minified.
  std::string parameters_schema_json = R"({"type":"object","properties":{}})";
  std::vector<std::string> command;  // argv; command[0] an absolute path
  std::chrono::seconds timeout{kDefaultToolTimeoutS};
  std::size_t max_output_bytes = kDefaultToolOutputBytes;
  bool operator==(const CommandMethodConfig&) const = default;
};

struct CommandToolConfig {
  std::string name;  // [a-z][a-z0-9_]*, unique in the configuration
  std::string description;
  std::vector<CommandMethodConfig> methods;
  bool operator==(const CommandToolConfig&) const = default;
};

// What a run gives its tools.
struct CommandToolContext {
  std::string run_id;  // MACE_RUN_ID
  // The run's; cancelling it stops a call in flight. May be null. Must outlive the tools.
  const os::CancelToken* cancel = nullptr;
  // Replaces the variables taken from maced's environment (see above); the MACE_ ones are
  // always set. Empty: maced's.
  std::map<std::string, std::string> environment;
  // Where each call's private directory is made; empty: $TMPDIR, else /tmp.
  std::string temp_root;
  // Between SIGTERM and SIGKILL to the group on timeout or cancel.
  std::chrono::milliseconds kill_grace{2000};
};

// The tool the model sees. Its `call` runs a method as described above; it may be called
// from several threads at once and never throws: every failure is a result with ok=false.
llm::Tool make_command_tool(const CommandToolConfig& config, const CommandToolContext& context);

// A run's tools: those of `configured` that `names` (the run spec's `tools`) selects, in
// the order of `names`. When a name is not configured (maced was restarted with another
// configuration since the run was submitted) it throws ToolError naming it.
std::vector<llm::Tool> select_command_tools(const std::vector<CommandToolConfig>& configured,
                                            const std::vector<std::string>& names,
                                            const CommandToolContext& context);

}  // namespace mace::tools

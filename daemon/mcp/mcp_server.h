#pragma once
// An MCP server over standard input and output: what `mace mcp` runs for a command-line
// agent, so the agent can call the tools of its LLM call (REQ-EXEC-7).
//
// The transport is MCP's stdio one: one JSON-RPC 2.0 message per line, no batches. The
// server handles initialize, notifications/initialized, ping, tools/list and tools/call.
// Each method of each tool becomes one MCP tool named `{tool}_{method}`.
//
// The tools come from a ToolProvider, so the protocol is testable without maced; in
// `mace mcp` the provider forwards to maced's listTools/callTool.

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llm/tool.h"

namespace mace::mcp {

using llm::Tool;
using llm::ToolCallResult;
using llm::ToolMethod;

class ToolProvider {
 public:
  virtual ~ToolProvider() = default;
  // The tools on offer; Tool::call is not used. May throw (maced unreachable, session
  // ended): the client gets a JSON-RPC internal error with the exception's text.
  virtual std::vector<Tool> list() = 0;
  // Runs one method. A failing tool answers ok=false; throwing means the call could not
  // be made at all.
  virtual ToolCallResult call(const std::string& tool, const std::string& method,
                              const std::string& arguments_json) = 0;
};

// The MCP name of a tool method.
std::string mcp_tool_name(const std::string& tool, const std::string& method);

// JSON-RPC 2.0 error codes.
inline constexpr int kJsonRpcParseError = -32700;
inline constexpr int kJsonRpcInvalidRequest = -32600;
inline constexpr int kJsonRpcMethodNotFound = -32601;
inline constexpr int kJsonRpcInvalidParams = -32602;
inline constexpr int kJsonRpcInternalError = -32603;

class McpServer {
 public:
  explicit McpServer(ToolProvider& provider, std::string server_name = "mace",
                     std::string server_version = "0");

  // Answers one line of input: the response to write (without "\n"), or nothing for a
  // notification, a response or a blank line.
  std::optional<std::string> handle_line(std::string_view line);

  // Reads lines from `in` until end of input and writes each answer, flushed, to `out`.
  void serve(std::istream& in, std::ostream& out);

  // The protocol versions this server speaks, newest first. An initialize asking for one
  // of them gets it back; any other request gets the newest.
  static const std::vector<std::string>& protocol_versions();

 private:
  std::string list_tools(const std::string& id_json);
  std::string call_tool(const std::string& id_json, std::string_view params_json);
  // Maps an MCP tool name back to (tool, method), listing the tools if not yet done.
  std::optional<std::pair<std::string, std::string>> resolve(const std::string& name);

  ToolProvider& provider_;
  std::string server_name_;
  std::string server_version_;
  std::vector<Tool> tools_;
  bool listed_ = false;
};

}  // namespace mace::mcp

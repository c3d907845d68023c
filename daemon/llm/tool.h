#pragma once
// A tool an LLM call may use (REQ-EXEC-7): what the backends offer the model, what MCP
// serves to the CLI agents, and what daemon/tools/ implements. Header only, so the MCP
// server (and with it the `mace` client) needs nothing else of the LLM library.

#include <functional>
#include <string>
#include <vector>

namespace mace::llm {

// A tool has a name and methods with JSON-schema parameters (REQ-EXEC-7). For vertex each
// method becomes a function declaration named `{tool}__{tool}_{method}` cut to 64
// characters; for the CLI agents the tools are served over MCP by `mace mcp`.
struct ToolMethod {
  std::string name;
  std::string description;
  std::string parameters_schema_json = R"({"type":"object","properties":{}})";
};

struct ToolCallResult {
  bool ok = true;
  std::string content;  // JSON or text, given back to the model as the function's response
};

struct Tool {
  std::string name;
  std::string description;
  std::vector<ToolMethod> methods;
  // Runs a method with its JSON arguments. A failure is a result with ok=false, given back
  // to the model; it never ends the call.
  std::function<ToolCallResult(const std::string& method, const std::string& arguments_json)>
      call;
};

}  // namespace mace::llm

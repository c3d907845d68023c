// mace mcp --session TOKEN: the MCP server a command-line agent (claude, opencode, agy)
// starts from the MCP configuration maced wrote for one LLM call. It speaks MCP on
// standard input and output and forwards tools/list and tools/call to maced's
// listTools/callTool for that session (REQ-EXEC-7).
//
// Standard output belongs to the protocol: every message for people goes to stderr.

#include <iostream>

#include "commands.h"
#include "escaped_output.h"
#include "exit_codes.h"
#include "maced_connection.h"
#include "maced_refusal.h"
#include "mcp/mcp_server.h"

namespace mace::client {
namespace {

// Blocking calls on the connection's event loop; the MCP loop waits on stdin in between,
// which is fine because nothing else runs on this loop.
class MacedToolProvider final : public mcp::ToolProvider {
 public:
  MacedToolProvider(api::Maced::Client& maced, kj::WaitScope& wait, std::string session)
      : maced_(maced), wait_(wait), session_(std::move(session)) {}

  std::vector<llm::Tool> list() override {
    auto request = maced_.listToolsRequest();
    request.setSession(session_);
    auto response = answered(request.send().wait(wait_));
    std::vector<llm::Tool> tools;
    for (auto t : response.getTools()) {
      llm::Tool tool;
      tool.name = t.getName().cStr();
      tool.description = t.getDescription().cStr();
      for (auto m : t.getMethods()) {
        llm::ToolMethod method;
        method.name = m.getName().cStr();
        method.description = m.getDescription().cStr();
        method.parameters_schema_json = m.getParametersSchemaJson().cStr();
        tool.methods.push_back(std::move(method));
      }
      tools.push_back(std::move(tool));
    }
    return tools;
  }

  llm::ToolCallResult call(const std::string& tool, const std::string& method,
                           const std::string& arguments_json) override {
    auto request = maced_.callToolRequest();
    request.setSession(session_);
    request.setTool(tool);
    request.setMethod(method);
    request.setArgumentsJson(arguments_json);
    auto response = answered(request.send().wait(wait_));
    return {response.getOk(), response.getContent().cStr()};
  }

 private:
  api::Maced::Client& maced_;
  kj::WaitScope& wait_;
  std::string session_;
};

// The MCP server reports a failed request to the agent as a JSON-RPC error carrying the
// exception's text; KJ's own prefix would only confuse the model.
class ReadableErrors final : public mcp::ToolProvider {
 public:
  explicit ReadableErrors(mcp::ToolProvider& inner) : inner_(inner) {}
  std::vector<llm::Tool> list() override {
    return guard([&] { return inner_.list(); });
  }
  llm::ToolCallResult call(const std::string& tool, const std::string& method,
                           const std::string& arguments_json) override {
    return guard([&] { return inner_.call(tool, method, arguments_json); });
  }

 private:
  template <typename Fn>
  auto guard(Fn&& fn) -> decltype(fn()) {
    try {
      return fn();
    } catch (const MacedRefusal& refusal) {
      const std::string text = refusal.field().empty() ? std::string(refusal.what())
                                                       : refusal.field() + ": " + refusal.what();
      std::cerr << "mace mcp: " << text << "\n";
      throw std::runtime_error("maced: " + text);
    } catch (const kj::Exception& e) {
      std::string text = e.getDescription().cStr();
      const std::string prefix = "remote exception: ";
      if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
      std::cerr << "mace mcp: " << text << "\n";
      throw std::runtime_error("maced: " + text);
    }
  }
  mcp::ToolProvider& inner_;
};

}  // namespace

int cmd_mcp(const GlobalOptions& global, const Arguments& args) {
  auto session = args.value("--session");
  if (!session || session->empty() || !args.positional.empty()) {
    std::cerr << "usage: mace mcp --session TOKEN   (started by an LLM agent, not by hand)\n";
    return kExitBadInput;
  }
  leave_standard_output_raw();  // JSON-RPC for the agent, not text for a person
  return with_maced(global.socket_path, [&](api::Maced::Client& maced, kj::AsyncIoContext& io) {
    MacedToolProvider forward(maced, io.waitScope, *session);
    ReadableErrors provider(forward);
    mcp::McpServer server(provider, "mace", MACE_VERSION);
    server.serve(std::cin, std::cout);
    return kExitOk;
  });
}

}  // namespace mace::client

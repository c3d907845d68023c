// listTools and callTool: how `mace mcp`, started by a command-line agent, reaches the
// tools of the LLM call that started the agent (REQ-EXEC-7).
//
// A tool may take long (a build, a simulation), and this thread runs every client's
// event loop, so a call runs on a thread of its own and its answer comes back through a
// cross-thread fulfiller. The session's tool list is held (shared) by that thread, so a
// session closed meanwhile does not pull the tool out from under it.
//
// A connection that used a session is busy until the session closes (ConnectionActivity):
// the agent may think for longer than the idle timeout between two tool calls, and its
// forwarder keeps one connection for the whole call.

#include <unistd.h>

#include <memory>
#include <string>
#include <thread>

#include <kj/async.h>

#include "rpc/conversions.h"
#include "rpc/maced_server.h"
#include "capnp_text.h"

namespace mace::rpc {
namespace {

// Sessions belong to the agents maced starts, which run as maced's user; anyone else who
// can reach the socket has no business with them, even holding a token.
bool may_use_tools(uint32_t peer_uid) {
  return peer_uid == 0 || peer_uid == static_cast<uint32_t>(::getuid());
}

}  // namespace

kj::Promise<void> MacedServer::listTools(ListToolsContext context) {
  if (!may_use_tools(caller_.uid)) return refuse(context, {api::ErrorKind::NOT_PERMITTED, "session", "tool sessions are maced's own"});
  std::string session = text(context.getParams().getSession());
  auto tools = tool_sessions_.find(session);
  if (!tools) return refuse(context, {api::ErrorKind::NOT_FOUND, "session", "no such tool session (unknown or ended)"});
  activity_->serves_session(session);
  auto list = context.getResults().initTools(static_cast<unsigned>(tools->size()));
  for (size_t i = 0; i < tools->size(); ++i) {
    const llm::Tool& tool = (*tools)[i];
    auto out = list[static_cast<unsigned>(i)];
    out.setName(tool.name);
    out.setDescription(tool.description);
    auto methods = out.initMethods(static_cast<unsigned>(tool.methods.size()));
    for (size_t j = 0; j < tool.methods.size(); ++j) {
      auto m = methods[static_cast<unsigned>(j)];
      m.setName(tool.methods[j].name);
      m.setDescription(tool.methods[j].description);
      m.setParametersSchemaJson(tool.methods[j].parameters_schema_json);
    }
  }
  return kj::READY_NOW;
}

kj::Promise<void> MacedServer::callTool(CallToolContext context) {
  if (!may_use_tools(caller_.uid)) return refuse(context, {api::ErrorKind::NOT_PERMITTED, "session", "tool sessions are maced's own"});
  auto params = context.getParams();
  std::string session = text(params.getSession());
  auto tools = tool_sessions_.find(session);
  if (!tools) return refuse(context, {api::ErrorKind::NOT_FOUND, "session", "no such tool session (unknown or ended)"});
  activity_->serves_session(session);
  std::string tool_name = text(params.getTool());
  std::string method = text(params.getMethod());
  const llm::Tool* tool = nullptr;
  for (const auto& t : *tools)
    if (t.name == tool_name) tool = &t;
  if (!tool) return refuse(context, {api::ErrorKind::NOT_FOUND, "tool", "the session has no tool named \"" + tool_name + "\""});
  bool known_method = false;
  for (const auto& m : tool->methods) known_method = known_method || m.name == method;
  if (!known_method)
    return refuse(context, {api::ErrorKind::NOT_FOUND, "method", "tool \"" + tool_name + "\" has no method \"" + method + "\""});
  if (!tool->call) {
    auto results = context.getResults();
    results.setOk(false);
    results.setContent("tool \"" + tool_name + "\" cannot be called");
    return kj::READY_NOW;
  }

  // The result is shared and the promise is void: g++ 12 warns, wrongly, about a value
  // carried inside kj's cross-thread promise.
  auto result = std::make_shared<llm::ToolCallResult>();
  auto paf = kj::newPromiseAndCrossThreadFulfiller<void>();
  std::thread([tools, tool, method, result, arguments = text(params.getArgumentsJson()),
               // Held by a shared_ptr: std::thread wants a noexcept destructor, and kj::Own's
               // is not declared so.
               fulfiller = std::make_shared<kj::Own<kj::CrossThreadPromiseFulfiller<void>>>(
                   kj::mv(paf.fulfiller))]() mutable {
    try {
      *result = tool->call(method, arguments.empty() ? std::string("{}") : arguments);
    } catch (const std::exception& e) {
      // A tool that throws has failed; the model is told, the call goes on.
      result->ok = false;
      result->content = std::string("tool failed: ") + e.what();
    } catch (...) {
      result->ok = false;
      result->content = "tool failed";
    }
    (*fulfiller)->fulfill();
  }).detach();
  return paf.promise.then([context, result]() mutable {
    auto results = context.getResults();
    results.setOk(result->ok);
    results.setContent(result->content);
  });
}

}  // namespace mace::rpc

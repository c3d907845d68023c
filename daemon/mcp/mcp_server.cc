#include "mcp/mcp_server.h"

#include <istream>
#include <ostream>
#include <stdexcept>

#include <simdjson.h>

#include "core/json_writer.h"

namespace mace::mcp {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

std::string error_response(const std::string& id_json, int code, std::string_view message) {
  JsonWriter w;
  w.begin_object().field("jsonrpc", "2.0").key("id").raw(id_json);
  w.key("error").begin_object().field("code", code).field("message", message).end_object();
  w.end_object();
  return w.take();
}

std::string result_response(const std::string& id_json, std::string_view result_json) {
  JsonWriter w;
  w.begin_object().field("jsonrpc", "2.0").key("id").raw(id_json).key("result").raw(result_json);
  w.end_object();
  return w.take();
}

// A tool's schema is written by whoever made the tool; one that is not a JSON object
// would make the whole tools/list unreadable, so it is replaced by an empty one.
std::string checked_schema(const std::string& schema) {
  simdjson::dom::parser parser;
  element e;
  if (parser.parse(schema).get(e) == simdjson::SUCCESS && e.type() == element_type::OBJECT)
    return simdjson::minify(e);
  return R"({"type":"object","properties":{}})";
}

}  // namespace

std::string mcp_tool_name(const std::string& tool, const std::string& method) {
  return tool + "_" + method;
}

const std::vector<std::string>& McpServer::protocol_versions() {
  static const std::vector<std::string> versions = {"2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}

McpServer::McpServer(ToolProvider& provider, std::string server_name, std::string server_version)
    : provider_(provider),
      server_name_(std::move(server_name)),
      server_version_(std::move(server_version)) {}

std::optional<std::string> McpServer::handle_line(std::string_view line) {
  if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return std::nullopt;
  simdjson::dom::parser parser;
  element message;
  if (parser.parse(line.data(), line.size()).get(message) != simdjson::SUCCESS)
    return error_response("null", kJsonRpcParseError, "Parse error");
  if (message.type() != element_type::OBJECT)
    return error_response("null", kJsonRpcInvalidRequest, "Invalid Request: not an object");

  element id_element;
  bool has_id = message["id"].get(id_element) == simdjson::SUCCESS;
  std::string id_json = "null";
  if (has_id) {
    auto t = id_element.type();
    if (t != element_type::STRING && t != element_type::INT64 && t != element_type::UINT64)
      return error_response("null", kJsonRpcInvalidRequest,
                            "Invalid Request: id must be a string or an integer");
    id_json = simdjson::minify(id_element);
  }
  std::string_view version;
  if (message["jsonrpc"].get(version) != simdjson::SUCCESS || version != "2.0")
    return error_response(id_json, kJsonRpcInvalidRequest,
                          "Invalid Request: jsonrpc must be \"2.0\"");
  std::string_view method;
  if (message["method"].get(method) != simdjson::SUCCESS) {
    // A response to a request of ours; this server sends none, so there is nothing to match.
    if (message["result"].error() == simdjson::SUCCESS ||
        message["error"].error() == simdjson::SUCCESS)
      return std::nullopt;
    return error_response(id_json, kJsonRpcInvalidRequest, "Invalid Request: no method");
  }
  // Notifications (initialized, cancelled, ...) never get an answer, known or not.
  if (!has_id) return std::nullopt;

  element params;
  bool has_params = message["params"].get(params) == simdjson::SUCCESS;
  if (has_params && params.type() != element_type::OBJECT)
    return error_response(id_json, kJsonRpcInvalidParams, "Invalid params: not an object");

  try {
    if (method == "initialize") {
      std::string requested;
      std::string_view asked;
      if (has_params && params["protocolVersion"].get(asked) == simdjson::SUCCESS)
        requested = asked;
      std::string chosen = protocol_versions().front();
      for (const auto& v : protocol_versions())
        if (v == requested) chosen = v;
      JsonWriter w;
      w.begin_object().field("protocolVersion", chosen);
      w.key("capabilities").begin_object().key("tools").begin_object();
      w.field("listChanged", false).end_object().end_object();
      w.key("serverInfo").begin_object().field("name", server_name_);
      w.field("version", server_version_).end_object();
      w.end_object();
      return result_response(id_json, w.str());
    }
    if (method == "ping") return result_response(id_json, "{}");
    if (method == "tools/list") return list_tools(id_json);
    if (method == "tools/call")
      return call_tool(id_json, has_params ? simdjson::minify(params) : std::string("{}"));
  } catch (const std::exception& e) {
    return error_response(id_json, kJsonRpcInternalError, e.what());
  }
  return error_response(id_json, kJsonRpcMethodNotFound,
                        "Method not found: " + std::string(method));
}

std::string McpServer::list_tools(const std::string& id_json) {
  tools_ = provider_.list();
  listed_ = true;
  JsonWriter w;
  w.begin_object().key("tools").begin_array();
  for (const Tool& tool : tools_) {
    for (const ToolMethod& m : tool.methods) {
      w.begin_object().field("name", mcp_tool_name(tool.name, m.name));
      std::string description = m.description;
      // The agent sees only the method's line, so it also gets what the tool is for.
      if (!tool.description.empty())
        description = description.empty() ? tool.description
                                           : description + " (" + tool.description + ")";
      w.field("description", description);
      w.key("inputSchema").raw(checked_schema(m.parameters_schema_json));
      w.end_object();
    }
  }
  w.end_array().end_object();
  return result_response(id_json, w.str());
}

std::optional<std::pair<std::string, std::string>> McpServer::resolve(const std::string& name) {
  if (!listed_) {
    tools_ = provider_.list();
    listed_ = true;
  }
  for (const Tool& tool : tools_)
    for (const ToolMethod& m : tool.methods)
      if (mcp_tool_name(tool.name, m.name) == name) return std::make_pair(tool.name, m.name);
  return std::nullopt;
}

std::string McpServer::call_tool(const std::string& id_json, std::string_view params_json) {
  simdjson::dom::parser parser;
  element params = parser.parse(params_json.data(), params_json.size());
  std::string_view name;
  if (params["name"].get(name) != simdjson::SUCCESS)
    return error_response(id_json, kJsonRpcInvalidParams, "Invalid params: name is required");
  std::string arguments = "{}";
  element args;
  if (params["arguments"].get(args) == simdjson::SUCCESS) {
    if (args.type() != element_type::OBJECT)
      return error_response(id_json, kJsonRpcInvalidParams,
                            "Invalid params: arguments must be an object");
    arguments = simdjson::minify(args);
  }
  auto target = resolve(std::string(name));
  if (!target)
    return error_response(id_json, kJsonRpcInvalidParams, "Unknown tool: " + std::string(name));
  ToolCallResult result = provider_.call(target->first, target->second, arguments);
  JsonWriter w;
  w.begin_object().key("content").begin_array();
  w.begin_object().field("type", "text").field("text", result.content).end_object();
  w.end_array().field("isError", !result.ok).end_object();
  return result_response(id_json, w.str());
}

void McpServer::serve(std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    if (auto answer = handle_line(line)) {
      out << *answer << '\n';
      out.flush();
    }
  }
}

}  // namespace mace::mcp

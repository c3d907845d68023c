// REQ-EXEC-7: the MCP server `mace mcp` runs for a CLI agent, against scripted JSON-RPC
// sessions, with the tools from an in-memory provider.

#include <gtest/gtest.h>

#include <simdjson.h>

#include <sstream>
#include <stdexcept>

#include "mcp/mcp_server.h"

namespace mace::mcp {
namespace {

class FakeProvider : public ToolProvider {
 public:
  std::vector<Tool> list() override {
    ++lists;
    if (fail) throw std::runtime_error("maced: session: no such tool session");
    Tool echo;
    echo.name = "echo";
    echo.description = "echoes";
    echo.methods.push_back({"say", "repeats its text",
                            R"({"type":"object","properties":{"text":{"type":"string"}}})"});
    echo.methods.push_back({"fail", "always fails", "not json"});
    return {echo};
  }
  ToolCallResult call(const std::string& tool, const std::string& method,
                      const std::string& args) override {
    calls.push_back(tool + "." + method + " " + args);
    if (method == "fail") return {false, "it failed"};
    return {true, "said " + args};
  }
  int lists = 0;
  bool fail = false;
  std::vector<std::string> calls;
};

// The answer to one line, parsed; the test fails if there is none.
struct Answer {
  simdjson::dom::parser parser;
  simdjson::dom::element json;
};

std::unique_ptr<Answer> ask(McpServer& server, const std::string& line) {
  auto out = server.handle_line(line);
  if (!out) {
    ADD_FAILURE() << "no answer to " << line;
    return nullptr;
  }
  auto a = std::make_unique<Answer>();
  a->json = a->parser.parse(*out);
  std::string_view version;
  EXPECT_EQ(a->json["jsonrpc"].get(version), simdjson::SUCCESS);
  EXPECT_EQ(version, "2.0");
  return a;
}

int64_t error_code(const Answer& a) {
  int64_t code = 0;
  EXPECT_EQ(a.json["error"]["code"].get(code), simdjson::SUCCESS) << simdjson::minify(a.json);
  return code;
}

TEST(McpServer, InitializeListAndCall) {
  FakeProvider provider;
  McpServer server(provider, "mace", "9.9");
  auto init = ask(server, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
  ASSERT_TRUE(init);
  EXPECT_EQ(std::string_view(init->json["result"]["protocolVersion"]), "2025-03-26");
  EXPECT_EQ(simdjson::dom::element(init->json["result"]["capabilities"]["tools"]).type(), simdjson::dom::element_type::OBJECT);
  EXPECT_EQ(std::string_view(init->json["result"]["serverInfo"]["name"]), "mace");
  EXPECT_EQ(int64_t(init->json["id"]), 1);

  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));

  auto list = ask(server, R"({"jsonrpc":"2.0","id":"two","method":"tools/list","params":{}})");
  ASSERT_TRUE(list);
  EXPECT_EQ(std::string_view(list->json["id"]), "two");
  simdjson::dom::array tools = list->json["result"]["tools"];
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(std::string_view(tools.at(0)["name"]), "echo_say");
  EXPECT_EQ(std::string_view(tools.at(0)["inputSchema"]["properties"]["text"]["type"]), "string");
  // A schema that is not JSON is replaced, not passed on to break the whole list.
  EXPECT_EQ(std::string_view(tools.at(1)["name"]), "echo_fail");
  EXPECT_EQ(std::string_view(tools.at(1)["inputSchema"]["type"]), "object");

  auto call = ask(server, R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo_say","arguments":{"text":"hi"}}})");
  ASSERT_TRUE(call);
  EXPECT_EQ(std::string_view(call->json["result"]["content"].at(0)["type"]), "text");
  EXPECT_EQ(std::string_view(call->json["result"]["content"].at(0)["text"]), R"(said {"text":"hi"})");
  EXPECT_FALSE(bool(call->json["result"]["isError"]));
  ASSERT_EQ(provider.calls.size(), 1u);
  EXPECT_EQ(provider.calls[0], R"(echo.say {"text":"hi"})");

  auto failed = ask(server, R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo_fail"}})");
  ASSERT_TRUE(failed);
  EXPECT_TRUE(bool(failed->json["result"]["isError"]));
  EXPECT_EQ(std::string_view(failed->json["result"]["content"].at(0)["text"]), "it failed");
  EXPECT_EQ(provider.calls.back(), "echo.fail {}");

  auto ping = ask(server, R"({"jsonrpc":"2.0","id":5,"method":"ping"})");
  ASSERT_TRUE(ping);
  EXPECT_EQ(simdjson::dom::element(ping->json["result"]).type(), simdjson::dom::element_type::OBJECT);
}

TEST(McpServer, UnsupportedProtocolVersionGetsTheNewest) {
  FakeProvider provider;
  McpServer server(provider);
  auto init = ask(server, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}})");
  ASSERT_TRUE(init);
  EXPECT_EQ(std::string_view(init->json["result"]["protocolVersion"]),
            McpServer::protocol_versions().front());
}

TEST(McpServer, MalformedLineIsAParseError) {
  FakeProvider provider;
  McpServer server(provider);
  auto a = ask(server, R"({"jsonrpc":"2.0","id":1,"method":)");
  ASSERT_TRUE(a);
  EXPECT_EQ(error_code(*a), kJsonRpcParseError);
  EXPECT_EQ(simdjson::dom::element(a->json["id"]).type(), simdjson::dom::element_type::NULL_VALUE);
  EXPECT_FALSE(server.handle_line("   "));
}

TEST(McpServer, InvalidRequests) {
  FakeProvider provider;
  McpServer server(provider);
  auto batch = ask(server, R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  ASSERT_TRUE(batch);
  EXPECT_EQ(error_code(*batch), kJsonRpcInvalidRequest);
  auto version = ask(server, R"({"jsonrpc":"1.0","id":1,"method":"ping"})");
  ASSERT_TRUE(version);
  EXPECT_EQ(error_code(*version), kJsonRpcInvalidRequest);
  auto bad_id = ask(server, R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
  ASSERT_TRUE(bad_id);
  EXPECT_EQ(error_code(*bad_id), kJsonRpcInvalidRequest);
  auto params = ask(server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]})");
  ASSERT_TRUE(params);
  EXPECT_EQ(error_code(*params), kJsonRpcInvalidParams);
  auto no_name = ask(server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})");
  ASSERT_TRUE(no_name);
  EXPECT_EQ(error_code(*no_name), kJsonRpcInvalidParams);
  auto args = ask(server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_say","arguments":"x"}})");
  ASSERT_TRUE(args);
  EXPECT_EQ(error_code(*args), kJsonRpcInvalidParams);
  // A response from the client is not answered.
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","id":9,"result":{}})"));
  EXPECT_TRUE(provider.calls.empty());
}

TEST(McpServer, UnknownMethodAndUnknownNotification) {
  FakeProvider provider;
  McpServer server(provider);
  auto a = ask(server, R"({"jsonrpc":"2.0","id":7,"method":"resources/list"})");
  ASSERT_TRUE(a);
  EXPECT_EQ(error_code(*a), kJsonRpcMethodNotFound);
  EXPECT_EQ(int64_t(a->json["id"]), 7);
  EXPECT_FALSE(server.handle_line(R"({"jsonrpc":"2.0","method":"notifications/whatever"})"));
}

TEST(McpServer, UnknownTool) {
  FakeProvider provider;
  McpServer server(provider);
  // Called before any tools/list: the server lists the tools itself to resolve the name.
  auto a = ask(server, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_shout","arguments":{}}})");
  ASSERT_TRUE(a);
  EXPECT_EQ(error_code(*a), kJsonRpcInvalidParams);
  EXPECT_NE(std::string_view(a->json["error"]["message"]).find("echo_shout"), std::string_view::npos);
  EXPECT_EQ(provider.lists, 1);
  EXPECT_TRUE(provider.calls.empty());
}

TEST(McpServer, ProviderFailureIsAnInternalError) {
  FakeProvider provider;
  provider.fail = true;
  McpServer server(provider);
  auto a = ask(server, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  ASSERT_TRUE(a);
  EXPECT_EQ(error_code(*a), kJsonRpcInternalError);
  EXPECT_NE(std::string_view(a->json["error"]["message"]).find("no such tool session"),
            std::string_view::npos);
}

TEST(McpServer, ServesAStream) {
  FakeProvider provider;
  McpServer server(provider);
  std::istringstream in(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      "garbage\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo_say","arguments":{"a":1}}})"
      "\n");
  std::ostringstream out;
  server.serve(in, out);
  std::istringstream lines(out.str());
  std::vector<std::string> answers;
  for (std::string l; std::getline(lines, l);) answers.push_back(l);
  ASSERT_EQ(answers.size(), 3u);
  EXPECT_NE(answers[0].find("\"protocolVersion\":\"2025-06-18\""), std::string::npos);
  EXPECT_NE(answers[1].find("-32700"), std::string::npos);
  EXPECT_NE(answers[2].find(R"(said {\"a\":1})"), std::string::npos);
}

}  // namespace
}  // namespace mace::mcp

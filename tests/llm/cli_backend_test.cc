// The CLI backends end to end (REQ-PLAT-7), against scripted stand-ins for claude,
// opencode and agy (tests/llm/standins/) that print what the real CLIs print. With tools
// (REQ-EXEC-7) the whole chain runs: backend -> stand-in -> the MCP server its
// configuration names (the real `mace mcp`) -> maced's listTools/callTool (a real
// MacedServer in this process) -> the tool.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include <capnp/rpc-twoparty.h>
#include <kj/async-io.h>

#include "llm/cli_backend.h"
#include "os/environment.h"
#include "os/process_group.h"
#include "rpc/maced_server.h"
#include "service/run_service.h"
#include "setup_error_message.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/maced_instance.h"

namespace mace::llm {
namespace {

using ::testing::HasSubstr;

std::string source_root() {
  const char* root = std::getenv("MACE_SOURCE_ROOT");
  return root ? root : ".";
}

std::string standin(const std::string& executable) {
  return source_root() + "/tests/llm/standins/" + executable;
}

bool have_jq() { return std::system("command -v jq >/dev/null 2>&1") == 0; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class ErrorsToStderr : public kj::TaskSet::ErrorHandler {
 public:
  void taskFailed(kj::Exception&& e) override {
    if (e.getType() != kj::Exception::Type::DISCONNECTED)
      std::cerr << "in-process maced: " << e.getDescription().cStr() << "\n";
  }
};

kj::Promise<void> accept_loop(kj::ConnectionReceiver& receiver, service::RunService& service,
                              ToolSessions& sessions, kj::TaskSet& tasks) {
  return receiver.accept().then([&](kj::Own<kj::AsyncIoStream>&& stream) {
    auto server = kj::heap<capnp::TwoPartyServer>(
        kj::heap<rpc::MacedServer>(service, service::Caller{static_cast<uint32_t>(::getuid()), true},
                                   sessions, std::make_shared<rpc::ConnectionActivity>(sessions)));
    auto served = server->accept(*stream);
    tasks.add(served.attach(kj::mv(server)).attach(kj::mv(stream)));
    return accept_loop(receiver, service, sessions, tasks);
  });
}

// maced's RPC edge on a socket, served by a thread of this process, so the test holds the
// ToolSessions that the forwarder reaches.
class InProcessMaced {
 public:
  InProcessMaced(std::string socket, service::RunService& service, ToolSessions& sessions) {
    using Stop = std::shared_ptr<kj::Own<kj::CrossThreadPromiseFulfiller<void>>>;
    std::promise<Stop> ready;
    thread_ = std::thread([&, socket] {
      auto io = kj::setupAsyncIo();
      auto stop = kj::newPromiseAndCrossThreadFulfiller<void>();
      auto listener = io.provider->getNetwork()
                          .parseAddress("unix:" + socket)
                          .wait(io.waitScope)
                          ->listen();
      ErrorsToStderr errors;
      kj::TaskSet tasks(errors);
      tasks.add(accept_loop(*listener, service, sessions, tasks));
      ready.set_value(std::make_shared<kj::Own<kj::CrossThreadPromiseFulfiller<void>>>(
          kj::mv(stop.fulfiller)));
      stop.promise.wait(io.waitScope);
    });
    stop_ = ready.get_future().get();
  }
  ~InProcessMaced() {
    (*stop_)->fulfill();
    thread_.join();
  }

 private:
  std::thread thread_;
  std::shared_ptr<kj::Own<kj::CrossThreadPromiseFulfiller<void>>> stop_;
};

class CliBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_jq()) GTEST_SKIP() << "the stand-ins need jq";
    store_ = store::Store::open(dir_.file("mace.db"));
    service_ = std::make_unique<service::RunService>(*store_);
    socket_ = dir_.file("maced.sock");
    maced_ = std::make_unique<InProcessMaced>(socket_, *service_, sessions_);
  }

  CliOptions options(const std::string& scenario) {
    CliOptions o;
    o.mace_binary = testing::mace_binary();
    o.maced_socket = socket_;
    o.sessions = &sessions_;
    o.environment = os::inherited_environment();
    o.environment["MACE_STANDIN_SCENARIO"] = scenario;
    o.environment["MACE_STANDIN_RECORD"] = record();
    o.temp_root = dir_.path();
    o.kill_grace = std::chrono::milliseconds(500);
    return o;
  }

  std::unique_ptr<Backend> backend(const std::string& name, const std::string& scenario,
                                   const std::string& model = "test-model") {
    std::map<std::string, std::string> vars = {
        {"MACE_CLAUDE_CLI", standin("claude")},
        {"MACE_OPENCODE_CLI", standin("opencode")},
        {"MACE_ANTIGRAVITY_CLI", standin("agy")}};
    auto b = make_cli_backend(
        name, model,
        [&](const char* var) -> const char* {
          auto it = vars.find(var);
          return it == vars.end() ? std::getenv(var) : it->second.c_str();
        },
        options(scenario));
    EXPECT_TRUE(b);
    return b;
  }

  Tool echo_tool() {
    Tool t;
    t.name = "echo";
    t.description = "repeats what it is given";
    t.methods.push_back({"say", "repeats its text",
                         R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})"});
    t.call = [this](const std::string& method, const std::string& args) {
      ++tool_calls_;
      return ToolCallResult{true, "echo " + method + ": " + args};
    };
    return t;
  }

  std::string record() const { return dir_.file("record.txt"); }

  testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<service::RunService> service_;
  ToolSessions sessions_;
  std::string socket_;
  std::unique_ptr<InProcessMaced> maced_;
  std::atomic<int> tool_calls_{0};
};

Request simple_request() {
  Request r;
  r.phase = LlmPhase::planning;
  r.system = "You plan OpenPiton work.";
  r.prompt = "Reply with PONG";
  r.timeout = std::chrono::seconds(60);
  return r;
}

TEST(FindCli, MissingCliIsNamedWithItsOverride) {
  auto none = [](const char* var) -> const char* {
    return std::string(var) == "PATH" ? "/nonexistent-dir" : nullptr;
  };
  auto backend_error = [&](const char* backend) {
    return setup_error_of([&] { make_cli_backend(backend, "", none, {}); });
  };
  EXPECT_EQ(setup_error_of([&] { find_cli("claude", none); }),
            "claude: CLI 'claude' not found on PATH; install it or set MACE_CLAUDE_CLI");
  EXPECT_EQ(backend_error("antigravity"),
            "antigravity: CLI 'agy' not found on PATH; install it or set MACE_ANTIGRAVITY_CLI");
  EXPECT_THAT(backend_error("opencode"), HasSubstr("MACE_OPENCODE_CLI"));
  EXPECT_THROW(make_cli_backend("vertex", "", none, {}), SetupError);
  EXPECT_FALSE(is_cli_backend("vertex"));
  EXPECT_TRUE(is_cli_backend("antigravity"));
}

TEST(FindCli, OverrideAndPath) {
  testing::TempDir dir;
  dir.write("claude", "#!/bin/sh\n");
  auto with_path = [&](const char* var) -> const char* {
    return std::string(var) == "PATH" ? dir.path().c_str() : nullptr;
  };
  // Not executable yet.
  EXPECT_THROW(find_cli("claude", with_path), SetupError);
  ::chmod(dir.file("claude").c_str(), 0755);
  EXPECT_EQ(find_cli("claude", with_path), dir.file("claude"));
  std::string bad = dir.file("missing");
  auto with_override = [&](const char* var) -> const char* {
    return std::string(var) == "MACE_CLAUDE_CLI" ? bad.c_str() : nullptr;
  };
  EXPECT_THAT(setup_error_of([&] { find_cli("claude", with_override); }),
              HasSubstr("MACE_CLAUDE_CLI"));
}

// REQ-PLAT-7, REQ-BUD-12
TEST_F(CliBackendTest, ClaudeSuccessAndWhatItWasGiven) {
  auto b = backend("claude", "success", "claude-sonnet-4-6");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->name(), "claude");
  EXPECT_EQ(b->model(), "claude-sonnet-4-6");
  Reply r = b->call(simple_request());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "PONG");
  // REQ-BUD-5: the stand-in's usage, each kind apart, and claude's own cost.
  EXPECT_EQ(r.usage.input_tokens, 12);
  EXPECT_EQ(r.usage.cache_write_tokens, 100);
  EXPECT_EQ(r.usage.cache_read_tokens, 50);
  EXPECT_EQ(r.usage.output_tokens, 3);
  EXPECT_EQ(r.usage.thinking_tokens, 2);
  EXPECT_DOUBLE_EQ(r.usage.cost_usd, 0.0123);
  EXPECT_EQ(r.usage.cost_source, CostSource::reported);
  EXPECT_GT(r.wall_s, 0);
  std::string rec = slurp(record());
  EXPECT_THAT(rec, HasSubstr("---argv---\n--print\n--output-format\njson\n"));
  // None of Claude Code's own tools, nothing asked, nothing but MACE's MCP server: the
  // agent acts only through MACE's tools (REQ-EXEC-14), and no flag root is refused.
  EXPECT_THAT(rec, HasSubstr("\n--tools\n\n--permission-mode\ndontAsk\n--strict-mcp-config\n"));
  EXPECT_THAT(rec, ::testing::Not(HasSubstr("--dangerously-skip-permissions")));
  EXPECT_THAT(rec, HasSubstr("--model\nclaude-sonnet-4-6\n"));
  EXPECT_THAT(rec, HasSubstr("--system-prompt\nYou plan OpenPiton work.\n"));
  EXPECT_THAT(rec, HasSubstr("---stdin---\nReply with PONG\n"));
  EXPECT_THAT(rec, ::testing::Not(HasSubstr("--mcp-config")));  // no tools, no MCP
}

TEST_F(CliBackendTest, OpenCodeSuccessReportsCost) {
  auto b = backend("opencode", "success", "anthropic/claude-sonnet-4-6");
  ASSERT_TRUE(b);
  Reply r = b->call(simple_request());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "PONG");
  EXPECT_EQ(r.usage.input_tokens, 120);
  EXPECT_EQ(r.usage.cache_read_tokens, 40);
  EXPECT_EQ(r.usage.output_tokens, 30);
  EXPECT_EQ(r.usage.thinking_tokens, 7);
  EXPECT_DOUBLE_EQ(r.usage.cost_usd, 0.00042);
  std::string rec = slurp(record());
  EXPECT_THAT(rec, HasSubstr("run\n--format\njson\n--agent\nmace\n"));
  EXPECT_THAT(rec, HasSubstr("--model\nanthropic/claude-sonnet-4-6\nReply with PONG\n"));
  EXPECT_THAT(rec, HasSubstr(R"("prompt":"You plan OpenPiton work.")"));
  EXPECT_THAT(rec, ::testing::Not(HasSubstr(R"("mcp")")));
}

TEST_F(CliBackendTest, AntigravitySuccessFoldsTheSystemPrompt) {
  auto b = backend("antigravity", "success", "");
  ASSERT_TRUE(b);
  Reply r = b->call(simple_request());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, "PONG");
  std::string rec = slurp(record());
  EXPECT_THAT(rec, HasSubstr("--print\n[System Instructions]\nYou plan OpenPiton work.\n\n"
                             "[User Request]\nReply with PONG\n"));
  EXPECT_THAT(rec, HasSubstr("--print-timeout\n50s\n"));
  EXPECT_THAT(rec, ::testing::Not(HasSubstr("--model")));  // none given: agy's default
}

struct ErrorCase {
  std::string backend;
  std::string scenario;
  ErrorClass expected;
  std::optional<std::chrono::seconds> retry_after;  // checked when set
};

class CliBackendErrors : public CliBackendTest,
                         public ::testing::WithParamInterface<ErrorCase> {};

// REQ-BUD-14: every failure has the class the retry policy acts on, a rate limit the
// vendor's reset time.
TEST_P(CliBackendErrors, ClassOfEachFailure) {
  const ErrorCase& c = GetParam();
  auto b = backend(c.backend, c.scenario);
  ASSERT_TRUE(b);
  Reply r = b->call(simple_request());
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_class, c.expected) << r.error;
  EXPECT_THAT(r.error, HasSubstr(c.backend + ":"));
  if (c.expected == ErrorClass::rate_limit) {
    ASSERT_TRUE(r.retry_after) << r.error;
    if (c.retry_after) {
      EXPECT_EQ(*r.retry_after, *c.retry_after);
    }
    EXPECT_LE(*r.retry_after, std::chrono::seconds(24 * 3600));
  } else {
    EXPECT_FALSE(r.retry_after);
  }
}

std::vector<ErrorCase> error_cases() {
  std::vector<ErrorCase> cases;
  for (std::string b : {"claude", "opencode", "antigravity"}) {
    std::optional<std::chrono::seconds> wait;
    if (b == "opencode") wait = std::chrono::seconds(30);
    if (b == "antigravity") wait = std::chrono::seconds(42);
    cases.push_back({b, "rate_limit", ErrorClass::rate_limit, wait});
    cases.push_back({b, "auth", ErrorClass::authentication, {}});
    cases.push_back({b, "billing", ErrorClass::billing, {}});
    cases.push_back({b, "invalid", ErrorClass::invalid_request, {}});
    cases.push_back({b, "server", ErrorClass::server, {}});
    cases.push_back({b, "output_limit", ErrorClass::output_limit, {}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllVendors, CliBackendErrors, ::testing::ValuesIn(error_cases()),
                         [](const auto& info) {
                           return info.param.backend + "_" + info.param.scenario;
                         });

TEST_F(CliBackendTest, TimeoutStopsTheCli) {
  auto b = backend("claude", "hang");
  ASSERT_TRUE(b);
  Request request = simple_request();
  request.timeout = std::chrono::seconds(1);
  Reply r = b->call(request);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error_class, ErrorClass::timeout);
  EXPECT_LT(r.wall_s, 10);
}

class CliBackendTools : public CliBackendTest,
                        public ::testing::WithParamInterface<std::string> {};

// REQ-EXEC-7: the agent reaches the call's tools through `mace mcp` and maced.
TEST_P(CliBackendTools, AgentCallsTheToolThroughMaceMcp) {
  const std::string name = GetParam();
  auto b = backend(name, "tool");
  ASSERT_TRUE(b);
  Request request = simple_request();
  request.tools.push_back(echo_tool());
  Reply r = b->call(request);
  ASSERT_TRUE(r.ok) << r.error << "\n" << slurp(record()) << slurp(record() + ".mcp-stderr");
  EXPECT_THAT(r.text, HasSubstr(R"(The tool answered: echo say: {"text":"hello from the agent"})"));
  EXPECT_EQ(tool_calls_.load(), 1);
  EXPECT_EQ(sessions_.size(), 0u) << "the call's session outlived it";

  std::string rec = slurp(record());
  // The MCP configuration starts the forwarder with maced's socket and a session token.
  EXPECT_THAT(rec, HasSubstr(testing::mace_binary()));
  EXPECT_THAT(rec, HasSubstr(socket_));
  EXPECT_THAT(rec, HasSubstr(R"("mcp","--session",")"));
  if (name == "claude") {
    EXPECT_THAT(rec, HasSubstr("--mcp-config\n"));
    EXPECT_THAT(rec, HasSubstr("--strict-mcp-config\n"));
  }
  // The MCP exchange: initialize, the tool list, the call.
  EXPECT_THAT(rec, HasSubstr(R"("serverInfo":{"name":"mace")"));
  EXPECT_THAT(rec, HasSubstr(R"("name":"echo_say")"));
  EXPECT_THAT(rec, HasSubstr(R"("required":["text"])"));
  EXPECT_THAT(rec, HasSubstr(R"("isError":false)"));
  if (name == "opencode") {
    EXPECT_EQ(r.tool_calls, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(AllVendors, CliBackendTools,
                         ::testing::Values("claude", "opencode", "antigravity"),
                         [](const auto& info) { return info.param; });

TEST_F(CliBackendTest, ToolsWithoutSessionsFail) {
  CliOptions o = options("success");
  o.sessions = nullptr;
  std::string path = standin("claude");
  auto b = make_cli_backend(
      "claude", "", [&](const char* v) -> const char* {
        return std::string(v) == "MACE_CLAUDE_CLI" ? path.c_str() : std::getenv(v);
      },
      o);
  ASSERT_TRUE(b);
  Request request = simple_request();
  request.tools.push_back(echo_tool());
  Reply r = b->call(request);
  EXPECT_FALSE(r.ok);
  EXPECT_THAT(r.error, HasSubstr("tool sessions"));
}

// REQ-EXEC-7: a forwarder with a token maced does not know gets no tools.
TEST_F(CliBackendTest, MaceMcpWithAnUnknownSessionIsRefused) {
  std::string known = sessions_.open({echo_tool()});
  testing::ProcessOptions po;
  po.stdin_text =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})" "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})" "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo_say","arguments":{}}})" "\n";
  auto result = testing::run_process(
      {testing::mace_binary(), "--socket", socket_, "mcp", "--session", "0123abcd"}, po);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::istringstream lines(result.out);
  std::vector<std::string> answers;
  for (std::string l; std::getline(lines, l);) answers.push_back(l);
  ASSERT_EQ(answers.size(), 3u) << result.out;
  EXPECT_THAT(answers[0], HasSubstr("protocolVersion"));
  EXPECT_THAT(answers[1], HasSubstr("-32603"));
  EXPECT_THAT(answers[1], HasSubstr("no such tool session"));
  EXPECT_THAT(answers[2], HasSubstr("no such tool session"));
  EXPECT_EQ(tool_calls_.load(), 0);

  // The same requests with the real token work, and a missing --session is bad input.
  auto good = testing::run_process(
      {testing::mace_binary(), "--socket", socket_, "mcp", "--session", known}, po);
  EXPECT_THAT(good.out, HasSubstr(R"(echo say: {})"));
  EXPECT_EQ(tool_calls_.load(), 1);
  auto bad = testing::run_process({testing::mace_binary(), "--socket", socket_, "mcp"}, {});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace mace::llm

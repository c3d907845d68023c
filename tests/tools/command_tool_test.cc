// Tools maced's administrator declares as programs, offered to a run's LLM calls by name
// (REQ-EXEC-7). Each test runs real programs (small shell scripts) through the tool.

#include "tools/command_tool.h"

#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "os/process_group.h"
#include "support/child_process.h"
#include "tool_error_message.h"

namespace mace::tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class CommandToolTest : public ::testing::Test {
 protected:
  // An executable /bin/sh script in the test's directory.
  std::string script(const std::string& name, const std::string& body) {
    dir_.write(name, "#!/bin/sh\n" + body);
    std::string path = dir_.file(name);
    ::chmod(path.c_str(), 0755);
    return path;
  }

  CommandToolConfig tool_running(std::vector<std::string> command, int64_t timeout_s = 10,
                                 size_t max_output = kDefaultToolOutputBytes) {
    CommandToolConfig config;
    config.name = "logs";
    config.description = "Reads the run's logs";
    CommandMethodConfig method;
    method.name = "grep";
    method.description = "Lines matching a pattern";
    method.parameters_schema_json =
        R"({"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]})";
    method.command = std::move(command);
    method.timeout = std::chrono::seconds(timeout_s);
    method.max_output_bytes = max_output;
    config.methods.push_back(method);
    return config;
  }

  CommandToolContext context() {
    CommandToolContext c;
    c.run_id = "20260101-000000-000-abcdef";
    c.kill_grace = std::chrono::milliseconds(200);
    return c;
  }

  mace::testing::TempDir dir_;
};

TEST_F(CommandToolTest, OffersTheConfiguredMethodsWithTheirSchemas) {  // REQ-EXEC-7
  llm::Tool tool = make_command_tool(tool_running({"/bin/true"}), context());
  EXPECT_EQ(tool.name, "logs");
  EXPECT_EQ(tool.description, "Reads the run's logs");
  ASSERT_EQ(tool.methods.size(), 1u);
  EXPECT_EQ(tool.methods[0].name, "grep");
  EXPECT_EQ(tool.methods[0].description, "Lines matching a pattern");
  EXPECT_THAT(tool.methods[0].parameters_schema_json, HasSubstr(R"("required":["pattern"])"));
}

TEST_F(CommandToolTest, StandardOutputIsTheResultAndArgumentsArriveOnStandardInput) {  // REQ-EXEC-7
  std::string prog = script("echo.sh",
                            "printf '%s|%s|%s|%s|%s|' \"$MACE_TOOL_NAME\" \"$MACE_TOOL_METHOD\" "
                            "\"$MACE_RUN_ID\" \"$1\" \"$2\"\ncat\n");
  llm::Tool tool = make_command_tool(tool_running({prog, "two words", "--flag=$HOME;"}), context());
  llm::ToolCallResult result = tool.call("grep", R"({"pattern":"err\"or"})");
  EXPECT_TRUE(result.ok) << result.content;
  // argv reaches the program as given: no shell splits or expands it.
  EXPECT_EQ(result.content,
            R"(logs|grep|20260101-000000-000-abcdef|two words|--flag=$HOME;|{"pattern":"err\"or"})");
}

TEST_F(CommandToolTest, NoArgumentsAreAnEmptyObject) {  // REQ-EXEC-7
  llm::Tool tool = make_command_tool(tool_running({script("cat.sh", "cat\n")}), context());
  llm::ToolCallResult result = tool.call("grep", "");
  EXPECT_TRUE(result.ok) << result.content;
  EXPECT_EQ(result.content, "{}");
}

TEST_F(CommandToolTest, RunsInAPrivateDirectoryThatIsRemovedAfterwards) {
  llm::Tool tool = make_command_tool(tool_running({script("pwd.sh", "pwd; touch left_behind\n")}),
                                     context());
  llm::ToolCallResult result = tool.call("grep", "{}");
  ASSERT_TRUE(result.ok) << result.content;
  std::string where = result.content.substr(0, result.content.find('\n'));
  EXPECT_THAT(where, HasSubstr("/mace-tool-"));
  EXPECT_FALSE(std::filesystem::exists(where));
}

TEST_F(CommandToolTest, MacedsOwnEnvironmentDoesNotReachTheProgram) {
  // The daemon holds LLM credentials in its environment; an admin's tool has no use for them.
  ::setenv("MACE_VERTEX_ACCESS_TOKEN", "secret-token-value", 1);
  llm::Tool tool = make_command_tool(tool_running({"/usr/bin/env"}), context());
  llm::ToolCallResult result = tool.call("grep", "{}");
  ::unsetenv("MACE_VERTEX_ACCESS_TOKEN");
  ASSERT_TRUE(result.ok) << result.content;
  EXPECT_THAT(result.content, Not(HasSubstr("secret-token-value")));
  EXPECT_THAT(result.content, HasSubstr("PATH="));
  EXPECT_THAT(result.content, HasSubstr("MACE_TOOL_METHOD=grep\n"));
}

TEST_F(CommandToolTest, NonZeroExitFailsWithTheStatusAndTheEndOfStandardError) {  // REQ-EXEC-7
  std::string prog = script("fail.sh", "echo partial\necho 'bad pattern: [' >&2\nexit 3\n");
  llm::Tool tool = make_command_tool(tool_running({prog}), context());
  llm::ToolCallResult result = tool.call("grep", R"({"pattern":"["})");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.content, StartsWith("logs.grep failed: exited with status 3"));
  EXPECT_THAT(result.content, HasSubstr("bad pattern: ["));
  EXPECT_THAT(result.content, HasSubstr("standard output:\npartial"));
}

TEST_F(CommandToolTest, StandardErrorIsNotPartOfASuccessfulResult) {
  std::string prog = script("warn.sh", "echo warning >&2\necho '{\"lines\":[]}'\n");
  llm::ToolCallResult result = make_command_tool(tool_running({prog}), context()).call("grep", "{}");
  EXPECT_TRUE(result.ok);
  EXPECT_EQ(result.content, "{\"lines\":[]}\n");
}

TEST_F(CommandToolTest, ASignalIsAFailureNamingIt) {
  std::string prog = script("die.sh", "kill -9 $$\n");
  llm::ToolCallResult result = make_command_tool(tool_running({prog}), context()).call("grep", "{}");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.content, HasSubstr("killed by signal 9"));
}

TEST_F(CommandToolTest, TimeoutKillsTheWholeProcessGroup) {  // REQ-EXEC-7
  // The background sleep is a grandchild the program leaves behind; it must die too.
  std::string pid_file = dir_.file("grandchild.pid");
  std::string prog = script("hang.sh", "sleep 300 &\necho $! > \"$1\"\nsleep 300\n");
  llm::Tool tool = make_command_tool(tool_running({prog, pid_file}, 1), context());
  auto started = std::chrono::steady_clock::now();
  llm::ToolCallResult result = tool.call("grep", "{}");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.content, HasSubstr("timed out after 1 s"));
  EXPECT_LT(seconds, 10);
  std::ifstream in(pid_file);
  pid_t grandchild = 0;
  ASSERT_TRUE(in >> grandchild);
  EXPECT_TRUE(mace::testing::eventually([&] { return ::kill(grandchild, 0) != 0 && errno == ESRCH; }))
      << "pid " << grandchild << " outlived the call";
}

TEST_F(CommandToolTest, CancellingTheRunStopsACallInFlight) {
  os::CancelToken cancel;
  CommandToolContext c = context();
  c.cancel = &cancel;
  llm::Tool tool = make_command_tool(tool_running({script("slow.sh", "sleep 300\n")}, 600), c);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel.cancel();
  });
  llm::ToolCallResult result = tool.call("grep", "{}");
  canceller.join();
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.content, HasSubstr("cancelled"));
}

TEST_F(CommandToolTest, HugeOutputIsCutToTheLimitKeepingItsStart) {  // REQ-EXEC-7
  // Ten megabytes on one line, then more lines: only the first kilobyte is kept.
  std::string prog = script("flood.sh",
                            "printf START\nhead -c 10000000 /dev/zero | tr '\\000' a\n"
                            "printf '\\nline\\n'\n");
  llm::Tool tool = make_command_tool(tool_running({prog}, 30, 1000), context());
  llm::ToolCallResult result = tool.call("grep", "{}");
  ASSERT_TRUE(result.ok) << result.content.substr(0, 200);
  EXPECT_EQ(result.content.substr(0, 1000), "START" + std::string(995, 'a'));
  EXPECT_THAT(result.content.substr(1000),
              HasSubstr("[mace: output cut to its first 1000 of 10000011 bytes]"));
  EXPECT_LT(result.content.size(), 1100u);
}

TEST_F(CommandToolTest, OutputOfExactlyTheLimitIsKeptWhole) {
  std::string prog = script("fit.sh", "printf 'ab\\r\\ncd\\n'\n");
  llm::ToolCallResult result =
      make_command_tool(tool_running({prog}, 10, 7), context()).call("grep", "{}");
  EXPECT_TRUE(result.ok);
  EXPECT_EQ(result.content, "ab\r\ncd\n");
}

TEST_F(CommandToolTest, AMissingProgramIsAFailureSayingSo) {  // REQ-EXEC-7
  llm::Tool tool = make_command_tool(tool_running({"/no/such/program", "x"}), context());
  llm::ToolCallResult result = tool.call("grep", "{}");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.content, "logs.grep: cannot execute '/no/such/program': No such file or directory");
}

TEST_F(CommandToolTest, ArgumentsThatAreNotAnObjectAreRefusedWithoutRunningAnything) {
  std::string marker = dir_.file("ran");
  llm::Tool tool = make_command_tool(tool_running({script("touch.sh", "touch \"$1\"\n"), marker}),
                                     context());
  llm::ToolCallResult result = tool.call("grep", "[1,2]");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.content, "logs.grep: the arguments must be a JSON object; nothing was run");
  result = tool.call("grep", "{\"pattern\":");
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.content, StartsWith("logs.grep: the arguments are not valid JSON"));
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST_F(CommandToolTest, AnUnknownMethodNamesTheKnownOnes) {
  llm::ToolCallResult result =
      make_command_tool(tool_running({"/bin/true"}), context()).call("grepp", "{}");
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(result.content, "logs: no method 'grepp'; it has grep");
}

TEST_F(CommandToolTest, AProblemOfMacedsOwnIsAResultNotAnException) {
  CommandToolContext c = context();
  c.temp_root = "/no/such/root";
  llm::ToolCallResult result;
  EXPECT_NO_THROW(result = make_command_tool(tool_running({"/bin/true"}), c).call("grep", "{}"));
  EXPECT_FALSE(result.ok);
  EXPECT_THAT(result.content, StartsWith("logs.grep: cannot make a private directory under /no/such/root"));
}

TEST_F(CommandToolTest, ARunGetsTheToolsItsSpecNamesInItsOrder) {  // REQ-EXEC-7
  CommandToolConfig logs = tool_running({"/bin/true"});
  CommandToolConfig waves = tool_running({"/bin/true"});
  waves.name = "waves";
  CommandToolConfig unused = tool_running({"/bin/true"});
  unused.name = "unused";
  auto tools = select_command_tools({logs, waves, unused}, {"waves", "logs"}, context());
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[0].name, "waves");
  EXPECT_EQ(tools[1].name, "logs");
  EXPECT_TRUE(select_command_tools({logs}, {}, context()).empty());
}

TEST_F(CommandToolTest, ANameNoLongerConfiguredIsAnErrorNamingIt) {
  EXPECT_EQ(tool_error_of([&] {
              select_command_tools({tool_running({"/bin/true"})}, {"logs", "gone"}, context());
            }),
            "tool 'gone' is not in maced's configuration (it has logs)");
  EXPECT_EQ(tool_error_of([&] { select_command_tools({}, {"gone"}, context()); }),
            "tool 'gone' is not in maced's configuration (it has none)");
}

}  // namespace
}  // namespace mace::tools

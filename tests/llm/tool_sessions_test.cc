// REQ-EXEC-7: the tools of a CLI agent's call are reachable only through its session.

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "llm/tool_sessions.h"

namespace mace::llm {
namespace {

Tool echo_tool() {
  Tool t;
  t.name = "echo";
  t.methods.push_back({"say", "repeats its text", R"({"type":"object"})"});
  t.call = [](const std::string&, const std::string& args) { return ToolCallResult{true, args}; };
  return t;
}

TEST(ToolSessions, OpenFindClose) {
  ToolSessions sessions;
  std::string token = sessions.open({echo_tool()});
  ASSERT_EQ(token.size(), 64u);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
  auto tools = sessions.find(token);
  ASSERT_TRUE(tools);
  ASSERT_EQ(tools->size(), 1u);
  EXPECT_EQ((*tools)[0].name, "echo");
  sessions.close(token);
  EXPECT_FALSE(sessions.find(token));
  sessions.close(token);  // twice is harmless
  EXPECT_EQ(sessions.size(), 0u);
  // A tool list held by a caller outlives the session.
  EXPECT_EQ((*tools)[0].call("say", "{}").content, "{}");
}

TEST(ToolSessions, UnknownTokenIsRefused) {
  ToolSessions sessions;
  std::string token = sessions.open({echo_tool()});
  EXPECT_FALSE(sessions.find(""));
  EXPECT_FALSE(sessions.find("not-a-token"));
  std::string guess = token;
  guess.back() = guess.back() == '0' ? '1' : '0';
  EXPECT_FALSE(sessions.find(guess));
  EXPECT_TRUE(sessions.find(token));
}

TEST(ToolSessions, TokensAreDistinctAcrossThreads) {
  ToolSessions sessions;
  std::vector<std::vector<std::string>> tokens(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) tokens[t].push_back(sessions.open({}));
    });
  for (auto& th : threads) th.join();
  std::set<std::string> all;
  for (auto& v : tokens) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 400u);
  EXPECT_EQ(sessions.size(), 400u);
  {
    ScopedToolSession scoped(sessions, {echo_tool()});
    EXPECT_TRUE(sessions.find(scoped.token()));
    EXPECT_EQ(sessions.size(), 401u);
  }
  EXPECT_EQ(sessions.size(), 400u);
}

}  // namespace
}  // namespace mace::llm

// Where `mace` looks for maced, in order, for each environment a shell may have.

#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/maced_socket.h"

namespace mace::client {
namespace {

Environment environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  };
}

std::vector<std::string> paths(const std::vector<SocketCandidate>& candidates) {
  std::vector<std::string> out;
  for (const auto& c : candidates) out.push_back(c.path);
  return out;
}

TEST(SocketCandidatesTest, WithoutANamedSocketTheServicesComeFirstThenTheQuickStarts) {
  auto candidates = socket_candidates(
      "", environment({{"HOME", "/home/ada"}, {"XDG_RUNTIME_DIR", "/run/user/1000"}}));
  EXPECT_THAT(paths(candidates),
              ::testing::ElementsAre("/run/maced/maced.sock", "/run/user/1000/maced/maced.sock",
                                     "/run/user/1000/maced.sock",
                                     "/home/ada/.local/state/mace/maced.sock"));
  EXPECT_EQ(candidates[0].origin, "the system service");
  EXPECT_EQ(candidates[3].origin, "the quick start's");
}

TEST(SocketCandidatesTest, XdgStateHomeMovesTheQuickStartsSocketAsTheQuickStartDoes) {
  auto candidates =
      socket_candidates("", environment({{"HOME", "/home/ada"}, {"XDG_STATE_HOME", "/s"}}));
  EXPECT_THAT(paths(candidates),
              ::testing::ElementsAre("/run/maced/maced.sock", "/s/mace/maced.sock"));
}

TEST(SocketCandidatesTest, ANamedSocketIsTheOnlyOneTried) {
  const auto env = environment({{"HOME", "/home/ada"}, {"MACE_SOCKET", "/tmp/m.sock"}});
  EXPECT_THAT(paths(socket_candidates("", env)), ::testing::ElementsAre("/tmp/m.sock"));
  auto named = socket_candidates("/x.sock", env);  // --socket wins over MACE_SOCKET
  EXPECT_THAT(paths(named), ::testing::ElementsAre("/x.sock"));
  EXPECT_EQ(named[0].origin, "--socket");
}

TEST(SocketCandidatesTest, AnEmptyVariableCountsAsUnset) {
  auto candidates = socket_candidates(
      "", environment({{"MACE_SOCKET", ""}, {"XDG_RUNTIME_DIR", ""}, {"HOME", "/h"}}));
  EXPECT_THAT(paths(candidates),
              ::testing::ElementsAre("/run/maced/maced.sock", "/h/.local/state/mace/maced.sock"));
}

TEST(ConnectUnixSocketTest, SaysInWordsWhyNothingAnswered) {
  std::string why;
  EXPECT_EQ(connect_unix_socket("/nonexistent-dir/maced.sock", why), -1);
  EXPECT_EQ(why, "no such socket");
  EXPECT_EQ(connect_unix_socket("/" + std::string(200, 'x'), why), -1);
  EXPECT_THAT(why, ::testing::HasSubstr("longer than a Unix socket's"));
}

}  // namespace
}  // namespace mace::client

// `mace` in a new shell, with no variable set, finds the maced the quick start started
// (in ~/.local/state/mace) or one in $XDG_RUNTIME_DIR; a socket named by MACE_SOCKET or
// --socket is the only one tried; and when nothing answers, the error lists every place
// tried with the reason.

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A maced of the system service answering here would be found first: these tests would
// then say nothing about the places after it.
bool system_maced_answers() {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "/run/maced/maced.sock");
  const bool answers = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return answers;
}

class SocketDiscoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (system_maced_answers())
      GTEST_SKIP() << "a maced answers on /run/maced/maced.sock, which mace tries first";
  }
  // A shell of a user whose home is home_, with no MACE variable set.
  ProcessResult mace(const std::vector<std::string>& args,
                     std::map<std::string, std::string> env = {}) {
    ProcessOptions options;
    options.set_env = std::move(env);
    options.set_env["HOME"] = home_.path();
    for (const char* name : {"MACE_SOCKET", "XDG_RUNTIME_DIR", "XDG_STATE_HOME"})
      if (!options.set_env.count(name)) options.unset_env.push_back(name);
    std::vector<std::string> argv = {mace_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, options);
  }
  // `where` (a directory path) made to be maced's TempDir, so its socket is where/maced.sock.
  void link_to_maced(const std::string& where) {
    std::filesystem::create_directories(std::filesystem::path(where).parent_path());
    std::filesystem::create_directory_symlink(maced_dir_.path(), where);
  }

  TempDir home_;
  TempDir maced_dir_;
};

TEST_F(SocketDiscoveryTest, ANewShellFindsTheQuickStartsMacedWithNoVariableSet) {
  MacedInstance maced(maced_dir_);
  link_to_maced(home_.file(".local/state/mace"));
  auto r = mace({"version"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("at " + home_.file(".local/state/mace/maced.sock") + "\n"));
  EXPECT_EQ(mace({"list"}).exit_code, 0);
}

TEST_F(SocketDiscoveryTest, AMacedInTheRuntimeDirectoryIsFoundBeforeTheQuickStarts) {
  MacedInstance maced(maced_dir_);
  TempDir runtime;
  std::filesystem::create_symlink(maced.socket_path(), runtime.file("maced.sock"));
  auto r = mace({"version"}, {{"XDG_RUNTIME_DIR", runtime.path()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("at " + runtime.file("maced.sock") + "\n"));
}

TEST_F(SocketDiscoveryTest, WhenNothingAnswersTheErrorListsEveryPlaceAndWhy) {
  TempDir runtime;
  // A socket file nobody listens on: what a maced killed with SIGKILL leaves.
  std::filesystem::create_directories(home_.file(".local/state/mace"));
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s",
                home_.file(".local/state/mace/maced.sock").c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(fd);

  auto r = mace({"list"}, {{"XDG_RUNTIME_DIR", runtime.path()}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("cannot reach maced; tried:\n"));
  EXPECT_THAT(r.err, HasSubstr("/run/maced/maced.sock (the system service): "));
  EXPECT_THAT(r.err,
              HasSubstr(runtime.file("maced/maced.sock") + " (a user service): no such socket"));
  EXPECT_THAT(r.err, HasSubstr(runtime.file("maced.sock") + " ($XDG_RUNTIME_DIR): no such socket"));
  EXPECT_THAT(r.err, HasSubstr(home_.file(".local/state/mace/maced.sock") +
                               " (the quick start's): nothing is listening there"));
  EXPECT_THAT(r.err, HasSubstr("--socket PATH or MACE_SOCKET"));
}

TEST_F(SocketDiscoveryTest, ANamedSocketIsTheOnlyOneTriedEvenWhenAnotherMacedAnswers) {
  MacedInstance maced(maced_dir_);
  link_to_maced(home_.file(".local/state/mace"));
  auto r = mace({"list"}, {{"MACE_SOCKET", home_.file("elsewhere.sock")}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("cannot reach maced at " + home_.file("elsewhere.sock") +
                               " (MACE_SOCKET): no such socket"));
  EXPECT_THAT(r.err, Not(HasSubstr("tried:")));
  // --socket wins over MACE_SOCKET.
  auto named = mace({"--socket", maced.socket_path(), "version"},
                    {{"MACE_SOCKET", home_.file("elsewhere.sock")}});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  EXPECT_THAT(named.out, HasSubstr("at " + maced.socket_path() + "\n"));
}

}  // namespace
}  // namespace mace::testing

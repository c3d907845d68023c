// maced as systemd runs it: socket activation, readiness and stop notifications, and the
// socket file it finds left behind.

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

int bound_unix_socket(const std::string& path, bool do_listen) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  if (do_listen) {
    EXPECT_EQ(::listen(fd, 8), 0);
  }
  return fd;
}

constexpr const char* kSpec = R"({"workloads": ["hello"], "objective": "o", "core": "pico"})";

TEST(Lifecycle, NotifiesReadyWithAStatusLine) {
  TempDir dir;
  MacedInstance maced(dir);
  ASSERT_TRUE(maced.notify().wait_for("READY=1"));
  bool status_seen = false;
  for (const auto& m : maced.notify().seen())
    status_seen |= m.find("STATUS=listening on") != std::string::npos;
  EXPECT_TRUE(status_seen);
}

TEST(Lifecycle, SigtermStopsCleanlyAndRemovesItsSocket) {
  TempDir dir;
  MacedInstance maced(dir);
  maced.process().signal(SIGTERM);
  auto result = maced.process().wait(std::chrono::milliseconds(10000));
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->exit_code, 0) << result->err;
  EXPECT_TRUE(maced.notify().wait_for("STOPPING=1"));
  EXPECT_FALSE(std::filesystem::exists(maced.socket_path()));
}

TEST(Lifecycle, AcceptsTheListeningSocketSystemdPasses) {
  TempDir dir;
  std::string path = dir.file("activated.sock");
  int fd = bound_unix_socket(path, true);
  MacedOptions options;
  options.process.set_env["LISTEN_FDS"] = "1";
  // LISTEN_PID must name maced itself, which only the child knows.
  options.process.in_child = [fd] {
    ::dup2(fd, 3);
    ::setenv("LISTEN_PID", std::to_string(::getpid()).c_str(), 1);
  };
  // maced is given a different --socket; it must use the passed one instead.
  MacedInstance maced(dir, options);
  ::close(fd);
  dir.write("spec.json", kSpec);
  auto r = run_process({mace_binary(), "--socket", path, "submit", dir.file("spec.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(maced.socket_path()));
}

TEST(Lifecycle, ReplacesAStaleSocketFile) {
  TempDir dir;
  // A socket file nobody listens on, as a killed maced leaves behind.
  ::close(bound_unix_socket(dir.file("maced.sock"), false));
  ASSERT_TRUE(std::filesystem::exists(dir.file("maced.sock")));
  MacedInstance maced(dir);
  EXPECT_EQ(maced.mace({"list"}).exit_code, 0);
}

TEST(Lifecycle, RefusesASocketALiveMacedAnswersOn) {
  TempDir dir;
  MacedInstance first(dir);
  TempDir other_state;
  auto second = run_process({maced_binary(), "--socket", first.socket_path(), "--state-dir",
                             other_state.file("state")});
  EXPECT_NE(second.exit_code, 0);
  EXPECT_THAT(second.err, HasSubstr("already listening on " + first.socket_path()));
  EXPECT_EQ(first.mace({"list"}).exit_code, 0);
}

TEST(Lifecycle, RefusesToReplaceAFileThatIsNotASocket) {
  TempDir dir;
  dir.write("maced.sock", "precious");
  auto r = run_process({maced_binary(), "--socket", dir.file("maced.sock"), "--state-dir",
                        dir.file("state")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("is not a socket"));
}

TEST(Lifecycle, BadConfigNamesTheFieldAndExitsTwo) {
  TempDir dir;
  dir.write("maced.json", R"({"checkouts": [{"path": "relative/dir"}], "llm": {"backend": "gpt"}})");
  auto r = run_process({maced_binary(), "--socket", dir.file("s.sock"), "--state-dir",
                        dir.file("state"), "--config", dir.file("maced.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("checkouts[0].path: must be an absolute path"));
  EXPECT_THAT(r.err, HasSubstr("llm.backend: must be one of"));
}

TEST(Lifecycle, EnvironmentDirectoriesAreTheDefaults) {
  TempDir dir;
  ProcessOptions options;
  options.set_env["RUNTIME_DIRECTORY"] = dir.file("run");
  options.set_env["STATE_DIRECTORY"] = dir.file("lib");
  options.set_env["NOTIFY_SOCKET"] = dir.file("n.sock");
  NotifySocket notify(dir.file("n.sock"));
  BackgroundProcess maced({maced_binary()}, options);
  ASSERT_TRUE(notify.wait_for("READY=1"));
  EXPECT_TRUE(std::filesystem::exists(dir.file("run/maced.sock")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("lib/mace.db")));
}

// Counts WATCHDOG=1 datagrams on a socket standing in for NOTIFY_SOCKET, for `window`.
int watchdog_pings_within(NotifySocket& notify, std::chrono::milliseconds window) {
  auto until = std::chrono::steady_clock::now() + window;
  // wait_for keeps every datagram in seen(); a needle nobody sends makes it just listen.
  while (std::chrono::steady_clock::now() < until)
    notify.wait_for("\x01never", std::chrono::milliseconds(50));
  int pings = 0;
  for (const auto& m : notify.seen()) pings += m == "WATCHDOG=1";
  return pings;
}

TEST(Lifecycle, PingsTheWatchdogAtHalfItsInterval) {
  TempDir dir;
  ProcessOptions options;
  options.set_env["NOTIFY_SOCKET"] = dir.file("n.sock");
  options.set_env["WATCHDOG_USEC"] = "200000";  // 0.2 s: a ping every 0.1 s
  options.unset_env = {"WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID"};
  NotifySocket notify(dir.file("n.sock"));
  BackgroundProcess maced({maced_binary(), "--socket", dir.file("maced.sock"), "--state-dir",
                           dir.file("state")},
                          options);
  ASSERT_TRUE(notify.wait_for("READY=1"));
  // About 15 in 1.5 s; a loaded machine may delay some, but a ping that stopped after
  // start-up, or one sent at the full interval, gives far fewer.
  EXPECT_GE(watchdog_pings_within(notify, std::chrono::milliseconds(1500)), 8);
  EXPECT_TRUE(maced.running());
}

// A service manager that does not read its notify socket (a full datagram queue) must not
// stop maced answering: the pings and status lines are sent without blocking.
TEST(Lifecycle, AnUnreadNotifySocketDoesNotStopMacedAnswering) {
  TempDir dir;
  MacedOptions options;
  options.read_notify = false;
  options.wait_ready = false;
  options.process.set_env["WATCHDOG_USEC"] = "20000";  // a ping every 10 ms
  options.process.unset_env = {"WATCHDOG_PID"};
  MacedInstance maced(dir, options);
  ProcessOptions quick;
  quick.timeout = std::chrono::seconds(5);
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    up = maced.mace({"version"}, quick).exit_code == 0;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(up);
  // By now far more pings were sent than an unread socket holds (10 by default).
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto answer = maced.mace({"version"}, quick);
  EXPECT_EQ(answer.exit_code, 0) << answer.err;
  EXPECT_TRUE(maced.process().running());
}

TEST(Lifecycle, SendsNoWatchdogPingsUnlessAsked) {
  TempDir dir;
  MacedOptions options;
  options.process.unset_env = {"WATCHDOG_USEC", "WATCHDOG_PID"};
  MacedInstance maced(dir, options);
  EXPECT_EQ(watchdog_pings_within(maced.notify(), std::chrono::milliseconds(500)), 0);
}

TEST(Lifecycle, PingsNoWatchdogMeantForAnotherProcess) {
  TempDir dir;
  MacedOptions options;
  options.process.set_env["WATCHDOG_USEC"] = "200000";
  options.process.set_env["WATCHDOG_PID"] = "1";  // systemd's watchdog is for pid 1, not us
  MacedInstance maced(dir, options);
  EXPECT_EQ(watchdog_pings_within(maced.notify(), std::chrono::milliseconds(500)), 0);
}

}  // namespace
}  // namespace mace::testing

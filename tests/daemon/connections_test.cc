// maced's client connections under pressure (docs/operating-maced.md): running out of
// descriptors, more connections than it serves, connections left idle, and a frame header
// announcing a message far larger than maced accepts.

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <capnp/rpc-twoparty.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kj/async-io.h>

#include "mace.capnp.h"
#include "support/maced_instance.h"
#include "support/sanitizers.h"
#include "support/count_of.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr const char* kSpec = R"({"workloads": ["hello"], "objective": "o", "core": "pico"})";

// A connected Unix stream socket, or -1 (a non-blocking connect fails with EAGAIN when
// maced's backlog is full).
int connect_unix(const std::string& path, bool nonblocking = false) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sockets of the test's own, closed together.
struct Sockets {
  ~Sockets() { close_all(); }
  void close_all() {
    for (int fd : fds) ::close(fd);
    fds.clear();
  }
  std::vector<int> fds;
};

// True once the other end closed `fd` (end of file), false if it stays open `timeout`.
bool closed_by_peer(int fd, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char byte;
    ssize_t n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
  }
  return false;
}

std::size_t open_descriptors(pid_t pid) {
  std::error_code ec;
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

// A line of /proc/PID/status in KiB ("VmRSS:", "VmHWM:"), or -1.
long status_kib(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
  return -1;
}

std::string first_line(std::string text) {
  return text.substr(0, text.find('\n'));
}

// A Cap'n Proto connection of the test's own, held open as a script's would be.
class RpcConnection {
 public:
  RpcConnection(kj::AsyncIoContext& io, const std::string& socket) : io_(io) {
    stream_ = io.provider->getNetwork().parseAddress("unix:" + socket).wait(io.waitScope)
                  ->connect().wait(io.waitScope);
    client_ = kj::heap<capnp::TwoPartyClient>(*stream_);
    maced_ = client_->bootstrap().castAs<api::Maced>();
  }

  // Whether a version call is answered within a few seconds.
  bool answers() {
    auto call = maced_.versionRequest().send().then(
        [](capnp::Response<api::Maced::VersionResults>&&) { return true; },
        [](kj::Exception&&) { return false; });
    return call.exclusiveJoin(io_.provider->getTimer().afterDelay(5 * kj::SECONDS).then([] {
                 return false;
               }))
        .wait(io_.waitScope);
  }

  // Whether maced closes this connection within `timeout`.
  bool closed_within(kj::Duration timeout) {
    return client_->onDisconnect().then([] { return true; })
        .exclusiveJoin(io_.provider->getTimer().afterDelay(timeout).then([] { return false; }))
        .wait(io_.waitScope);
  }

 private:
  kj::AsyncIoContext& io_;
  kj::Own<kj::AsyncIoStream> stream_;
  kj::Own<capnp::TwoPartyClient> client_;
  api::Maced::Client maced_ = nullptr;
};

ProcessOptions quick() {
  ProcessOptions options;
  options.timeout = 5s;
  return options;
}

MacedOptions with_config(const TempDir& dir, const std::string& json) {
  dir.write("maced.json", json);
  MacedOptions options;
  options.extra_args = {"--config", dir.file("maced.json")};
  return options;
}

// The flood of a client that opens connections faster than it closes them. maced must
// keep serving what it has, wait for descriptors to return, accept again, and say so
// once, not once per retry.
TEST(Connections, AcceptsAgainOnceDescriptorsReturn) {
  TempDir dir;
  constexpr rlim_t kLimit = 64;
  MacedOptions options;
  options.process.in_child = [] {
    rlimit limit{kLimit, kLimit};
    ::setrlimit(RLIMIT_NOFILE, &limit);
  };
  if (kAddressSanitizer) {  // the sanitizer build, UBSan with it: see the file
    const char* inherited = std::getenv("UBSAN_OPTIONS");
    options.process.set_env["UBSAN_OPTIONS"] =
        std::string(inherited ? inherited : "") + ":suppressions=" + source_root() +
        "/tests/daemon/out_of_descriptors.ubsan.supp";
  }
  MacedInstance maced(dir, options);
  kj::AsyncIoContext io = kj::setupAsyncIo();
  RpcConnection before(io, maced.socket_path());
  ASSERT_TRUE(before.answers());

  Sockets flood;
  for (int i = 0; i < 2 * static_cast<int>(kLimit); ++i)
    if (int fd = connect_unix(maced.socket_path(), true); fd >= 0) flood.fds.push_back(fd);
  // Every descriptor maced may have is taken, so accept(2) fails.
  ASSERT_TRUE(eventually([&] { return open_descriptors(maced.process().pid()) >= kLimit; }))
      << open_descriptors(maced.process().pid()) << " descriptors open";
  // Long enough for several retries.
  std::this_thread::sleep_for(1500ms);
  EXPECT_TRUE(before.answers()) << "a connection maced had must still be served";
  ASSERT_TRUE(maced.process().running());

  flood.close_all();
  auto answered = [&] { return maced.mace({"version"}, quick()).exit_code == 0; };
  EXPECT_TRUE(eventually(answered, 10s)) << "maced never accepted again";

  maced.process().signal(SIGTERM);
  auto result = maced.process().wait(10s);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(count_of(result->err, "Too many open files"), 1u) << result->err;
  EXPECT_THAT(result->err, HasSubstr("accepting connections again"));
}

TEST(Connections, ConnectionsBeyondTheCapAreRefusedWhileEarlierOnesWork) {
  TempDir dir;
  MacedInstance maced(dir, with_config(dir, R"({"connections": {"max": 3}})"));
  kj::AsyncIoContext io = kj::setupAsyncIo();
  std::vector<std::unique_ptr<RpcConnection>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(std::make_unique<RpcConnection>(io, maced.socket_path()));
    ASSERT_TRUE(held.back()->answers()) << "connection " << i;
  }
  // Every attempt is told why, however its first request races the refusal.
  for (int i = 0; i < 5; ++i) {
    auto refused = maced.mace({"version"}, quick());
    EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
    EXPECT_EQ(first_line(refused.err), "maced: too many connections (limit 3); try again")
        << refused.err;
  }
  for (auto& connection : held) EXPECT_TRUE(connection->answers());

  held.pop_back();
  auto answered = [&] { return maced.mace({"version"}, quick()).exit_code == 0; };
  EXPECT_TRUE(eventually(answered, 5s)) << "a freed place must be usable";
}

TEST(Connections, AnIdleConnectionIsClosedButAWatchIsNot) {
  TempDir dir;
  MacedInstance maced(dir, with_config(dir, R"({"connections": {"idle_timeout_s": 1}})"));
  // Without checkouts the run stays queued: its watch shows the history, then waits.
  dir.write("spec.json", kSpec);
  auto submitted = maced.mace({"submit", dir.file("spec.json")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  std::string id = first_line(submitted.out);
  BackgroundProcess watch({mace_binary(), "--socket", maced.socket_path(), "--json", "watch", id});
  ASSERT_TRUE(eventually(
      [&] { return watch.output_so_far().find("\"kind\":\"submitted\"") != std::string::npos; }));

  kj::AsyncIoContext io = kj::setupAsyncIo();
  RpcConnection idle(io, maced.socket_path());
  ASSERT_TRUE(idle.answers());
  Sockets silent;  // connects and never says a word
  silent.fds.push_back(connect_unix(maced.socket_path()));
  ASSERT_GE(silent.fds[0], 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(closed_by_peer(silent.fds[0], 5s));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 900ms) << "closed before its timeout";
  EXPECT_TRUE(idle.closed_within(5 * kj::SECONDS));

  // Several timeouts after it started, the watch still waits on its run, and sees it end.
  std::this_thread::sleep_for(1s);
  ASSERT_TRUE(watch.running()) << watch.output_so_far();
  ASSERT_EQ(maced.mace({"cancel", id}).exit_code, 0);
  auto result = watch.wait(10s);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->exit_code, 1) << result->err;  // cancelled is not passed
  EXPECT_THAT(result->out, HasSubstr("\"kind\":\"state_changed\",\"state\":\"cancelled\""));
}

// Cap'n Proto's stream framing: the segment count less one, then each segment's size in
// words. Reading a message, the library reserves what the header announces before the
// data arrives, up to the reader's traversal limit.
bool send_frame_header(int fd, uint32_t words) {
  uint32_t header[2] = {0, words};
  return ::send(fd, header, sizeof header, MSG_NOSIGNAL) == sizeof header;
}

TEST(Connections, AHugeAnnouncedMessageIsRefusedWithoutReservingMemory) {
  TempDir dir;
  MacedInstance maced(dir);
  ASSERT_EQ(maced.mace({"version"}).exit_code, 0);
  const pid_t pid = maced.process().pid();
  const long rss_before = status_kib(pid, "VmRSS:");
  const long peak_before = status_kib(pid, "VmHWM:");
  ASSERT_GT(peak_before, 0);

  Sockets clients;
  // Two gigabytes in one segment.
  clients.fds.push_back(connect_unix(maced.socket_path()));
  ASSERT_GE(clients.fds.back(), 0);
  EXPECT_TRUE(send_frame_header(clients.fds.back(), 0x10000000u));
  // Just under the library's own default limit (64 MiB), which maced must not rely on:
  // announced and then sent, by several clients that hold their connections open.
  const std::string mebibyte(1 << 20, '\0');
  for (int i = 0; i < 4; ++i) {
    int fd = connect_unix(maced.socket_path());
    ASSERT_GE(fd, 0);
    clients.fds.push_back(fd);
    timeval send_timeout{2, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
    if (!send_frame_header(fd, (64u << 20) / 8 - 1)) continue;
    for (int mib = 0; mib < 60; ++mib)
      if (::send(fd, mebibyte.data(), mebibyte.size(), MSG_NOSIGNAL) < 0) break;
  }
  std::this_thread::sleep_for(500ms);  // whatever maced would read, it has read

  const long rss_after = status_kib(pid, "VmRSS:");
  const long peak_after = status_kib(pid, "VmHWM:");
  std::cout << "maced VmRSS " << rss_before << " -> " << rss_after << " KiB, VmHWM "
            << peak_before << " -> " << peak_after << " KiB\n";
  EXPECT_LT(peak_after - peak_before, 16 * 1024) << "maced's peak RSS grew by "
                                                 << peak_after - peak_before << " KiB";
  ASSERT_TRUE(maced.process().running());
  auto version = maced.mace({"version"}, quick());
  EXPECT_EQ(version.exit_code, 0) << version.err;
}

// One user starts many large messages and never finishes them: maced reads no more of them
// than the user's budget (connections.max_pending_mb_per_user), where before every
// connection could make it hold 8 MiB, and serves another user as ever.
TEST(Connections, OneUsersUnfinishedMessagesHoldNoMoreThanItsBudget) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to flood as another user";
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  MacedInstance maced(dir, with_config(dir, R"({"connections": {"max_pending_mb_per_user": 8}})"));
  ::chmod(maced.socket_path().c_str(), 0666);
  ASSERT_EQ(maced.mace({"version"}).exit_code, 0);
  const pid_t pid = maced.process().pid();
  const long peak_before = status_kib(pid, "VmHWM:");

  // Ten connections of uid 65534, each announcing a message of 7 MiB and sending all of it
  // but its last word, then holding on.
  constexpr int kConnections = 10;
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t flooder = ::fork();
  if (flooder == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(1);
    std::vector<int> fds;
    const std::string mebibyte(1 << 20, '\0');
    for (int i = 0; i < kConnections; ++i) {
      int fd = connect_unix(maced.socket_path());
      if (fd < 0) ::_exit(2);
      timeval send_timeout{0, 300000};
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
      fds.push_back(fd);
      if (!send_frame_header(fd, (7u << 20) / 8)) continue;
      for (int mib = 0; mib < 7; ++mib)
        if (::send(fd, mebibyte.data(), mib == 6 ? mebibyte.size() - 8 : mebibyte.size(), MSG_NOSIGNAL) < 0) break;
    }
    char done = 1;
    (void)!::write(ready[1], &done, 1);
    ::pause();
    ::_exit(0);
  }
  ::close(ready[1]);
  char done = 0;
  ASSERT_EQ(::read(ready[0], &done, 1), 1);
  ::close(ready[0]);
  std::this_thread::sleep_for(500ms);  // whatever maced would read, it has read

  const long peak_after = status_kib(pid, "VmHWM:");
  std::cout << "maced VmHWM " << peak_before << " -> " << peak_after << " KiB with " << kConnections
            << " unfinished messages of 7 MiB\n";
  // 70 MiB announced; the budget is 8 (one message at a time, as it is larger than half).
  EXPECT_LT(peak_after - peak_before, 24 * 1024) << "maced's peak RSS grew by " << peak_after - peak_before << " KiB";
  auto version = maced.mace({"version"}, quick());
  EXPECT_EQ(version.exit_code, 0) << "another user is served as ever: " << version.err;
  ::kill(flooder, SIGKILL);
  ::waitpid(flooder, nullptr, 0);
}

}  // namespace
}  // namespace mace::testing

// maced's client connections under pressure (README "Limits"): running out of
// descriptors.

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <capnp/rpc-twoparty.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <kj/async-io.h>

#include "mace.capnp.h"
#include "support/maced_instance.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

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

std::size_t open_descriptors(pid_t pid) {
  std::error_code ec;
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return n;
}

std::size_t count_of(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1))
    ++n;
  return n;
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

}  // namespace
}  // namespace mace::testing

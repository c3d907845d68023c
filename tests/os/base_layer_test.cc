// The small pieces of the base layer: descriptors, cancel tokens, /proc, temporary
// directories.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "os/cancel_token.h"
#include "os/errno_text.h"
#include "os/proc.h"
#include "os/temp_dir.h"
#include "os/unique_fd.h"
#include "support/child_process.h"

namespace mace::os {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

TEST(UniqueFdTest, ClosesOnceAndMoves) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  {
    UniqueFd a(raw);
    UniqueFd b(std::move(a));
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), raw);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));
  UniqueFd c(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int released = c.release();
  EXPECT_FALSE(c);
  EXPECT_TRUE(is_open(released));
  ::close(released);
}

TEST(UniqueFdTest, ResetKeepsErrnoForTheCallerToReport) {
  UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  errno = ENOSPC;
  fd.reset();
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(errno_text(ENOENT), "No such file or directory");
}

TEST(CancelTokenTest, WaitEndsAtTheDeadlineOrAtOnceOnCancel) {
  CancelToken token;
  auto start = Clock::now();
  EXPECT_FALSE(token.wait_for(std::chrono::milliseconds(50)));
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(50));

  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    token.cancel();
  });
  start = Clock::now();
  EXPECT_TRUE(token.wait_for(std::chrono::hours(1)));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));
  canceller.join();
  EXPECT_TRUE(token.cancelled());
  EXPECT_TRUE(token.wait_for(std::chrono::hours(1)));  // stays cancelled
}

TEST(ProcStatTest, ReadsThisProcess) {
  auto stat = read_proc_stat(::getpid());
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->ppid, ::getppid());
  EXPECT_EQ(stat->pgrp, ::getpgrp());
  EXPECT_EQ(stat->session, ::getsid(0));
  EXPECT_GT(stat->start, 0u);
  EXPECT_FALSE(stat->gone());
  EXPECT_FALSE(read_proc_stat(0).has_value());
  bool saw_self = false;
  for_each_pid([&](pid_t pid) { saw_self = saw_self || pid == ::getpid(); });
  EXPECT_TRUE(saw_self);
}

TEST(TempDirTest, IsPrivateAndGoesWithEverythingInIt) {
  mace::testing::TempDir parent;
  fs::path path;
  {
    TempDir dir(parent.path(), "mace-test-");
    path = dir.path();
    EXPECT_EQ(path.parent_path(), fs::path(parent.path()));
    EXPECT_EQ(path.filename().string().rfind("mace-test-", 0), 0u);
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_all);
    fs::create_directories(path / "a" / "b");
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_THROW(TempDir(parent.file("missing"), "x-"), std::system_error);
}

}  // namespace
}  // namespace mace::os

// maced with its state directory on a full file system (a tmpfs of its own, filled to the
// last byte): a submit that cannot be recorded is refused and queues nothing, maced starts
// and answers while the disk is full, and everything works again once space is back.
// Needs root to mount the tmpfs.

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/maced_instance.h"
#include "support/count_of.h"

namespace mace::testing {
namespace {

using ::testing::HasSubstr;

class FullDiskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::getuid() != 0) GTEST_SKIP() << "needs root to mount a tmpfs for the state directory";
    std::filesystem::create_directories(dir_.file("state"));
    ASSERT_EQ(::mount("none", dir_.file("state").c_str(), "tmpfs", 0, "size=8m"), 0)
        << std::strerror(errno);
    mounted_ = true;
    dir_.write("spec.json", R"({"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct"})");
  }
  void TearDown() override {
    maced_.reset();
    if (mounted_) ::umount2(dir_.file("state").c_str(), MNT_DETACH);
  }

  // Fills the state directory's file system to its last byte.
  void fill() {
    std::FILE* f = std::fopen(dir_.file("state/filler").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    static const char block[4096] = {};
    while (std::fwrite(block, 1, sizeof block, f) == sizeof block && std::fflush(f) == 0) {
    }
    std::fclose(f);
    // What fwrite could not place in a whole block, byte by byte.
    f = std::fopen(dir_.file("state/filler2").c_str(), "wb");
    while (f && std::fputc('x', f) != EOF && std::fflush(f) == 0) {
    }
    if (f) std::fclose(f);
  }
  void unfill() {
    std::filesystem::remove(dir_.file("state/filler"));
    std::filesystem::remove(dir_.file("state/filler2"));
  }

  std::size_t runs_listed() { return count_of(maced_->mace({"list", "--json"}).out, "\"run_id\""); }

  TempDir dir_;
  bool mounted_ = false;
  std::unique_ptr<MacedInstance> maced_;
};

TEST_F(FullDiskTest, ASubmitThatCannotBeRecordedQueuesNothingAndMacedServesWhileFull) {
  maced_ = std::make_unique<MacedInstance>(dir_);
  auto first = maced_->mace({"submit", dir_.file("spec.json")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string id = first.out.substr(0, first.out.find('\n'));

  fill();
  auto refused = maced_->mace({"submit", dir_.file("spec.json")});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.err, HasSubstr("database or disk is full"));
  EXPECT_EQ(runs_listed(), 1u) << "a submit answered as failed left a run";

  // Restarted while the disk is still full, maced comes up and answers what it can.
  maced_.reset();
  maced_ = std::make_unique<MacedInstance>(dir_);
  EXPECT_EQ(runs_listed(), 1u);
  auto status = maced_->mace({"status", id});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(maced_->mace({"submit", dir_.file("spec.json")}).exit_code, 0);
  EXPECT_EQ(runs_listed(), 1u);

  unfill();
  auto again = maced_->mace({"submit", dir_.file("spec.json")});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(runs_listed(), 2u) << "the retried submit is the only second run";
}

}  // namespace
}  // namespace mace::testing

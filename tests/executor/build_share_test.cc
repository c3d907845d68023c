// A build's compile jobs fit what its executor gave it.

#include "executor/build_share.h"

#include <unistd.h>

#include <gtest/gtest.h>

namespace mace::executor {
namespace {

TEST(BuildShareTest, JobsAreTheCpusUnlessTheMemoryHoldsFewer) {
  EXPECT_EQ(compile_jobs({.cpus = 8, .memory_mb = 0}), 8);
  EXPECT_EQ(compile_jobs({.cpus = 8, .memory_mb = 4096}), 4);
  EXPECT_EQ(compile_jobs({.cpus = 2, .memory_mb = 64 * 1024}), 2);
  EXPECT_EQ(compile_jobs({.cpus = 4, .memory_mb = 100}), 1);  // never none
  EXPECT_EQ(compile_jobs({.cpus = 0, .memory_mb = 0}), 1);
}

TEST(BuildShareTest, TheLocalMachineIsDividedBetweenTheBuildsOfABatch) {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const BuildShare alone = local_build_share(1);
  EXPECT_EQ(alone.cpus, cpus);
  EXPECT_GT(alone.memory_mb, 0);
  const BuildShare half = local_build_share(2);
  EXPECT_EQ(half.cpus, std::max(1L, cpus / 2));
  EXPECT_EQ(half.memory_mb, alone.memory_mb / 2);
  EXPECT_EQ(local_build_share(1000).cpus, 1);
  EXPECT_EQ(local_build_share(0).cpus, alone.cpus);
}

TEST(BuildShareTest, SlotsCountTheBuildsUnderWay) {
  LocalBuildSlot first;
  const int before = first.builds_under_way();
  {
    LocalBuildSlot second;
    EXPECT_EQ(second.builds_under_way(), before + 1);
  }
  LocalBuildSlot third;
  EXPECT_EQ(third.builds_under_way(), before + 1);  // the second one ended
}

}  // namespace
}  // namespace mace::executor

// Where the loop's words meet the OpenPiton adapter's (executor/adapter_bridge.h): every
// failure and every verdict the adapter reports has the loop's word.

#include "executor/adapter_bridge.h"

#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openpiton/builder.h"
#include "openpiton/failure.h"

namespace mace::executor {
namespace {

// Every failure the adapter has crosses with its own word; the switch that maps them is
// checked by the compiler, this checks that no case maps onto another word.
TEST(AdapterBridgeTest, EveryFailureOfTheAdapterKeepsItsWordInTheLoop) {
  for (int i = 0; i <= static_cast<int>(openpiton::Failure::killed_by_scheduler); ++i) {
    const auto failure = static_cast<openpiton::Failure>(i);
    EXPECT_EQ(to_string(loop_failure_reason(failure)), openpiton::to_string(failure)) << i;
  }
  EXPECT_EQ(loop_failure_reason(openpiton::Failure::none), FailureReason::none);
  EXPECT_EQ(openpiton::failure_from_string("disk_on_fire"), std::nullopt);
}

TEST(AdapterBridgeTest, VerdictsAndCoresCross) {
  for (auto v : {openpiton::Verdict::none, openpiton::Verdict::pass, openpiton::Verdict::fail,
                 openpiton::Verdict::timeout, openpiton::Verdict::maxcycles})
    EXPECT_EQ(to_string(loop_verdict(v)), openpiton::to_string(v));
  for (Core c : {Core::ariane, Core::sparc, Core::pico, Core::generic})
    EXPECT_EQ(openpiton::to_string(adapter_core(c)), to_string(c));
}

TEST(AdapterBridgeTest, ATasksConfigurationIsItsCachesDefinesAndTheRunsFlags) {  // REQ-EXEC-5, 6
  RunSpec spec;
  spec.core = Core::pico;
  spec.mesh_x = 2;
  spec.coverage = true;
  loop::TaskJob job;
  job.caches = {{"l1d", {16384, 4}}, {"l2", {131072, 8}}};
  job.defines = {"PITON_B", "PITON_A"};
  openpiton::BuildConfig config = build_config_for(spec, job);
  EXPECT_EQ(config.core, openpiton::Core::pico);
  EXPECT_EQ(config.x_tiles, 2);
  EXPECT_EQ(config.caches.l1d.size_bytes, 16384);
  EXPECT_EQ(config.caches.l2.associativity, 8);
  EXPECT_THAT(config.extra_flags, ::testing::ElementsAre("-vlt_build_args=--coverage-line"));
  EXPECT_THAT(config.rtl_defines, ::testing::Contains("PITON_A"));
  CacheGeometry back = loop_caches(config.caches);
  EXPECT_EQ(back.at("l1d"), (CacheOverride{16384, 4}));
}

}  // namespace
}  // namespace mace::executor

// Where the loop's words meet the OpenPiton adapter's (executor/adapter_bridge.h): every
// failure reason the adapter documents and every verdict it reports has the loop's word,
// and a reason it does not document fails loudly.

#include "executor/adapter_bridge.h"

#include <stdexcept>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "openpiton/builder.h"
#include "openpiton/unit_test_env.h"
#include "replay/cached_task_calls.h"

namespace mace::executor {
namespace {

TEST(AdapterBridgeTest, EveryFailureReasonTheAdapterDocumentsIsKnown) {
  namespace bf = openpiton::build_failure;
  for (std::string_view reason :
       {bf::way_rule, bf::invalid_config, bf::budget_exhausted, bf::cancelled, bf::timeout,
        bf::launch_failed, bf::build_failed, bf::no_model_binary, bf::leftover_edits,
        openpiton::kUnitTestBadModulePath, openpiton::kUnitTestScaffoldFailed,
        openpiton::kUnitTestBuildFailed, openpiton::kTestbenchMismatch,
        // simulator.h's reasons
        std::string_view("invalid_request"), std::string_view("no_workloads"),
        std::string_view("workload_failed"), replay::kCacheMissReason}) {
    EXPECT_EQ(to_string(failure_reason_from_adapter(reason)), reason);
  }
  EXPECT_EQ(failure_reason_from_adapter(""), FailureReason::none);
}

TEST(AdapterBridgeTest, AnUndocumentedReasonIsMacesBugAndSaysSo) {
  try {
    failure_reason_from_adapter("disk_on_fire");
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("\"disk_on_fire\""));
  }
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

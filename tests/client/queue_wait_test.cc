// What a queued run waits for: in words from maced's checkouts and queue (unit), and as
// `mace status` of a real maced says it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/queue_wait.h"
#include "support/maced_instance.h"

namespace mace {
namespace {

using client::CheckoutView;
using client::queued_run_waits_for;
using ::testing::HasSubstr;

TEST(QueueWaitTest, NoCheckoutAtAll) {
  EXPECT_EQ(queued_run_waits_for({}, 0),
            "an OpenPiton checkout: maced has none (its configuration's \"checkouts\" is empty); "
            "the run starts once maced is started with one");
}

TEST(QueueWaitTest, EveryCheckoutBusyNamesTheRunsHoldingThem) {
  EXPECT_EQ(queued_run_waits_for({{"/a", "R1", ""}, {"/b", "R2", ""}, {"/c", "R1", ""}}, 2),
            "a free checkout: all 3 in use by R1, R2, after 2 runs queued before it");
}

TEST(QueueWaitTest, ACheckoutOnANodeThatTakesNoWorkIsNamedWithWhy) {
  EXPECT_EQ(queued_run_waits_for({{"/a", "R1", ""}, {"/b", "", "drained"}}, 0),
            "a free checkout: 1 in use by R1; node unavailable for /b (drained)");
}

TEST(QueueWaitTest, EveryCheckoutRefusedAtStartSaysWhyAndPointsAtDoctor) {
  EXPECT_EQ(queued_run_waits_for({{"/a", "", "", "not patched for Verilator 5"}}, 0),
            "an OpenPiton checkout maced can use: it refused every one it has when it started, "
            "/a (not patched for Verilator 5); `mace doctor` says what to do");
}

TEST(QueueWaitTest, ARefusedCheckoutBesideBusyOnesIsNamed) {
  EXPECT_EQ(queued_run_waits_for({{"/a", "R1", "", ""}, {"/b-B", "", "", "its path cannot be used"}}, 0),
            "a free checkout: 1 in use by R1; refused at start: /b-B (its path cannot be used)");
}

TEST(QueueWaitTest, AFreeCheckoutMeansItsTurn) {
  EXPECT_EQ(queued_run_waits_for({{"/a", "", ""}}, 1),
            "its turn: a checkout is free, after 1 run queued before it");
}

TEST(QueueWaitTest, StatusOfAQueuedRunSaysWhatItWaitsFor) {
  testing::TempDir dir;
  dir.write("spec.json", R"({"core": "pico", "workloads": ["hello"], "objective": "o"})");
  testing::MacedInstance maced(dir);  // no checkout configured
  auto submitted = maced.mace({"submit", dir.file("spec.json")});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  auto human = maced.mace({"status", id});
  EXPECT_THAT(human.out, HasSubstr("\nwaiting    for an OpenPiton checkout: maced has none"));
  EXPECT_THAT(human.out, ::testing::Not(HasSubstr("\nstarted ")));  // an empty field is not shown
  auto json = maced.mace({"status", id, "--json"});
  EXPECT_THAT(json.out, HasSubstr("\"waiting_for\":\"an OpenPiton checkout: maced has none"));
}

}  // namespace
}  // namespace mace

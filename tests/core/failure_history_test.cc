// Failures across runs (core/failure_history.h): grouped by signature, most frequent first,
// first and last seen, the configurations and workloads hit, and whether each was passed
// by a later run.

#include "core/failure_history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::ElementsAre;

ObservedResult failed(std::string run, int64_t at, std::string config, std::string workload, std::string line,
                      Verdict verdict = Verdict::fail) {
  return {std::move(run), at, std::move(config), std::move(workload), verdict, std::move(line)};
}
ObservedResult passed(std::string run, int64_t at, std::string config, std::string workload) {
  return {std::move(run), at, std::move(config), std::move(workload), Verdict::pass, ""};
}

TEST(FailureHistory, GroupsAcrossRunsBySignatureMostFrequentFirst) {
  const auto history = failure_history({
      failed("r1", 100, "pico 1x1; L2 128 KiB", "hello", "27669250 : Simulation -> FAIL(TIMEOUT)", Verdict::timeout),
      failed("r2", 200, "pico 1x1; L2 128 KiB", "hello", "30000000 : Simulation -> FAIL(TIMEOUT)", Verdict::timeout),
      failed("r3", 300, "pico 2x1; L2 128 KiB", "hello", "31000000 : Simulation -> FAIL(TIMEOUT)", Verdict::timeout),
      failed("r2", 200, "pico 1x1", "lw.S", "4498250 : Simulation -> FAIL(HIT BAD TRAP)"),
      passed("r1", 100, "pico 1x1", "hello"),
  });
  ASSERT_EQ(history.size(), 2u);
  const FailureHistoryEntry& timeout = history[0];
  EXPECT_EQ(timeout.signature, "timeout: N : Simulation -> FAIL(TIMEOUT)");
  EXPECT_EQ(timeout.occurrences, 3);
  EXPECT_EQ(timeout.runs, 3);
  EXPECT_EQ(timeout.first_run_id, "r1");
  EXPECT_EQ(timeout.first_at_ms, 100);
  EXPECT_EQ(timeout.last_run_id, "r3");
  EXPECT_EQ(timeout.error_line, "31000000 : Simulation -> FAIL(TIMEOUT)") << "the newest occurrence's line";
  EXPECT_THAT(timeout.configurations, ElementsAre("pico 1x1; L2 128 KiB", "pico 2x1; L2 128 KiB"));
  EXPECT_THAT(timeout.workloads, ElementsAre("hello"));
  EXPECT_EQ(history[1].signature, "fail: N : Simulation -> FAIL(HIT BAD TRAP)");
  EXPECT_EQ(history[1].runs, 1);
}

// A pass of the same configuration and workload in a later run closes that pair; a pass
// before the last failure, or of another configuration, does not.
TEST(FailureHistory, APassOfTheSameConfigurationInALaterRunCountsAsPassedLater) {
  const auto history = failure_history({
      failed("r2", 200, "A", "hello", "bad trap"),
      passed("r1", 100, "A", "hello"),      // before: does not count
      passed("r3", 300, "B", "hello"),      // another configuration
      failed("r2", 200, "C", "hello", "bad trap"),
      passed("r4", 400, "C", "hello"),      // later, same pair: passed later
      failed("r5", 400, "D", "hello", "bad trap"),
      passed("r4", 400, "D", "hello"),      // same millisecond, but r4 sorts before r5
  });
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].passed_later, 1);
  EXPECT_EQ(history[0].still_failing, 2);
}

TEST(FailureHistory, ListsAreBoundedButTotalsCountEverything) {
  std::vector<ObservedResult> results;
  for (int i = 0; i < 50; ++i)
    results.push_back(failed("r" + std::to_string(i), i, "config " + std::to_string(i), "w" + std::to_string(i), "x"));
  const auto history = failure_history(results);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].configurations.size(), kMaxHistoryConfigurations);
  EXPECT_EQ(history[0].configurations_total, 50);
  EXPECT_EQ(history[0].workloads.size(), kMaxHistoryWorkloads);
  EXPECT_EQ(history[0].workloads_total, 50);
  EXPECT_EQ(history[0].occurrences, 50);
}

TEST(FailureHistory, NoFailuresNoEntries) {
  EXPECT_TRUE(failure_history({passed("r1", 1, "A", "hello")}).empty());
  EXPECT_TRUE(failure_history({}).empty());
}

}  // namespace
}  // namespace mace

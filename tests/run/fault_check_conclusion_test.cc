// REQ-EVAL-11: a fault check ends caught or missed, naming the fault and what caught it,
// however its run came to an end.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/eval_run.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;

eval::JobInstructions source_fault() {
  eval::JobInstructions job;
  job.method = eval::Method::fault_check;
  job.fault = "pico_alu_sub_adds";
  job.fault_kind = eval::FaultKind::source;
  return job;
}

store::TaskRecord hello_failed() {
  store::TaskRecord task;
  task.task_id = "build";
  task.passed = false;
  task.failure_reason = FailureReason::workload_failed;
  task.build_outcome = BuildOutcome::succeeded;
  task.results = {{0, "hello", Verdict::fail, 1, "/runs/hello-1", 2.0}};
  return task;
}

TEST(FaultCheckConclusion, AFailedGateWorkloadCatchesTheFaultWhenTheRunEndedFailed) {
  const auto c = conclude_fault_check(source_fault(), RunState::failed, "iteration 1 failed", {hello_failed()}, {});
  EXPECT_EQ(c.outcome, RunOutcome::caught);
  EXPECT_EQ(c.state, RunState::failed);
  EXPECT_EQ(c.reason, "caught by hello (verdict fail): the source fault pico_alu_sub_adds");
}

TEST(FaultCheckConclusion, AFailedGateWorkloadCatchesTheFaultWhenTheRunRanOutOfIterations) {
  const auto c = conclude_fault_check(source_fault(), RunState::budget_exceeded,
                                      "iteration limit reached (1)", {hello_failed()}, {});
  EXPECT_EQ(c.outcome, RunOutcome::caught);
  EXPECT_THAT(c.reason, HasSubstr("caught by hello (verdict fail)"));
}

TEST(FaultCheckConclusion, ARunStoppedBeforeAnyDesignFailedConcludesNothing) {
  store::TaskRecord lost = hello_failed();
  lost.results.clear();
  lost.failure_reason = FailureReason::cancelled;
  const auto c = conclude_fault_check(source_fault(), RunState::budget_exceeded, "wall-clock limit", {lost}, {});
  EXPECT_EQ(c.outcome, RunOutcome::none);
  EXPECT_EQ(c.state, RunState::budget_exceeded);
  EXPECT_EQ(c.reason, "wall-clock limit");
}

TEST(FaultCheckConclusion, EveryGateWorkloadPassingMissesTheFault) {
  store::TaskRecord passed = hello_failed();
  passed.passed = true;
  passed.failure_reason = FailureReason::none;
  passed.results[0].verdict = Verdict::pass;
  const auto c = conclude_fault_check(source_fault(), RunState::passed, "", {passed}, {});
  EXPECT_EQ(c.outcome, RunOutcome::missed);
  EXPECT_EQ(c.reason, "missed: the source fault pico_alu_sub_adds passed every gate workload (hello pass)");
}

}  // namespace
}  // namespace mace::run

// BudgetTracker: the wall-clock, cost and iteration limits at and past their
// boundaries, the per-iteration records, and the build/simulation timeout caps.

#include "core/budget_tracker.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using namespace std::chrono_literals;
using Clock = BudgetTracker::Clock;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;
using testing::Optional;

const Clock::time_point kStart = Clock::time_point{} + 1000h;

Budget budget(int64_t iterations, double usd, int64_t wall_s) {
  Budget b;
  b.max_iterations = iterations;
  b.max_usd = usd;
  b.max_wall_s = wall_s;
  return b;
}

// ---------------------------------------------------------------- wall clock

TEST(BudgetTracker, FreshRunMayStartAnIteration) {
  BudgetTracker t(Budget{}, kStart);
  EXPECT_EQ(t.exceeded_before_iteration(kStart), std::nullopt);
  EXPECT_EQ(t.cost(), 0.0);
  EXPECT_EQ(t.iterations(), 0);
  EXPECT_THAT(t.records(), IsEmpty());
}

TEST(BudgetTracker, WallLimitJustBeforeBoundaryAllowsAnIteration) {
  // REQ-BUD-3
  BudgetTracker t(budget(10, 20.0, 60), kStart);
  EXPECT_EQ(t.exceeded_before_iteration(kStart + 60s - 1ns), std::nullopt);
}

TEST(BudgetTracker, WallLimitReachedExactlyEndsTheRun) {
  // REQ-BUD-3
  BudgetTracker t(budget(10, 20.0, 60), kStart);
  EXPECT_EQ(t.exceeded_before_iteration(kStart + 60s),
            "wall-clock limit reached: 60.000 s elapsed, budget.max_wall_s is 60");
}

TEST(BudgetTracker, WallLimitPassedEndsTheRun) {
  // REQ-BUD-3
  BudgetTracker t(budget(10, 20.0, 60), kStart);
  EXPECT_EQ(t.exceeded_before_iteration(kStart + 61500ms),
            "wall-clock limit reached: 61.500 s elapsed, budget.max_wall_s is 60");
}

TEST(BudgetTracker, HugeWallLimitDoesNotOverflow) {
  // max_wall_s has no upper bound in the spec.
  BudgetTracker t(budget(10, 20.0, std::numeric_limits<int64_t>::max()), kStart);
  EXPECT_EQ(t.exceeded_before_iteration(kStart + 24h * 365 * 50), std::nullopt);
  EXPECT_GT(t.time_left(kStart), 24h * 365 * 99);
  EXPECT_EQ(t.cap(7200s, kStart), 7200s);
}

// ---------------------------------------------------------------- cost

TEST(BudgetTracker, CostsOfEveryCallAreSummed) {
  // REQ-BUD-5: planner, task and triage calls all count.
  BudgetTracker t(budget(10, 20.0, 3600), kStart);
  t.add_cost(0.25);  // planner
  t.add_cost(1.50);  // task
  t.add_cost(0.0);   // a Claude reply carries no usage
  t.add_cost(0.75);  // triage
  EXPECT_DOUBLE_EQ(t.cost(), 2.5);
}

TEST(BudgetTracker, CostJustBelowLimitAllowsAnIteration) {
  // REQ-BUD-3
  BudgetTracker t(budget(10, 1.0, 3600), kStart);
  t.add_cost(0.5);
  t.add_cost(0.4999);
  EXPECT_EQ(t.exceeded_before_iteration(kStart), std::nullopt);
}

TEST(BudgetTracker, CostReachingLimitExactlyEndsTheRun) {
  // REQ-BUD-3, REQ-BUD-5
  BudgetTracker t(budget(10, 1.0, 3600), kStart);
  t.add_cost(0.5);
  t.add_cost(0.5);
  EXPECT_EQ(t.exceeded_before_iteration(kStart),
            "cost limit reached: $1.0000 spent, budget.max_usd is 1");
}

TEST(BudgetTracker, CostPastLimitEndsTheRun) {
  // REQ-BUD-3
  BudgetTracker t(budget(10, 2.5, 3600), kStart);
  t.add_cost(3.125);
  EXPECT_EQ(t.exceeded_before_iteration(kStart),
            "cost limit reached: $3.1250 spent, budget.max_usd is 2.5");
}

TEST(BudgetTracker, NegativeAndNanCostsCountAsZero) {
  // REQ-BUD-5: a bad report must not give money back or disable the check.
  BudgetTracker t(budget(10, 1.0, 3600), kStart);
  t.add_cost(0.5);
  t.add_cost(-10.0);
  t.add_cost(std::nan(""));
  EXPECT_DOUBLE_EQ(t.cost(), 0.5);
  t.add_cost(0.5);
  EXPECT_THAT(t.exceeded_before_iteration(kStart), Optional(HasSubstr("cost limit reached")));
}

TEST(BudgetTracker, InfiniteCostEndsTheRun) {
  BudgetTracker t(budget(10, 1.0, 3600), kStart);
  t.add_cost(std::numeric_limits<double>::infinity());
  EXPECT_THAT(t.exceeded_before_iteration(kStart), Optional(HasSubstr("cost limit reached")));
}

// ---------------------------------------------------------------- iterations

TEST(BudgetTracker, IterationLimitEndsTheRunOnlyOnceAllAreUsed) {
  // REQ-BUD-4
  BudgetTracker t(budget(2, 20.0, 3600), kStart);
  t.iteration_finished(false, kStart + 10s);
  EXPECT_EQ(t.exceeded_before_iteration(kStart + 10s), std::nullopt);
  t.iteration_finished(false, kStart + 20s);
  EXPECT_EQ(t.iterations(), 2);
  EXPECT_EQ(t.exceeded_before_iteration(kStart + 20s),
            "iteration limit reached: 2 of budget.max_iterations 2 iterations ended without "
            "a pass");
}

TEST(BudgetTracker, SeveralCausesAreAllGivenInOrder) {
  // REQ-BUD-3, REQ-BUD-4
  BudgetTracker t(budget(1, 1.0, 10), kStart);
  t.add_cost(2.0);
  t.iteration_finished(false, kStart + 12s);
  EXPECT_EQ(t.exceeded_before_iteration(kStart + 12s),
            "iteration limit reached: 1 of budget.max_iterations 1 iterations ended without a "
            "pass; wall-clock limit reached: 12.000 s elapsed, budget.max_wall_s is 10; cost "
            "limit reached: $2.0000 spent, budget.max_usd is 1");
}

// ---------------------------------------------------------------- records

TEST(BudgetTracker, RecordsEachIterationsCostAndWallTime) {
  // REQ-BUD-6
  BudgetTracker t(budget(10, 20.0, 3600), kStart);
  t.add_cost(0.5);
  t.add_cost(0.25);
  t.iteration_finished(false, kStart + 90s);
  t.add_cost(1.0);
  t.iteration_finished(true, kStart + 150500ms);
  t.add_cost(0.125);  // the post-mortem: counted in the total, in no iteration
  EXPECT_THAT(t.records(), ElementsAre(IterationRecord{1, 0.75, 90.0, false},
                                       IterationRecord{2, 1.0, 60.5, true}));
  EXPECT_DOUBLE_EQ(t.cost(), 1.875);
}

// ---------------------------------------------------------------- time left and caps

TEST(BudgetTracker, TimeLeftCountsDownFromTheLimit) {
  // REQ-BUD-11
  BudgetTracker t(budget(10, 20.0, 3600), kStart);
  EXPECT_EQ(t.time_left(kStart), 3600s);
  EXPECT_EQ(t.time_left(kStart + 3599s), 1s);
  EXPECT_EQ(t.time_left(kStart + 3600s), 0ms);
  EXPECT_EQ(t.time_left(kStart + 3601s), -1s);
}

TEST(BudgetTracker, TimeLeftRoundsDownSoItNeverOverstates) {
  // REQ-BUD-11
  BudgetTracker t(budget(10, 20.0, 3600), kStart);
  EXPECT_EQ(t.time_left(kStart + 3600s - 500us), 0ms);
  EXPECT_EQ(t.time_left(kStart + 3600s + 500us), -1ms);
}

TEST(BudgetTracker, CapIsTheDefaultWhileMoreTimeIsLeft) {
  // REQ-BUD-11
  BudgetTracker t(budget(10, 20.0, 36000), kStart);
  EXPECT_EQ(t.cap(7200s, kStart + 100s), 7200s);
}

TEST(BudgetTracker, CapIsTheTimeLeftWhenThatIsShorter) {
  // REQ-BUD-11
  BudgetTracker t(budget(10, 20.0, 3600), kStart);
  EXPECT_EQ(t.cap(7200s, kStart + 1000s), 2600s);
  EXPECT_EQ(t.cap(3600s, kStart), 3600s);
}

TEST(BudgetTracker, CapIsZeroOrLessOnceTheLimitHasPassed) {
  // REQ-BUD-11: the build or simulation must not start.
  BudgetTracker t(budget(10, 20.0, 3600), kStart);
  EXPECT_EQ(t.cap(7200s, kStart + 3600s), 0ms);
  EXPECT_LT(t.cap(7200s, kStart + 4000s), 0ms);
}

}  // namespace
}  // namespace mace

#pragma once
// The run's three limits (REQ-BUD-1) as the loop spends them: cost, wall-clock time and
// iterations, plus the per-iteration record REQ-BUD-6 asks for.
//
// Pure bookkeeping: the caller reads the clock and passes `now` in, so tests pin every
// boundary exactly and the loop decides when time is sampled.
//
// When the run ends with budget_exceeded (REQ-BUD-9), and the text it records:
//   * iterations (REQ-BUD-4): `max_iterations` iterations have finished and none passed.
//       "iteration limit reached: <n> of budget.max_iterations <n> iterations ended
//        without a pass"
//   * wall clock (REQ-BUD-3): at the check before an iteration, the time since `start`
//     is at or past `max_wall_s`.
//       "wall-clock limit reached: <s.sss> s elapsed, budget.max_wall_s is <n>"
//   * cost (REQ-BUD-3): at the check before an iteration, the summed cost is at or past
//     `max_usd`.
//       "cost limit reached: $<d.dddd> spent, budget.max_usd is <x>"
// Reaching a limit exactly counts as exceeding it: with zero time left no build or
// simulation may start (REQ-BUD-11), so the iteration could only spend planner money;
// with zero money left the next planner call is bound to go past the limit. When several
// causes hold they are all given, joined by "; ", in the order above.
//
// An iteration already in flight runs to completion: nothing here interrupts one, the
// loop only asks before starting the next. A pass ends the run with `passed` before the
// loop asks again, so exceeded_before_iteration assumes no iteration has passed.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/run_spec.h"

namespace mace {

// One finished iteration (REQ-BUD-6). `cost_usd` is what was spent between the end of
// the previous iteration (or the run's start) and this one's end; `wall_s` likewise.
struct IterationRecord {
  int number = 0;  // 1-based
  double cost_usd = 0.0;
  double wall_s = 0.0;
  bool passed = false;
  bool operator==(const IterationRecord&) const = default;
};

class BudgetTracker {
 public:
  using Clock = std::chrono::steady_clock;

  // `start` is the moment after the checksum check, where max_wall_s starts counting.
  BudgetTracker(const Budget& budget, Clock::time_point start);

  // Every planner, task and triage call's reported cost (REQ-BUD-5), and the
  // post-mortem's, which counts toward the total but comes after the last check. A
  // negative or NaN cost counts as 0.0, like a reply without usage: a backend's bad
  // report must neither give money back nor turn every later comparison false. An
  // infinite cost counts, and ends the run at the next check.
  void add_cost(double usd);

  // Closes the current iteration: its cost and time are what accrued since the
  // previous iteration ended (or since `start`), so the records sum to the run's total.
  void iteration_finished(bool passed, Clock::time_point now);

  // Why the run must end with budget_exceeded instead of starting another iteration,
  // or nullopt when it may start one. See the header comment for the texts.
  std::optional<std::string> exceeded_before_iteration(Clock::time_point now) const;

  // max_wall_s minus the time since `start`, rounded down so it never overstates what
  // is left; zero or negative once the limit has passed.
  std::chrono::milliseconds time_left(Clock::time_point now) const;

  // The timeout for a build or simulation (REQ-BUD-11): the smaller of its default and
  // the time left. Zero or less means the limit has passed and it must not start; the
  // task then fails with failure reason budget_exhausted.
  std::chrono::milliseconds cap(std::chrono::milliseconds default_limit,
                                Clock::time_point now) const;

  double cost() const { return cost_; }
  int iterations() const { return static_cast<int>(records_.size()); }
  const std::vector<IterationRecord>& records() const { return records_; }

 private:
  Budget budget_;
  Clock::time_point start_;
  double cost_ = 0.0;
  double cost_at_last_iteration_end_ = 0.0;
  Clock::time_point last_iteration_end_;
  std::vector<IterationRecord> records_;
};

}  // namespace mace

#include "core/budget_tracker.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mace {
namespace {

using std::chrono::duration;
using std::chrono::milliseconds;

std::string format(const char* fmt, auto... args) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// max_wall_s has no upper bound in the spec; past a century it means "no limit", and
// clamping keeps start + limit inside steady_clock's nanosecond range.
std::chrono::nanoseconds wall_limit(const Budget& budget) {
  constexpr int64_t kCenturyS = int64_t{100} * 365 * 24 * 3600;
  return std::chrono::seconds(std::min(budget.max_wall_s, kCenturyS));
}

double seconds_between(BudgetTracker::Clock::time_point from, BudgetTracker::Clock::time_point to) {
  return duration<double>(to - from).count();
}

}  // namespace

BudgetTracker::BudgetTracker(const Budget& budget, Clock::time_point start)
    : budget_(budget), start_(start), last_iteration_end_(start) {}

void BudgetTracker::add_cost(double usd) {
  if (std::isnan(usd) || usd < 0.0) return;
  cost_ += usd;
}

void BudgetTracker::iteration_finished(bool passed, Clock::time_point now) {
  IterationRecord record;
  record.number = iterations() + 1;
  record.cost_usd = cost_ - cost_at_last_iteration_end_;
  record.wall_s = seconds_between(last_iteration_end_, now);
  record.passed = passed;
  records_.push_back(record);
  cost_at_last_iteration_end_ = cost_;
  last_iteration_end_ = now;
}

std::optional<std::string> BudgetTracker::exceeded_before_iteration(Clock::time_point now) const {
  std::string reasons;
  auto add = [&reasons](const std::string& reason) {
    if (!reasons.empty()) reasons += "; ";
    reasons += reason;
  };
  if (iterations() >= budget_.max_iterations)
    add(format("iteration limit reached: %d of budget.max_iterations %lld iterations ended "
               "without a pass",
               iterations(), static_cast<long long>(budget_.max_iterations)));
  // Compared at full clock precision, not through time_left's rounding, so a run is not
  // ended a fraction of a millisecond early.
  if (now - start_ >= wall_limit(budget_))
    add(format("wall-clock limit reached: %.3f s elapsed, budget.max_wall_s is %lld",
               seconds_between(start_, now), static_cast<long long>(budget_.max_wall_s)));
  if (cost_ >= budget_.max_usd)
    add(format("cost limit reached: $%.4f spent, budget.max_usd is %g", cost_, budget_.max_usd));
  if (reasons.empty()) return std::nullopt;
  return reasons;
}

milliseconds BudgetTracker::time_left(Clock::time_point now) const {
  return std::chrono::floor<milliseconds>(start_ + wall_limit(budget_) - now);
}

milliseconds BudgetTracker::cap(milliseconds default_limit, Clock::time_point now) const {
  return std::min(default_limit, time_left(now));
}

}  // namespace mace

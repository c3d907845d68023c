#include "core/build_time_estimate.h"

#include <algorithm>
#include <cmath>

namespace mace {
namespace {

// The part of the compiling done before its pace is trusted.
constexpr double kPaceTrustedFrom = 0.1;
// How fast the predicted end follows the raw figures: after this long, a new figure has
// moved it about two thirds of the way.
constexpr double kFollowMs = 40000;

}  // namespace

BuildTimeEstimate::BuildTimeEstimate(std::optional<int64_t> typical_ms) : typical_ms_(typical_ms) {}

int64_t BuildTimeEstimate::update(int64_t elapsed_ms, int64_t compiling_ms, double fraction_done) {
  std::optional<double> by_history, by_pace;
  // A build already slower than its history: the history no longer says anything.
  if (typical_ms_ && *typical_ms_ > elapsed_ms)
    by_history = static_cast<double>(*typical_ms_ - elapsed_ms);
  const double done = std::clamp(fraction_done, 0.0, 1.0);
  if (fraction_done >= kPaceTrustedFrom)
    by_pace = static_cast<double>(std::max<int64_t>(0, compiling_ms)) * (1 - done) / done;
  std::optional<double> left = by_history ? by_history : by_pace;
  if (by_history && by_pace) left = (1 - done) * *by_history + done * *by_pace;
  if (!left) return end_ms_ ? std::max<int64_t>(0, std::llround(*end_ms_) - elapsed_ms) : -1;
  const double target = static_cast<double>(elapsed_ms) + *left;
  if (!end_ms_) {
    end_ms_ = target;
  } else {
    const double passed = static_cast<double>(std::max<int64_t>(0, elapsed_ms - last_elapsed_ms_));
    *end_ms_ += (target - *end_ms_) * (1 - std::exp(-passed / kFollowMs));
  }
  last_elapsed_ms_ = elapsed_ms;
  return std::max<int64_t>(0, std::llround(*end_ms_) - elapsed_ms);
}

}  // namespace mace

#include "evidence/retention.h"

#include <algorithm>

namespace mace::evidence {

RetentionPlan plan_retention(std::vector<RunEvidence> runs, const RetentionLimits& limits,
                             std::int64_t now_ms) {
  RetentionPlan plan;
  for (const auto& run : runs) plan.total_bytes += run.bytes;
  if (plan.total_bytes <= limits.max_total_bytes) return plan;
  std::sort(runs.begin(), runs.end(), [](const RunEvidence& a, const RunEvidence& b) {
    if (a.finished_at_ms != b.finished_at_ms) return a.finished_at_ms < b.finished_at_ms;
    return a.run_id < b.run_id;
  });
  std::uint64_t total = plan.total_bytes;
  for (const auto& run : runs) {
    if (total <= limits.max_total_bytes) break;
    if (!run.finished || run.bytes == 0) continue;
    if (now_ms - run.finished_at_ms < limits.protect_recent_ms) continue;
    plan.remove.push_back(run.run_id);
    plan.freed_bytes += run.bytes;
    total -= run.bytes;
  }
  plan.still_over = total > limits.max_total_bytes;
  return plan;
}

}  // namespace mace::evidence

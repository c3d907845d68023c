#pragma once
// The retention rule of the evidence archive: when the runs' kept files together take more
// than the archive's limit, the evidence of the runs that finished first goes first, a run
// at a time, until they fit. A run still queued or running, or one that finished within
// the protected window, is never touched, even when that leaves the archive over its limit
// (the caller says so). Pure: the caller reads what the store knows and removes what the
// plan names.

#include <cstdint>
#include <string>
#include <vector>

namespace mace::evidence {

struct RetentionLimits {
  std::uint64_t max_total_bytes = 10240ull << 20;
  // A run that finished less than this long ago keeps its evidence.
  std::int64_t protect_recent_ms = 24ll * 3600 * 1000;
};

struct RunEvidence {
  std::string run_id;
  bool finished = false;       // in a final state
  std::int64_t finished_at_ms = 0;
  std::uint64_t bytes = 0;     // what its kept files take on disk
};

struct RetentionPlan {
  std::vector<std::string> remove;  // oldest finished first
  std::uint64_t total_bytes = 0;    // before
  std::uint64_t freed_bytes = 0;
  // Over the limit after the plan, with nothing more the rule may remove.
  bool still_over = false;
};

RetentionPlan plan_retention(std::vector<RunEvidence> runs, const RetentionLimits& limits,
                             std::int64_t now_ms);

}  // namespace mace::evidence

#pragma once
// Failures across runs (`mace failures`): every simulated workload of many runs, grouped by
// failure signature (core/failure_signature.h) as a regression dashboard buckets them, the
// most frequent first, each with when it was first and last seen, the configurations and
// workloads it hit, and whether each of those configurations passed that workload in a
// later run: a signature no configuration has passed since is still open.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/verdict.h"

namespace mace {

// One workload a task simulated, in one run.
struct ObservedResult {
  std::string run_id;
  int64_t run_at_ms = 0;       // when the run was submitted: what "later" means
  std::string configuration;   // the task's configuration in words (configuration_text)
  std::string workload;
  Verdict verdict = Verdict::none;
  std::string error_line;
};

// Bounds of one signature's lists, so an answer stays small whatever the history holds.
inline constexpr std::size_t kMaxHistoryConfigurations = 10;
inline constexpr std::size_t kMaxHistoryWorkloads = 20;

struct FailureHistoryEntry {
  std::string signature;
  Verdict verdict = Verdict::none;
  std::string error_line;            // of its newest occurrence, as its transcript had it
  int64_t occurrences = 0;           // failed simulations
  int64_t runs = 0;                  // distinct runs
  std::string first_run_id, last_run_id;
  int64_t first_at_ms = 0, last_at_ms = 0;
  std::vector<std::string> configurations;  // most occurrences first, at most the bound
  int64_t configurations_total = 0;
  std::vector<std::string> workloads;       // the same
  int64_t workloads_total = 0;
  // Of its (configuration, workload) pairs: how many passed in a run after their last
  // failure, and how many have not passed since.
  int64_t passed_later = 0;
  int64_t still_failing = 0;
};

// `results` in any order; passes are what "passed later" is read from.
std::vector<FailureHistoryEntry> failure_history(const std::vector<ObservedResult>& results);

}  // namespace mace

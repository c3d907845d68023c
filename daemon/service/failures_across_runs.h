#pragma once
// `mace failures`: the failure signatures of many runs (core/failure_history.h), read from
// the runs the caller may read (caller.h: their own, or every run for an administrator or
// where others see everything), newest runs first and bounded in how many are read. Reads
// only the store it is given, so it is answered on the listing thread
// (maced/listing_thread.h), off the event loop.

#include <cstdint>
#include <string>
#include <vector>

#include "core/failure_history.h"
#include "service/caller.h"
#include "store/store.h"

namespace mace::service {

struct FailureQuery {
  int64_t since_ms = 0;   // runs submitted at or after; 0: any
  std::string core;       // "": any core
  int64_t max_runs = 0;   // the newest runs read, at most; 0: kDefaultFailureRuns
};

inline constexpr int64_t kDefaultFailureRuns = 1000;
inline constexpr int64_t kMaxFailureRuns = 5000;
// Signatures in one answer, the most frequent.
inline constexpr std::size_t kMaxFailureSignatures = 100;
// An error line in an answer, at most.
inline constexpr std::size_t kMaxFailureLineBytes = 1024;

struct FailureHistory {
  std::vector<FailureHistoryEntry> entries;  // at most kMaxFailureSignatures
  int64_t runs_read = 0;          // the runs whose results were read
  bool more_runs = false;         // runs in the window were left unread by max_runs
  int64_t signatures_total = 0;   // before the cut to kMaxFailureSignatures
};

// Throws RequestError (field "query.maxRuns") for a max_runs beyond kMaxFailureRuns.
void check_failure_query(const FailureQuery& query);

// check_failure_query, then the history.
FailureHistory failures_across_runs(const store::Store& store, OthersSee others_see, const FailureQuery& query,
                                    const Caller& caller);

}  // namespace mace::service

#pragma once
// The evidence archive's retention rule applied (evidence/retention.h): what each run's
// kept logs take is read from the store, the directories of the runs the rule names are
// removed, and each removal is recorded, in the files' rows (when and why: `mace logs`
// says so instead of "not found") and as a message in the run's own log. maced applies it
// when it starts and after each run ends, on its event loop.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "evidence/evidence_archive.h"
#include "service/clock.h"
#include "service/run_service.h"
#include "store/store.h"

namespace mace::service {

class EvidenceRetention {
 public:
  // `log` is maced's: what was removed, and an archive left over its limit.
  EvidenceRetention(store::Store& store, RunService& runs, const evidence::EvidenceArchive& archive,
                    std::ostream& log, Clock clock = system_now_ms);

  struct Report {
    std::vector<std::string> removed;  // run IDs
    std::uint64_t freed_bytes = 0;
    std::uint64_t total_bytes = 0;  // before
    bool still_over = false;
  };
  Report apply();

 private:
  store::Store& store_;
  RunService& runs_;
  const evidence::EvidenceArchive& archive_;
  std::ostream& log_;
  Clock clock_;
  bool said_over_ = false;  // the archive over its limit is said once, until it fits again
};

}  // namespace mace::service

#pragma once
// The Slurm jobs maced submitted, as the store keeps them (store/slurm_jobs.cc).

#include <cstdint>
#include <string>

namespace mace::store {

// One Slurm job maced submitted (store/slurm_jobs.cc).
struct SlurmJobRecord {
  std::string job_id;
  std::string comment;  // mace:<instance>:<token>, unique per job
  std::string run_id;
  std::string name;     // mace:<run>:<task>:<purpose>
  std::string node;
  std::string checkout;
  std::string purpose;
  int64_t submitted_at_ms = 0;
  int64_t ended_at_ms = 0;  // 0: not seen to end
  std::string state;
  std::string detail;
  bool operator==(const SlurmJobRecord&) const = default;
};

}  // namespace mace::store

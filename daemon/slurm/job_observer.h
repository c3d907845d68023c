#pragma once
// Who is told about the Slurm jobs a runner submits: maced records each job ID in the store
// and hands it to its keeper before it waits on the job, so a job is never left running
// unknown to everyone (docs/slurm.md).

#include <string>

namespace mace::slurm {

// One job as maced knows it.
struct SubmittedJob {
  std::string id;
  std::string name;     // mace:<run>:<label>:<purpose>
  std::string comment;  // mace:<instance>:<token>
  std::string node;
  std::string checkout;
  std::string purpose;  // "build", "simulate", ...
};

class JobObserver {
 public:
  virtual ~JobObserver() = default;
  // The job exists (it may still be pending). Called before the runner waits on it.
  virtual void submitted(const SubmittedJob& job) = 0;
  // The job is gone from its node (or Slurm forgot it); `state` is its last state
  // (COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, ...; "" when unknown) and `detail`
  // why it ended when that was not its command's own doing.
  virtual void ended(const SubmittedJob& job, const std::string& state,
                     const std::string& detail) = 0;
  // A node was found unable to take work: its checkouts should not be leased until it is
  // back.
  virtual void node_unavailable(const std::string& node, const std::string& why) = 0;
};

}  // namespace mace::slurm

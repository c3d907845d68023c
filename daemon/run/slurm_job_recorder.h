#pragma once
// What a run's Slurm jobs leave in its record: each job in the store before it is waited on
// (so a maced that dies is followed by one that cancels it), a line in the run's log when
// it starts and when it ends other than by its command's own doing, and everything passed
// on to maced's own observer (the keeper, the status of checkouts, nodes found down).

#include <functional>
#include <memory>
#include <string>

#include "run/run_recorder.h"
#include "slurm/job_observer.h"

namespace mace::run {

class SlurmJobRecorder final : public slurm::JobObserver {
 public:
  // `also` may be null. `iteration` says which iteration log lines belong to.
  SlurmJobRecorder(RunRecorder& recorder, std::shared_ptr<slurm::JobObserver> also,
                   std::function<int()> iteration);

  void submitted(const slurm::SubmittedJob& job) override;
  void ended(const slurm::SubmittedJob& job, const std::string& state,
             const std::string& detail) override;
  void node_unavailable(const std::string& node, const std::string& why) override;

 private:
  RunRecorder& recorder_;
  std::shared_ptr<slurm::JobObserver> also_;
  std::function<int()> iteration_;
};

}  // namespace mace::run

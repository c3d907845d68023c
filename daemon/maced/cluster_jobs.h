#pragma once
// maced's view of its Slurm cluster, shared by every run: which job runs on each checkout
// (for `mace status`), which nodes were found unable to take work (their checkouts are not
// leased until they are back), and the keeper told of every job (maced/keeper.h).
//
// Runs' threads report here (slurm::JobObserver); the event-loop thread reads. A node
// found down is asked after every `recheck` by a thread of its own, never the event loop's
// (a Slurm command may take seconds when slurmctld is busy); once it takes work again its
// checkouts are leased at the scheduler's next turn.

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "slurm/job_observer.h"
#include "slurm/slurm_commands.h"
#include "slurm/slurm_settings.h"

namespace mace {

class ClusterJobs final : public slurm::JobObserver {
 public:
  explicit ClusterJobs(const slurm::SlurmSettings& settings,
                       std::chrono::milliseconds recheck = std::chrono::seconds(10));
  ~ClusterJobs() override;

  void submitted(const slurm::SubmittedJob& job) override;
  void ended(const slurm::SubmittedJob& job, const std::string& state,
             const std::string& detail) override;
  void node_unavailable(const std::string& node, const std::string& why) override;

  // Why `node` takes no work, or nullopt when it is not known to be down.
  std::optional<std::string> node_down(const std::string& node) const;
  // The job running on the checkout at `path` now, if any.
  std::optional<slurm::SubmittedJob> job_on(const std::string& path) const;

 private:
  void recheck_loop();

  slurm::SlurmCommands commands_;
  std::chrono::milliseconds recheck_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::map<std::string, std::string> down_;                 // node -> why
  std::map<std::string, slurm::SubmittedJob> running_;      // checkout path -> its job
  bool stopping_ = false;
  std::thread rechecker_;
};

}  // namespace mace

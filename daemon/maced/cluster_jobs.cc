#include "maced/cluster_jobs.h"

#include <vector>

#include "maced/keeper.h"
#include "slurm/job_status.h"

namespace mace {

ClusterJobs::ClusterJobs(const slurm::SlurmSettings& settings, std::chrono::milliseconds recheck)
    : commands_(settings), recheck_(recheck) {
  rechecker_ = std::thread([this] { recheck_loop(); });
}

ClusterJobs::~ClusterJobs() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  rechecker_.join();
}

void ClusterJobs::submitted(const slurm::SubmittedJob& job) {
  keeper_job_started(job.id);
  std::lock_guard lock(mutex_);
  running_[job.checkout] = job;
}

void ClusterJobs::ended(const slurm::SubmittedJob& job, const std::string&, const std::string&) {
  keeper_job_ended(job.id);
  std::lock_guard lock(mutex_);
  if (auto it = running_.find(job.checkout); it != running_.end() && it->second.id == job.id)
    running_.erase(it);
}

void ClusterJobs::node_unavailable(const std::string& node, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    down_[node] = why;
  }
  wake_.notify_all();
}

std::optional<std::string> ClusterJobs::node_down(const std::string& node) const {
  std::lock_guard lock(mutex_);
  if (auto it = down_.find(node); it != down_.end()) return it->second;
  return std::nullopt;
}

std::optional<slurm::SubmittedJob> ClusterJobs::job_on(const std::string& path) const {
  std::lock_guard lock(mutex_);
  if (auto it = running_.find(path); it != running_.end()) return it->second;
  return std::nullopt;
}

void ClusterJobs::recheck_loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (down_.empty())
      wake_.wait(lock, [&] { return stopping_ || !down_.empty(); });
    else
      wake_.wait_for(lock, recheck_, [&] { return stopping_; });
    if (stopping_) return;
    std::vector<std::string> nodes;
    for (const auto& [node, why] : down_) nodes.push_back(node);
    lock.unlock();
    std::vector<std::string> back;
    for (const auto& node : nodes) {
      try {
        if (auto status = commands_.node(node); status && slurm::accepts_work(*status))
          back.push_back(node);
      } catch (const slurm::CommandFailure&) {
        // Slurm cannot answer now; ask again next time.
      }
    }
    lock.lock();
    for (const auto& node : back) down_.erase(node);
  }
}

}  // namespace mace

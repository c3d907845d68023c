#include "run/slurm_job_recorder.h"

#include <chrono>

namespace mace::run {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "Slurm job 12 on n1: build of t1 (mace:run:t1:build)".
std::string job_words(const slurm::SubmittedJob& job) {
  return "Slurm job " + job.id + " on " + job.node + " (" + job.name + ")";
}

}  // namespace

SlurmJobRecorder::SlurmJobRecorder(RunRecorder& recorder, std::shared_ptr<slurm::JobObserver> also,
                                   std::function<int()> iteration)
    : recorder_(recorder), also_(std::move(also)), iteration_(std::move(iteration)) {}

void SlurmJobRecorder::submitted(const slurm::SubmittedJob& job) {
  // The keeper first: it is one write and cannot fail the way a full disk fails the store.
  if (also_) also_->submitted(job);
  try {
    recorder_.with_store([&](store::Store& store) {
      store.record_slurm_job({.job_id = job.id, .comment = job.comment, .run_id = recorder_.run_id(),
                              .name = job.name, .node = job.node, .checkout = job.checkout,
                              .purpose = job.purpose, .submitted_at_ms = now_ms(),
                              .ended_at_ms = 0, .state = "", .detail = ""});
    });
    recorder_.message(iteration_ ? iteration_() : 0, "", job_words(job) + " submitted");
  } catch (const std::exception&) {
    // The store refused (a full disk): the keeper and the comment still find the job.
  }
}

void SlurmJobRecorder::ended(const slurm::SubmittedJob& job, const std::string& state,
                             const std::string& detail) {
  if (also_) also_->ended(job, state, detail);
  try {
    recorder_.with_store([&](store::Store& store) {
      store.end_slurm_job(job.id, job.comment, now_ms(), state, detail);
    });
    if (!detail.empty())
      recorder_.message(iteration_ ? iteration_() : 0, "", job_words(job) + ": " + detail);
  } catch (const std::exception&) {
  }
}

void SlurmJobRecorder::node_unavailable(const std::string& node, const std::string& why) {
  if (also_) also_->node_unavailable(node, why);
  try {
    recorder_.message(iteration_ ? iteration_() : 0, "",
                      why + ": its checkouts are not given to runs until it is back");
  } catch (const std::exception&) {
  }
}

}  // namespace mace::run

#include "executor/gate_workloads.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "os/cancel_token.h"

namespace mace::executor {
namespace {

using namespace std::chrono_literals;

// What a task reports of the call that failed it.
struct CallFailure {
  openpiton::Failure reason = openpiton::Failure::none;
  std::string detail;
  std::string status_log;
  bool cannot_run = false;  // no design can run that workload
  bool cache_miss = false;
};

// The workloads' calls folded, in the spec's order, into the task's result: the serial rule.
class GateResult {
 public:
  explicit GateResult(bool run_every_workload) : run_every_workload_(run_every_workload) {}

  // Takes the next workload's call; false once no later workload may be taken.
  bool take(WorkloadCall call) {
    if (call.result.passed) {
      if (!failure_) all_.status_log = std::move(call.status_log);
      for (auto& run : call.result.runs) all_.result.runs.push_back(std::move(run));
      return true;
    }
    // The workload's own failure lets the next run with run_every_workload; the
    // infrastructure's, the budget's end and a cancel stop the task whatever it asked.
    const openpiton::WorkloadRunResult* last = call.result.runs.empty() ? nullptr : &call.result.runs.back();
    const bool workload_failed = last && !last->passed && last->host_stop == os::HostStop::none && !last->cancelled;
    const bool cannot_run = last && last->cannot_run != openpiton::Failure::none;
    // The first failure decides, unless a later workload cannot run on any design, or
    // something stopped the task (openpiton::deciding_failure).
    if (!failure_ || !workload_failed || (cannot_run && !failure_->cannot_run))
      failure_ = CallFailure{call.result.failure_reason, call.result.failure_detail, std::move(call.status_log),
                             cannot_run, call.cache_miss};
    for (auto& run : call.result.runs) all_.result.runs.push_back(std::move(run));
    return run_every_workload_ && workload_failed;
  }

  WorkloadCall finish() && {
    if (!failure_) {
      all_.result.passed = true;
      return std::move(all_);
    }
    all_.result.passed = false;
    all_.result.failure_reason = failure_->reason;
    all_.cache_miss = failure_->cache_miss;
    all_.result.failure_detail = std::move(failure_->detail);
    all_.status_log = std::move(failure_->status_log);
    return std::move(all_);
  }

 private:
  bool run_every_workload_;
  WorkloadCall all_;
  std::optional<CallFailure> failure_;
};

// The workloads' calls, up to `at_once` under way, each on a thread of its own with a stop
// token of its own; taken in order by the calling thread.
class SideBySide {
 public:
  SideBySide(TaskCalls& calls, const TaskCallSite& site, const openpiton::SimulationRequest& request,
             const SideBySideLimit& limit)
      : calls_(calls), site_(site), request_(request), limit_(limit),
        at_once_(std::max<std::size_t>(1, limit.at_once)), footprint_(limit.footprint_bytes),
        flights_(request.workloads.size()) {}

  ~SideBySide() { stop_from(0); }
  SideBySide(const SideBySide&) = delete;
  SideBySide& operator=(const SideBySide&) = delete;

  // Workload i's call, once it has ended; starts later ones while there is room. Rethrows
  // what the call threw.
  WorkloadCall take(std::size_t i) {
    std::unique_lock lock(mutex_);
    for (;;) {
      // Judged before anything else starts: one at a time, the next starts only once this
      // one's verdict allows it.
      if (flights_[i].ended) break;
      // A cancelled run starts nothing new but the workload it waits for, which then says so.
      const bool cancelled = request_.cancel && request_.cancel->cancelled();
      while (running_ < simulations_at_once(limit_, footprint_) && next_ < flights_.size() &&
             (!cancelled || next_ <= i))
        launch(next_++);
      ended_.wait_for(lock, 100ms);
      // The run's cancel reaches every simulation under way through its own token.
      if (request_.cancel && request_.cancel->cancelled())
        for (auto& f : flights_)
          if (f.stop) f.stop->cancel();
    }
    lock.unlock();
    Flight& f = flights_[i];
    if (f.thread.joinable()) f.thread.join();
    if (f.error) std::rethrow_exception(f.error);
    return std::move(f.call);
  }

  // Stops every call from workload `first` on that has started, and waits for them: their
  // results are not reported.
  void stop_from(std::size_t first) {
    {
      std::lock_guard lock(mutex_);
      next_ = flights_.size();  // nothing more starts
      for (std::size_t j = first; j < flights_.size(); ++j)
        if (flights_[j].stop) flights_[j].stop->cancel();
    }
    for (std::size_t j = first; j < flights_.size(); ++j)
      if (flights_[j].thread.joinable()) flights_[j].thread.join();
  }

 private:
  struct Flight {
    std::thread thread;
    std::unique_ptr<os::CancelToken> stop;
    WorkloadCall call;
    std::exception_ptr error;
    bool ended = false;
  };

  // Called with the lock held.
  void launch(std::size_t i) {
    Flight& f = flights_[i];
    openpiton::SimulationRequest one = request_;
    one.workloads = {request_.workloads[i]};
    if (at_once_ > 1) {
      f.stop = std::make_unique<os::CancelToken>();
      if (request_.cancel && request_.cancel->cancelled()) f.stop->cancel();
      one.cancel = f.stop.get();
    }
    ++running_;
    f.thread = std::thread([this, i, one = std::move(one)] {
      WorkloadCall call;
      std::exception_ptr error;
      try {
        call = calls_.run_workload(site_, i, one);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        flights_[i].call = std::move(call);
        flights_[i].error = error;
        flights_[i].ended = true;
        for (const auto& run : flights_[i].call.result.runs)
          footprint_ = std::max(footprint_, run.peak_rss_bytes);
        --running_;
      }
      ended_.notify_all();
    });
  }

  TaskCalls& calls_;
  const TaskCallSite& site_;
  const openpiton::SimulationRequest& request_;
  const SideBySideLimit limit_;
  const std::size_t at_once_;
  std::int64_t footprint_;  // the largest peak seen so far; guarded by mutex_
  std::mutex mutex_;
  std::condition_variable ended_;
  std::vector<Flight> flights_;
  std::size_t running_ = 0, next_ = 0;
};

}  // namespace

std::size_t simulations_at_once(const SideBySideLimit& limit, std::int64_t footprint_bytes) {
  const std::size_t most = std::max<std::size_t>(1, limit.at_once);
  if (limit.memory_bytes <= 0 || footprint_bytes <= 0) return most;
  const auto fit = static_cast<std::size_t>(std::max<std::int64_t>(1, limit.memory_bytes / footprint_bytes));
  return std::min(most, fit);
}

WorkloadCall run_gate_workloads(TaskCalls& calls, const TaskCallSite& site,
                                const openpiton::SimulationRequest& request,
                                const std::function<void(const openpiton::WorkloadRunResult& run)>& on_run,
                                SideBySideLimit limit) {
  if (request.workloads.empty()) {
    WorkloadCall none;
    none.result.failure_reason = openpiton::Failure::no_workloads;
    none.result.failure_detail = "the request names no workload";
    return none;
  }
  GateResult gate(request.run_every_workload);
  SideBySide flights(calls, site, request, limit);
  for (std::size_t i = 0; i < request.workloads.size(); ++i) {
    WorkloadCall call = flights.take(i);
    if (on_run)
      for (const auto& run : call.result.runs) on_run(run);
    if (!gate.take(std::move(call))) {
      flights.stop_from(i + 1);
      break;
    }
  }
  return std::move(gate).finish();
}

}  // namespace mace::executor

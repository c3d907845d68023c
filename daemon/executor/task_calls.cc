#include "executor/task_calls.h"

#include <optional>

#include "openpiton/simulator.h"
#include "os/file_io.h"

namespace mace::executor {

BuildCall DirectTaskCalls::build(const TaskCallSite&, const openpiton::Checkout& checkout,
                                 const openpiton::BuildConfig& config,
                                 const openpiton::BuildOptions& options) {
  return {openpiton::build(checkout, config, options)};
}

WorkloadCall DirectTaskCalls::run_workload(const TaskCallSite&, std::size_t,
                                           const openpiton::SimulationRequest& request) {
  WorkloadCall call;
  call.result = openpiton::simulate_workloads(request);
  if (!call.result.runs.empty())
    call.status_log =
        os::read_file_end(call.result.runs.back().run_dir / "status.log", kStatusLogTailBytes);
  return call;
}

namespace {

// What a task reports of the call that failed it.
struct CallFailure {
  openpiton::Failure reason = openpiton::Failure::none;
  std::string detail;
  std::string status_log;
  bool cannot_run = false;  // no design can run that workload
  bool cache_miss = false;
};

}  // namespace

WorkloadCall run_gate_workloads(
    TaskCalls& calls, const TaskCallSite& site, const openpiton::SimulationRequest& request,
    const std::function<void(const openpiton::WorkloadRunResult& run)>& on_run) {
  WorkloadCall all;
  if (request.workloads.empty()) {
    all.result.failure_reason = openpiton::Failure::no_workloads;
    all.result.failure_detail = "the request names no workload";
    return all;
  }
  std::optional<CallFailure> failure;
  for (std::size_t i = 0; i < request.workloads.size(); ++i) {
    openpiton::SimulationRequest one = request;
    one.workloads = {request.workloads[i]};
    WorkloadCall call = calls.run_workload(site, i, one);
    if (on_run)
      for (const auto& run : call.result.runs) on_run(run);
    if (call.result.passed) {
      if (!failure) all.status_log = std::move(call.status_log);
      for (auto& run : call.result.runs) all.result.runs.push_back(std::move(run));
      continue;
    }
    // The workload's own failure lets the next run with run_every_workload; the
    // infrastructure's, the budget's end and a cancel stop the task whatever it asked.
    const openpiton::WorkloadRunResult* last =
        call.result.runs.empty() ? nullptr : &call.result.runs.back();
    const bool workload_failed = last && !last->passed && last->host_stop == os::HostStop::none && !last->cancelled;
    const bool cannot_run = last && last->cannot_run != openpiton::Failure::none;
    // The first failure decides, unless a later workload cannot run on any design, or
    // something stopped the task (openpiton::deciding_failure).
    if (!failure || !workload_failed || (cannot_run && !failure->cannot_run))
      failure = CallFailure{call.result.failure_reason, call.result.failure_detail,
                            std::move(call.status_log), cannot_run, call.cache_miss};
    for (auto& run : call.result.runs) all.result.runs.push_back(std::move(run));
    if (!(request.run_every_workload && workload_failed)) break;
  }
  if (!failure) {
    all.result.passed = true;
    return all;
  }
  all.result.passed = false;
  all.result.failure_reason = failure->reason;
  all.cache_miss = failure->cache_miss;
  all.result.failure_detail = std::move(failure->detail);
  all.status_log = std::move(failure->status_log);
  return all;
}

}  // namespace mace::executor

#include "executor/task_calls.h"

#include "openpiton/simulator.h"
#include "os/file_io.h"

namespace mace::executor {

openpiton::BuildResult DirectTaskCalls::build(const TaskCallSite&, const openpiton::Checkout& checkout,
                                              const openpiton::BuildConfig& config,
                                              const openpiton::BuildOptions& options) {
  return openpiton::build(checkout, config, options);
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

WorkloadCall run_gate_workloads(
    TaskCalls& calls, const TaskCallSite& site, const openpiton::SimulationRequest& request,
    const std::function<void(const openpiton::WorkloadRunResult& run)>& on_run) {
  WorkloadCall all;
  if (request.workloads.empty()) {
    all.result.failure_reason = "no_workloads";
    all.result.failure_detail = "the request names no workload";
    return all;
  }
  for (std::size_t i = 0; i < request.workloads.size(); ++i) {
    openpiton::SimulationRequest one = request;
    one.workloads = {request.workloads[i]};
    WorkloadCall call = calls.run_workload(site, i, one);
    if (on_run)
      for (const auto& run : call.result.runs) on_run(run);
    for (auto& run : call.result.runs) all.result.runs.push_back(std::move(run));
    all.status_log = std::move(call.status_log);
    if (!call.result.passed) {
      all.result.passed = false;
      all.result.failure_reason = call.result.failure_reason;
      all.result.failure_detail = call.result.failure_detail;
      return all;
    }
  }
  all.result.passed = true;
  return all;
}


}  // namespace mace::executor

#include "executor/task_calls.h"

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

}  // namespace mace::executor

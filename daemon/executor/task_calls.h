#pragma once
// The two remote calls a task makes, behind one interface so they can be tagged, cached
// and served from the cache (REQ-REPLAY-1..4) without the executor knowing: the build of
// its configuration, and the simulation of each gate workload, one call per workload.
// DirectTaskCalls makes them through the OpenPiton adapter; replay/cached_task_calls.h
// wraps any TaskCalls with the cache.

#include <cstddef>
#include <string>

#include "openpiton/build_config.h"
#include "openpiton/builder.h"
#include "openpiton/checkout.h"
#include "openpiton/simulator.h"

namespace mace::executor {

// Which task of which iteration makes a call: with the phase, the call's tag.
struct TaskCallSite {
  int iteration = 0;
  std::string task_id;
  // Non-empty for a narrowing rebuild of task_id (REQ-FAIL-12), which makes its own calls.
  std::string narrowing = {};
};

// A build. A bypassed call the cache has no entry for (REQ-REPLAY-4) is a failure of the
// call, not of the adapter: cache_miss, and an empty result that says why.
struct BuildCall {
  openpiton::BuildResult result;
  bool cache_miss = false;
};

// One gate workload's simulation, and the tail of its status.log, which triage shows
// (REQ-FAIL-2) and which lives in the run directory, so a result served from the cache
// must carry it.
struct WorkloadCall {
  openpiton::SimulationResult result;  // runs: 0 or 1
  std::string status_log;
  bool cache_miss = false;  // as BuildCall's
};

class TaskCalls {
 public:
  virtual ~TaskCalls() = default;
  virtual BuildCall build(const TaskCallSite& site, const openpiton::Checkout& checkout,
                          const openpiton::BuildConfig& config,
                          const openpiton::BuildOptions& options) = 0;
  // `request.workloads` holds one workload, the `index`-th gate workload (0: the first).
  virtual WorkloadCall run_workload(const TaskCallSite& site, std::size_t index,
                                    const openpiton::SimulationRequest& request) = 0;
};

class DirectTaskCalls final : public TaskCalls {
 public:
  BuildCall build(const TaskCallSite& site, const openpiton::Checkout& checkout,
                  const openpiton::BuildConfig& config,
                  const openpiton::BuildOptions& options) override;
  WorkloadCall run_workload(const TaskCallSite& site, std::size_t index,
                            const openpiton::SimulationRequest& request) override;
};

inline constexpr std::size_t kStatusLogTailBytes = 16 * 1024;

}  // namespace mace::executor

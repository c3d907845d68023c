#pragma once
// A task's build and workload runs through the replay cache (REQ-REPLAY-1..4): each call
// tagged by its site and phase, stored when its function is cached, served instead of
// executed when it is bypassed. A bypassed call with no entry (or one this MACE cannot
// read) fails its task with failure reason `cache_miss` and the tag in its error; the
// adapter is never called.

#include <map>
#include <mutex>
#include <string>

#include "executor/task_calls.h"
#include "replay/call_cache.h"

namespace mace::replay {

class CachedTaskCalls final : public executor::TaskCalls {
 public:
  CachedTaskCalls(CallCache& cache, executor::TaskCalls& inner, std::string mace_version)
      : cache_(cache), inner_(inner), mace_version_(std::move(mace_version)) {}

  executor::BuildCall build(const executor::TaskCallSite& site,
                            const openpiton::Checkout& checkout,
                            const openpiton::BuildConfig& config,
                            const openpiton::BuildOptions& options) override;
  executor::WorkloadCall run_workload(const executor::TaskCallSite& site, std::size_t index,
                                      const openpiton::SimulationRequest& request) override;

 private:
  // What built a model, for its runs' entries: the runs depend on the same sources.
  void remember(const std::string& build_id, const Provenance& provenance);
  Provenance provenance_of(const std::string& build_id);

  CallCache& cache_;
  executor::TaskCalls& inner_;
  std::string mace_version_;
  std::mutex mutex_;
  std::map<std::string, Provenance> builds_;
};

// The fingerprint a build in `checkout_root` would record now (openpiton's source
// fingerprint, with the Verilator its environment finds); "" when it cannot be taken.
std::string current_checkout_fingerprint(const std::string& checkout_root);

}  // namespace mace::replay

#include "replay/cached_task_calls.h"

#include "openpiton/sims_command.h"
#include "openpiton/source_fingerprint.h"
#include "os/environment.h"
#include "os/process_group.h"
#include "replay/tag.h"
#include "replay/values.h"

namespace mace::replay {
namespace {

executor::BuildCall build_miss(const std::string& build_id, const std::string& why) {
  executor::BuildCall call;
  call.cache_miss = true;
  call.result.build_id = build_id;
  call.result.message = why;
  call.result.error_lines = {why};
  return call;
}

executor::WorkloadCall run_miss(const std::string& why) {
  executor::WorkloadCall call;
  call.cache_miss = true;
  call.result.failure_detail = why;
  return call;
}

}  // namespace

executor::BuildCall CachedTaskCalls::build(const executor::TaskCallSite& site,
                                           const openpiton::Checkout& checkout,
                                           const openpiton::BuildConfig& config,
                                           const openpiton::BuildOptions& options) {
  const std::string tag =
      cache_.tag(site.iteration, site.task_id, narrowing_phase(kBuildFunction, site.narrowing));
  openpiton::BuildResult result;
  if (cache_.bypasses(kBuildFunction)) {
    try {
      store::CacheEntryRecord entry = cache_.serve(kBuildFunction, tag, checkout.root().string());
      result = parse_build_value(entry.value_json);
      remember(result.build_id, {entry.mace_version, entry.checkout_fingerprint, entry.verilator_version});
    } catch (const CacheMiss& miss) {
      return build_miss(openpiton::build_id(config), miss.what());
    } catch (const ValueError& e) {
      return build_miss(openpiton::build_id(config), std::string(e.what()) + " (tag " + tag + ")");
    }
    cache_.store(kBuildFunction, tag, build_value(result), provenance_of(result.build_id));
    return {result};
  }
  result = inner_.build(site, checkout, config, options).result;
  Provenance produced{mace_version_, result.fingerprint.digest, result.verilator.text};
  remember(result.build_id, produced);
  cache_.store(kBuildFunction, tag, build_value(result), produced);
  return {result};
}

executor::WorkloadCall CachedTaskCalls::run_workload(const executor::TaskCallSite& site,
                                                     std::size_t index,
                                                     const openpiton::SimulationRequest& request) {
  const std::string workload = request.workloads.empty() ? "" : request.workloads.front();
  const std::string tag = cache_.tag(site.iteration, site.task_id,
                                     narrowing_phase(run_phase(index, workload), site.narrowing));
  executor::WorkloadCall call;
  if (cache_.bypasses(kRunFunction)) {
    try {
      store::CacheEntryRecord entry =
          cache_.serve(kRunFunction, tag, request.checkout.root().string());
      call = parse_run_value(entry.value_json);
    } catch (const CacheMiss& miss) {
      return run_miss(miss.what());
    } catch (const ValueError& e) {
      return run_miss(std::string(e.what()) + " (tag " + tag + ")");
    }
  } else {
    call = inner_.run_workload(site, index, request);
  }
  cache_.store(kRunFunction, tag, run_value(call), provenance_of(request.build_id));
  return call;
}

void CachedTaskCalls::remember(const std::string& build_id, const Provenance& provenance) {
  std::lock_guard lock(mutex_);
  builds_[build_id] = provenance;
}

Provenance CachedTaskCalls::provenance_of(const std::string& build_id) {
  std::lock_guard lock(mutex_);
  auto it = builds_.find(build_id);
  return it != builds_.end() ? it->second : Provenance{mace_version_, "", ""};
}

std::string current_checkout_fingerprint(const std::string& checkout_root) {
  try {
    openpiton::Checkout checkout(checkout_root);
    std::string verilator;
    try {
      verilator = openpiton::detect_verilator_version(
          checkout.environment(os::inherited_environment())).text;
    } catch (const std::exception&) {
      // A checkout without Verilator still has sources to compare.
    }
    return openpiton::source_fingerprint(checkout, verilator).digest;
  } catch (const std::exception&) {
    return "";
  }
}

}  // namespace mace::replay

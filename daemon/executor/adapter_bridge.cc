#include "executor/adapter_bridge.h"

#include <stdexcept>
#include <string>

namespace mace::executor {

openpiton::Core adapter_core(Core core) {
  switch (core) {
    case Core::ariane: return openpiton::Core::ariane;
    case Core::sparc: return openpiton::Core::sparc;
    case Core::pico: return openpiton::Core::pico;
    case Core::generic: return openpiton::Core::generic;
  }
  throw std::logic_error("a core the adapter does not know");
}

openpiton::BuildConfig build_config_for(const RunSpec& spec, const loop::TaskJob& job) {
  openpiton::BuildConfig config;
  config.core = adapter_core(spec.core);
  config.x_tiles = spec.mesh_x;
  config.y_tiles = spec.mesh_y;
  for (openpiton::Cache cache : openpiton::kAllCaches) {
    auto it = job.caches.find(std::string(openpiton::to_string(cache)));
    if (it != job.caches.end())
      config.caches[cache] = {it->second.size, it->second.associativity};
  }
  config.rtl_defines = openpiton::normalise_defines(job.defines);
  config.network = job.task.network;
  config.extra_flags = extra_build_flags(spec);
  config.monitors = spec.monitors;
  return config;
}

CacheGeometry loop_caches(const openpiton::CacheSet& caches) {
  CacheGeometry out;
  for (openpiton::Cache c : openpiton::kAllCaches)
    out[std::string(openpiton::to_string(c))] = {caches[c].size_bytes, caches[c].associativity};
  return out;
}

Verdict loop_verdict(openpiton::Verdict verdict) {
  switch (verdict) {
    case openpiton::Verdict::none: return Verdict::none;
    case openpiton::Verdict::pass: return Verdict::pass;
    case openpiton::Verdict::fail: return Verdict::fail;
    case openpiton::Verdict::timeout: return Verdict::timeout;
    case openpiton::Verdict::maxcycles: return Verdict::maxcycles;
  }
  throw std::logic_error("a verdict the loop does not know");
}

namespace {

static_assert(openpiton::kTileCounterCount == kTileCounterCount, "the adapter's counters and the loop's differ");

TileCounter loop_counter(openpiton::TileCounter counter) {
  switch (counter) {
    case openpiton::TileCounter::core_requests: return TileCounter::core_requests;
    case openpiton::TileCounter::l15_requests_to_l2: return TileCounter::l15_requests_to_l2;
    case openpiton::TileCounter::l2_lookup_hits: return TileCounter::l2_lookup_hits;
    case openpiton::TileCounter::l2_lookup_misses: return TileCounter::l2_lookup_misses;
    case openpiton::TileCounter::noc1_flits: return TileCounter::noc1_flits;
    case openpiton::TileCounter::noc2_flits: return TileCounter::noc2_flits;
    case openpiton::TileCounter::noc3_flits: return TileCounter::noc3_flits;
  }
  throw std::logic_error("a tile counter the loop does not know");
}

}  // namespace

std::vector<RunInput> loop_inputs(const openpiton::RunInputs& inputs) {
  std::vector<RunInput> out;
  for (const auto& file : inputs.files) out.push_back({file.path, file.content});
  return out;
}

std::vector<TileFigures> loop_tiles(const std::optional<openpiton::TileFigures>& tiles) {
  std::vector<TileFigures> out;
  if (!tiles) return out;
  for (const auto& [tile, counts] : *tiles) {
    TileFigures figures{.tile = tile, .counts = {}};
    for (std::size_t i = 0; i < openpiton::kTileCounterCount; ++i)
      figures.counts[static_cast<std::size_t>(loop_counter(static_cast<openpiton::TileCounter>(i)))] = counts[i];
    out.push_back(figures);
  }
  return out;
}

FailureReason loop_failure_reason(openpiton::Failure failure) {
  using openpiton::Failure;
  switch (failure) {
    case Failure::none: return FailureReason::none;
    case Failure::way_rule: return FailureReason::way_rule;
    case Failure::invalid_config: return FailureReason::invalid_config;
    case Failure::budget_exhausted: return FailureReason::budget_exhausted;
    case Failure::cancelled: return FailureReason::cancelled;
    case Failure::timeout: return FailureReason::timeout;
    case Failure::launch_failed: return FailureReason::launch_failed;
    case Failure::build_failed: return FailureReason::build_failed;
    case Failure::no_model_binary: return FailureReason::no_model_binary;
    case Failure::leftover_edits: return FailureReason::leftover_edits;
    case Failure::invalid_request: return FailureReason::invalid_request;
    case Failure::no_workloads: return FailureReason::no_workloads;
    case Failure::workload_failed: return FailureReason::workload_failed;
    case Failure::workload_not_found: return FailureReason::workload_not_found;
    case Failure::workload_not_built: return FailureReason::workload_not_built;
    case Failure::sims_option_rejected: return FailureReason::sims_option_rejected;
    case Failure::unit_test_bad_module_path: return FailureReason::unit_test_bad_module_path;
    case Failure::unit_test_scaffold_failed: return FailureReason::unit_test_scaffold_failed;
    case Failure::unit_test_build_failed: return FailureReason::unit_test_build_failed;
    case Failure::testbench_mismatch: return FailureReason::testbench_mismatch;
    case Failure::node_failure: return FailureReason::node_failure;
    case Failure::out_of_memory: return FailureReason::out_of_memory;
    case Failure::never_started: return FailureReason::never_started;
    case Failure::killed_by_scheduler: return FailureReason::killed_by_scheduler;
  }
  throw std::logic_error("a failure the loop does not know");
}

openpiton::GenericCore generic_core(const CoreDescriptor& d) {
  openpiton::GenericCore core;
  core.name = d.name;
  core.isa = d.isa;
  core.top_module = d.top_module;
  core.files = d.files;
  core.reset_vector = d.reset_vector;
  core.link_script = d.link_script.value_or("");
  core.march = descriptor_march(d);
  core.protocol = d.memory_interface.protocol;
  core.ports = d.memory_interface.ports;
  core.parameters = d.parameters;
  return core;
}

loop::RtlEdits generic_tile_edits(const openpiton::GenericCore& core,
                                  const std::filesystem::path& checkout_root) {
  loop::RtlEdits edits;
  for (auto& file : openpiton::generic_tile_files(core, checkout_root))
    edits.files.push_back({std::move(file.path), std::move(file.content)});
  return edits;
}

}  // namespace mace::executor

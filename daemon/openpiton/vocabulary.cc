// The OpenPiton adapter's words for its enums (build_config.h's cores and caches,
// verdict.h, build_progress.h's phases, failure.h, tile_figures.h's counters), in one place, as core/vocabulary.cc
// holds the daemon's. Switches without a default: an enumerator without a word does not
// compile (-Werror=switch).
#include <optional>
#include <stdexcept>
#include <string_view>

#include "openpiton/build_config.h"
#include "openpiton/build_progress.h"
#include "openpiton/failure.h"
#include "openpiton/tile_figures.h"
#include "openpiton/verdict.h"

namespace mace::openpiton {

std::string_view to_string(Core core) {
  switch (core) {
    case Core::ariane: return "ariane";
    case Core::sparc: return "sparc";
    case Core::pico: return "pico";
    case Core::generic: return "generic";
  }
  throw std::invalid_argument("unknown core");
}

std::optional<Core> core_from_string(std::string_view name) {
  for (Core core : {Core::ariane, Core::sparc, Core::pico, Core::generic}) {
    if (to_string(core) == name) return core;
  }
  return std::nullopt;
}

std::string_view to_string(Cache cache) {
  switch (cache) {
    case Cache::l1i: return "l1i";
    case Cache::l1d: return "l1d";
    case Cache::l15: return "l15";
    case Cache::l2: return "l2";
  }
  throw std::invalid_argument("unknown cache");
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::none: return "none";
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::timeout: return "timeout";
    case Verdict::maxcycles: return "maxcycles";
  }
  return "none";
}

std::optional<Verdict> verdict_from_string(std::string_view s) {
  for (Verdict v : {Verdict::none, Verdict::pass, Verdict::fail, Verdict::timeout, Verdict::maxcycles}) {
    if (to_string(v) == s) return v;
  }
  return std::nullopt;
}

std::string_view to_string(BuildPhase phase) {
  switch (phase) {
    case BuildPhase::verilating: return "verilating";
    case BuildPhase::compiling: return "compiling";
    case BuildPhase::linking: return "linking";
  }
  return "verilating";
}

std::string_view to_string(Failure failure) {
  switch (failure) {
    case Failure::none: return "";
    case Failure::way_rule: return "way_rule";
    case Failure::invalid_config: return "invalid_config";
    case Failure::budget_exhausted: return "budget_exhausted";
    case Failure::cancelled: return "cancelled";
    case Failure::timeout: return "timeout";
    case Failure::launch_failed: return "launch_failed";
    case Failure::build_failed: return "build_failed";
    case Failure::no_model_binary: return "no_model_binary";
    case Failure::leftover_edits: return "leftover_edits";
    case Failure::invalid_request: return "invalid_request";
    case Failure::no_workloads: return "no_workloads";
    case Failure::workload_failed: return "workload_failed";
    case Failure::workload_not_found: return "workload_not_found";
    case Failure::workload_not_built: return "workload_not_built";
    case Failure::sims_option_rejected: return "sims_option_rejected";
    case Failure::unit_test_bad_module_path: return "unit_test_bad_module_path";
    case Failure::unit_test_scaffold_failed: return "unit_test_scaffold_failed";
    case Failure::unit_test_build_failed: return "unit_test_build_failed";
    case Failure::testbench_mismatch: return "testbench_mismatch";
    case Failure::node_failure: return "node_failure";
    case Failure::out_of_memory: return "out_of_memory";
    case Failure::never_started: return "never_started";
    case Failure::killed_by_scheduler: return "killed_by_scheduler";
  }
  return "";
}

std::optional<Failure> failure_from_string(std::string_view text) {
  // The enumerators are numbered from 0 and to_string names each, "" past the last: a
  // failure added at the end is read back without anyone changing this.
  for (int i = 0; i < 256; ++i) {
    const std::string_view name = to_string(static_cast<Failure>(i));
    if (name.empty() && i > 0) break;
    if (name == text) return static_cast<Failure>(i);
  }
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& out, Failure failure) {
  return out << (failure == Failure::none ? std::string_view("none") : to_string(failure));
}

Failure failure_of(os::HostStop stop) {
  switch (stop) {
    case os::HostStop::none: return Failure::none;
    case os::HostStop::node_failure: return Failure::node_failure;
    case os::HostStop::out_of_memory: return Failure::out_of_memory;
    case os::HostStop::never_started: return Failure::never_started;
    case os::HostStop::killed_by_scheduler: return Failure::killed_by_scheduler;
  }
  return Failure::none;
}

std::string_view to_string(TileCounter counter) {
  switch (counter) {
    case TileCounter::core_requests: return "core_requests";
    case TileCounter::l15_requests_to_l2: return "l15_requests_to_l2";
    case TileCounter::l2_lookup_hits: return "l2_lookup_hits";
    case TileCounter::l2_lookup_misses: return "l2_lookup_misses";
    case TileCounter::noc1_flits: return "noc1_flits";
    case TileCounter::noc2_flits: return "noc2_flits";
    case TileCounter::noc3_flits: return "noc3_flits";
  }
  return "";
}

std::optional<TileCounter> tile_counter_from_string(std::string_view text) {
  for (std::size_t i = 0; i < kTileCounterCount; ++i)
    if (to_string(static_cast<TileCounter>(i)) == text) return static_cast<TileCounter>(i);
  return std::nullopt;
}

}  // namespace mace::openpiton

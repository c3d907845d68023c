#include "openpiton/failure.h"

namespace mace::openpiton {

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
  // The enumerators are numbered from 0 and to_string names each; the last is the bound.
  for (int i = 0; i <= static_cast<int>(Failure::killed_by_scheduler); ++i)
    if (to_string(static_cast<Failure>(i)) == text) return static_cast<Failure>(i);
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

}  // namespace mace::openpiton

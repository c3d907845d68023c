#pragma once
// Gate workloads checked before a run is queued (`mace submit`, `mace spec check`): each
// must be one sims can run, found where it will look (openpiton::find_workload): maced's
// workloads directory for MACE's own programs, and each configured checkout's diags for a
// name with an extension. A misspelt name is refused naming it and the places looked,
// instead of failing every iteration of the run.

#include <filesystem>
#include <vector>

#include "core/field_error.h"
#include "core/run_spec.h"
#include "maced/config.h"

namespace mace {

FieldErrors check_spec_workloads(const RunSpec& spec, const std::filesystem::path& workloads_dir,
                                 const std::vector<CheckoutConfig>& checkouts);

}  // namespace mace

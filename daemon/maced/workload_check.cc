#include "maced/workload_check.h"

#include "executor/adapter_bridge.h"
#include "openpiton/checkout.h"
#include "openpiton/workload.h"

namespace mace {

FieldErrors check_spec_workloads(const RunSpec& spec, const std::filesystem::path& workloads_dir,
                                 const std::vector<CheckoutConfig>& checkouts) {
  std::vector<std::filesystem::path> diag_roots;
  for (const auto& checkout : checkouts)
    diag_roots.push_back(openpiton::Checkout(checkout.path).dv_root() / "verif" / "diag");
  FieldErrors errors;
  for (std::size_t i = 0; i < spec.workloads.size(); ++i) {
    const auto lookup = openpiton::find_workload(spec.workloads[i], executor::adapter_core(spec.core),
                                                 workloads_dir, diag_roots);
    if (!lookup.found && !lookup.problem.empty())
      errors.push_back({"workloads[" + std::to_string(i) + "]", lookup.problem});
  }
  return errors;
}

}  // namespace mace

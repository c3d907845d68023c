#include "slurm/slurm_settings.h"

namespace mace::slurm {

const StepResources& resources_for(const SlurmSettings& settings, StepKind kind,
                                   const std::string& core) {
  const auto& by_core = kind == StepKind::build ? settings.build_by_core : settings.simulate_by_core;
  if (auto it = by_core.find(core); it != by_core.end()) return it->second;
  return kind == StepKind::build ? settings.build : settings.simulate;
}

}  // namespace mace::slurm

#pragma once
// A run's designs as `mace compare`, `mace status` and the report show them: a task of a
// run read from maced's answer as a compared design, and a run's own designs (the config
// tasks of its last iteration that built a configuration) side by side, the baseline (its
// task of OpenPiton's defaults) first.

#include <optional>
#include <string>

#include "design_comparison.h"
#include "mace.capnp.h"

namespace mace::client {

// One task of `run` as a design: configuration, area, build figures, verdicts and cycles.
ComparedDesign compared_design(api::RunDetail::Reader run, api::TaskState::Reader task);

// The designs of the run's last iteration, baseline first, when it has at least two;
// nothing otherwise (a run of one design compares with nothing of its own).
std::optional<Comparison> run_designs_comparison(api::RunDetail::Reader run);

}  // namespace mace::client

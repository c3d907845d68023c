#pragma once
// The one place where the loop's vocabulary meets the OpenPiton adapter's: cores, caches,
// build configurations, verdicts and failure reasons. The adapter depends on nothing of
// ours (REQ-PLAT-9), so it has words of its own; everything that crosses goes through here.

#include "core/failure_reason.h"
#include "core/plan_checks.h"
#include "core/run_spec.h"
#include "core/verdict.h"
#include "loop/run_loop.h"
#include "core/core_descriptor.h"
#include "core/run_input.h"
#include "openpiton/build_config.h"
#include "openpiton/failure.h"
#include "openpiton/generic_tile.h"
#include "openpiton/run_inputs.h"
#include "openpiton/tile_figures.h"
#include "openpiton/verdict.h"

namespace mace::executor {

openpiton::Core adapter_core(Core core);

// REQ-EXEC-5/6: a task's configuration is the run's core and mesh, the task's caches, the
// defines of the task and its dependencies, and the run's extra build flags (coverage).
openpiton::BuildConfig build_config_for(const RunSpec& spec, const loop::TaskJob& job);

// The adapter's cache set as the loop names caches ("l1i" → {size, associativity}).
CacheGeometry loop_caches(const openpiton::CacheSet& caches);

Verdict loop_verdict(openpiton::Verdict verdict);

// The adapter's tile figures as the loop keeps them, tile by tile in order; none: empty.
std::vector<TileFigures> loop_tiles(const std::optional<openpiton::TileFigures>& tiles);
// A failed run's inputs (openpiton/run_inputs.h) as the loop carries them.
std::vector<RunInput> loop_inputs(const openpiton::RunInputs& inputs);

// The adapter's failure as the loop names it. A switch without a default: a failure the
// adapter adds does not compile until it has the loop's word.
FailureReason loop_failure_reason(openpiton::Failure failure);

// The core descriptor as the adapter's Generic Tile takes it.
openpiton::GenericCore generic_core(const CoreDescriptor& descriptor);

// The files every build of a generic run carries (generic_tile_files), as RTL edits.
loop::RtlEdits generic_tile_edits(const openpiton::GenericCore& core,
                                  const std::filesystem::path& checkout_root);

}  // namespace mace::executor

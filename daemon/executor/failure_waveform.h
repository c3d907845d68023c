#pragma once
// The waveform around a failure (docs/failures.md), the executor's part: when a task's
// deciding gate workload failed at a known simulation time, the task's configuration is
// built once more as its traced variant (a model of its own: built once, then reused in the
// checkout or taken from the model store) and that workload simulated again with the cycles
// before the failure traced. The edits the task's build carried are still in the checkout,
// so the traced design is the failed one. Whatever goes wrong says why in the result and
// changes nothing of the task's verdicts or outcome.

#include <cstdint>

#include "loop/task_job.h"
#include "openpiton/build_config.h"
#include "openpiton/builder.h"
#include "openpiton/checkout.h"
#include "openpiton/simulator.h"

namespace mace::executor {

// How much is traced: maced's configuration and the spec (core/run_spec.h) decide.
struct WaveformSettings {
  std::int64_t window_cycles = 10'000;
  std::uint64_t max_bytes = std::uint64_t{64} << 20;
  int depth = 99;
};

struct FailureTraceRequest {
  const openpiton::Checkout& checkout;
  openpiton::BuildConfig config;             // the task's, with its edits' hash
  openpiton::BuildOptions build;             // as the task's build got them, without hooks
  openpiton::SimulationRequest simulation;   // the gate's; its workloads are replaced
  const openpiton::WorkloadRunResult& failed;
  WaveformSettings settings;
};

// Blocks the calling thread for a build (unless the traced model is reused) and one
// simulation. Never throws for what the tools or the files do.
loop::FailureWaveform trace_failure(const FailureTraceRequest& request);

// How many signals near the top the diagnosis prompt is told changed last, and how deep.
inline constexpr std::size_t kChangedLastSignals = 12;
inline constexpr std::size_t kChangedLastDepth = 6;  // TOP.cmp_top.system.chip.tile0.x: a tile's ports
inline constexpr std::size_t kChangedLastLineBytes = 300;  // a wide vector's value is cut

}  // namespace mace::executor

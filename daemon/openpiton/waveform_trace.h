#pragma once
// The waveform around a failure (docs/failures.md): a failed gate workload simulated once
// more on a traced variant of its model, writing a VCD of the cycles before the time its
// first simulation failed at, and no more.
//
// The traced variant is the task's configuration with Verilator's --trace added, so it has
// a build ID, a model directory and a model-store entry of its own: built once, reused by
// every later failure of that configuration. Its testbench main (piton/tools/verilator/
// my_top.cpp, once scripts/patch_openpiton.sh has patched it, step "wave") traces only when
// the environment names a file, and only within a window of simulation time:
//
//   MACE_WAVE_FILE=mace_wave.vcd        in the run directory
//   MACE_WAVE_FROM=<failure time - cycles x 500>   MACE_WAVE_TO=<failure time + 500>
//   MACE_WAVE_MAX_BYTES=<limit>         the file stops growing past about this
//   MACE_WAVE_DEPTH=<levels>            of the hierarchy
//
// and writes `mace_wave.vcd.status` when it stops tracing: `from=F to=T last=L end=E`, E
// one of window (the window was traced to its end), size (the limit stopped it at L) or
// finish (the simulation ended first, at L). Times are the verdict line's: 500 per cycle
// (sim_figures.h). An unpatched main writes no file, and the result says so.
//
// Only the C++ standard library and POSIX (REQ-PLAT-9).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "openpiton/build_config.h"
#include "openpiton/simulator.h"

namespace mace::openpiton {

inline constexpr std::string_view kTraceBuildFlag = "-vlt_build_args=--trace";
inline constexpr std::string_view kWaveFileName = "mace_wave.vcd";

// `config` with kTraceBuildFlag among its extra flags (once).
BuildConfig traced_config(BuildConfig config);

struct WaveWindow {
  std::int64_t failure_time = 0;  // the failed run's verdict time
  std::int64_t cycles = 0;        // traced before it, > 0
  std::uint64_t max_bytes = 0;    // of the file; 0: no limit
  int depth = 99;                 // hierarchy levels
  std::int64_t from() const;      // failure_time - cycles x 500, not below 0
  std::int64_t to() const;        // failure_time + one cycle
};

// What the traced main said when it stopped tracing.
struct WaveStatus {
  std::int64_t from = 0, to = 0, last = 0;
  std::string end;  // "window", "size" or "finish"
};
std::optional<WaveStatus> parse_wave_status(std::string_view text);

struct WaveTraceResult {
  WorkloadRunResult run;          // the traced simulation, judged as any other
  std::filesystem::path file;     // the VCD; empty when none was written
  std::optional<WaveStatus> status;
  std::uint64_t bytes = 0;
  // Why there is no waveform, for people; "" when there is one.
  std::string problem;
};

// Simulates the one workload of `request` (which names the traced model) with `window`
// traced. Never throws for what the simulation does: the result says why there is no file.
WaveTraceResult trace_workload(SimulationRequest request, const WaveWindow& window);

}  // namespace mace::openpiton

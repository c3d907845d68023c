#include "executor/failure_waveform.h"

#include "openpiton/waveform_trace.h"
#include "waveform/wave_query.h"

namespace mace::executor {
namespace {

using namespace std::chrono_literals;

// Why a failed run has no time to end a window at.
std::string no_time_reason(const openpiton::WorkloadRunResult& failed) {
  if (!failed.sims_invoked) return "its simulation never ran";
  if (failed.timed_out) return "its simulation was stopped by its wall-clock limit, before any verdict";
  if (failed.cancelled) return "the run was cancelled";
  return "its transcript gave no verdict time";
}

}  // namespace

loop::FailureWaveform trace_failure(const FailureTraceRequest& request) {
  const openpiton::WorkloadRunResult& failed = request.failed;
  loop::FailureWaveform w;
  w.workload = failed.workload;
  if (!failed.verdict_time) {
    w.problem = no_time_reason(failed);
    return w;
  }
  const openpiton::BuildResult built =
      openpiton::build(request.checkout, openpiton::traced_config(request.config), request.build);
  w.build_id = built.build_id;
  w.build_seconds = built.wall_seconds;
  w.model_reused = built.reused;
  if (!built.success) {
    w.problem = "the traced model did not build (" + built.message.substr(0, 2000) + ")";
    return w;
  }
  openpiton::SimulationRequest simulation = request.simulation;
  simulation.build_id = built.build_id;
  simulation.workloads = {failed.workload};
  simulation.on_workload_started = {};
  simulation.on_workload_finished = {};
  simulation.on_run_dir = {};
  const openpiton::WaveWindow window{.failure_time = *failed.verdict_time,
                                     .cycles = request.settings.window_cycles,
                                     .max_bytes = request.settings.max_bytes,
                                     .depth = request.settings.depth};
  const openpiton::WaveTraceResult traced = openpiton::trace_workload(simulation, window);
  w.sim_seconds = traced.run.wall_seconds;
  w.from_time = window.from();
  w.to_time = window.to();
  if (traced.file.empty()) {
    w.problem = traced.problem.substr(0, 2000);
    return w;
  }
  w.path = traced.file.string();
  w.bytes = traced.bytes;
  if (traced.status) {
    w.last_time = traced.status->last;
    w.end = traced.status->end;
  } else {
    w.end = "finish";
    w.note = "the traced model said nothing of how tracing ended";
  }
  if (traced.run.verdict != failed.verdict || traced.run.verdict_time != failed.verdict_time)
    w.note = "the traced simulation ended otherwise than the first: " +
             (traced.run.marker_line.empty() ? traced.run.error : traced.run.marker_line);
  try {
    for (const auto& c : waveform::changed_last(traced.file, kChangedLastDepth, kChangedLastSignals, 60s))
      w.changed_last.push_back((c.path + " -> " + c.value).substr(0, kChangedLastLineBytes) + " at " +
                               std::to_string(c.time));
  } catch (const waveform::WaveError& e) {
    w.note = std::string("the waveform does not read as a VCD: ") + e.what();
  }
  return w;
}

}  // namespace mace::executor

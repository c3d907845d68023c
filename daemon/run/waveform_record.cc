#include "run/waveform_record.h"

#include <cstdio>

#include "openpiton/sim_figures.h"
#include "os/text.h"

namespace mace::run {
namespace {

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", s);
  return text;
}

constexpr int64_t kTimePerCycle = openpiton::kVerilatorTimePerCycle;

}  // namespace

std::string waveform_line(const loop::FailureWaveform& w) {
  if (!w.captured()) return "no waveform of " + w.workload + ": " + w.problem;
  std::string line = "waveform of " + w.workload + ": cycles " + std::to_string(w.from_time / kTimePerCycle) +
                     " to " + std::to_string(w.last_time / kTimePerCycle) + " (" + os::mib_text(w.bytes) + ")";
  if (w.end == "size")
    line += ", cut at the size limit before the window's end (cycle " + std::to_string(w.to_time / kTimePerCycle) +
            "): ask for fewer cycles with \"waveform_cycles\"";
  line += std::string(", the traced model ") + (w.model_reused ? "reused in " : "built in ") +
          seconds_text(w.build_seconds) + ", simulated in " + seconds_text(w.sim_seconds);
  if (!w.note.empty()) line += "; " + w.note;
  return line;
}

void record_waveform(RunRecorder& recorder, LogKeeper& logs, const executor::TaskCallSite& site,
                     const loop::FailureWaveform& w, int64_t now_ms) {
  store::WaveformRecord record{.run_id = recorder.run_id(),
                               .iteration = site.iteration,
                               .task_id = site.task_id,
                               .workload = w.workload,
                               .from_time = w.from_time,
                               .to_time = w.to_time,
                               .last_time = w.last_time,
                               .end = w.end,
                               .bytes = static_cast<int64_t>(w.bytes),
                               .build_id = w.build_id,
                               .model_reused = w.model_reused,
                               .build_seconds = w.build_seconds,
                               .sim_seconds = w.sim_seconds,
                               .problem = w.problem,
                               .note = w.note,
                               .changed_last = w.changed_last,
                               .created_at_ms = now_ms};
  if (w.captured()) {
    const LogKeeper::KeptWaveform kept = logs.keep_waveform(site, w.workload, w.path);
    record.file_id = kept.file_id;
    record.path = kept.path;
  }
  recorder.with_store([&](store::Store& s) { s.record_waveform(record); });
  recorder.message(site.iteration, site.task_id, waveform_line(w));
}

}  // namespace mace::run

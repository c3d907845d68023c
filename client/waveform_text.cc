#include "waveform_text.h"

#include <cstdio>

#include "capnp_text.h"
#include "openpiton/sim_figures.h"
#include "os/text.h"

namespace mace::client {
namespace {

constexpr int64_t kTimePerCycle = openpiton::kVerilatorTimePerCycle;

}  // namespace

void write_json(JsonWriter& w, api::Waveform::Reader v) {
  w.begin_object();
  w.field("iteration", v.getIteration()).field("task_id", text(v.getTaskId()));
  w.field("workload", text(v.getWorkload())).field("file_id", v.getFileId());
  w.field("from_time", v.getFromTime()).field("to_time", v.getToTime()).field("last_time", v.getLastTime());
  w.field("end", text(v.getEndReason())).field("bytes", v.getBytes());
  w.field("build_id", text(v.getBuildId())).field("model_reused", v.getModelReused());
  w.field("build_seconds", v.getBuildSeconds()).field("sim_seconds", v.getSimSeconds());
  w.field("problem", text(v.getProblem())).field("note", text(v.getNote()));
  w.key("changed_last").begin_array();
  for (auto c : v.getChangedLast()) w.value(text(c));
  w.end_array();
  w.end_object();
}

std::string human_waveform(const std::string& run_id, api::Waveform::Reader v) {
  std::string out = "  iter" + std::to_string(v.getIteration()) + " " + text(v.getTaskId()) + " " +
                    text(v.getWorkload()) + ": ";
  if (!v.getFileId()) return out + text(v.getProblem()) + "\n";
  out += "mace wave " + run_id + " --iteration " + std::to_string(v.getIteration()) + " --task " +
         text(v.getTaskId()) + " --workload " + text(v.getWorkload()) + " -o " + text(v.getWorkload()) + ".vcd\n";
  out += "    cycles " + std::to_string(v.getFromTime() / kTimePerCycle) + " to " +
         std::to_string(v.getLastTime() / kTimePerCycle) + " (" + os::mib_text(v.getBytes()) + ")";
  if (text(v.getEndReason()) == "size") out += ", cut at the size limit before the failure";
  char cost[96];
  std::snprintf(cost, sizeof cost, "; the traced model %s in %.1f s, simulated in %.1f s",
                v.getModelReused() ? "reused" : "built", v.getBuildSeconds(), v.getSimSeconds());
  out += cost;
  out += "\n";
  if (v.getNote().size()) out += "    " + text(v.getNote()) + "\n";
  return out;
}

}  // namespace mace::client

#pragma once
// `evidence` in maced's configuration: where each run keeps its own copies of its logs, and
// how much (evidence/evidence_archive.h):
//
//   "evidence": {"path": "/srv/mace/runs", "max_mb": 10240, "max_log_mb": 64,
//                "keep_recent_hours": 24, "max_sim_output_mb": 4096, "keep_run_dirs": false,
//                "waveform": true, "waveform_cycles": 10000, "max_waveform_mb": 64}
//
// `path`: absolute; default <state directory>/runs. `max_mb`: what the runs' kept logs may
// take together (default 10240 MiB); beyond it the runs that finished first lose theirs,
// a run at a time. `max_log_mb`: the most kept of one log (default 64 MiB): a longer one
// keeps its head and tail and says what was cut. `keep_recent_hours`: a run that finished
// less than this long ago keeps its logs whatever the total (default 24; 0: only runs still
// going are kept whatever the total).
// `max_sim_output_mb`: the largest file one simulation may write in its checkout (its
// sim.log, above all; default 4096 MiB): a simulation that reaches it is stopped and fails,
// saying so, before the checkout's disk fills. `keep_run_dirs`: false (the default) removes
// a run's simulation directories from the checkouts when the run ends, once their logs are
// kept in its evidence (a directory whose log could not be kept stays); true leaves them
// for people to look at, and the checkouts' disk to whoever keeps them.
// `waveform`: true (the default) re-simulates a failed task's deciding workload once on a
// traced model and keeps the waveform of its last `waveform_cycles` cycles (default 10000;
// a spec may ask for another number up to 1000000) before the failure, at most
// `max_waveform_mb` of VCD (default 64 MiB; the traced main stops there and says so);
// false: none, whatever a spec says (docs/failures.md).

#include <cstdint>
#include <string>

#include <simdjson.h>

#include "core/field_error.h"

namespace mace {

struct EvidenceConfig {
  std::string path;  // empty: <state directory>/runs
  std::int64_t max_mb = 10240;
  std::int64_t max_log_mb = 64;
  std::int64_t keep_recent_hours = 24;
  std::int64_t max_sim_output_mb = 4096;
  bool keep_run_dirs = false;
  bool waveform = true;
  std::int64_t waveform_cycles = 10000;
  std::int64_t max_waveform_mb = 64;
};

void read_evidence_config(simdjson::dom::element value, EvidenceConfig& evidence, FieldErrors& errors);

}  // namespace mace

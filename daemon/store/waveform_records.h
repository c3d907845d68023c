#pragma once
// The waveform around a failed task's deciding workload as the store keeps it
// (store/waveform_records.cc; docs/failures.md, "The waveform around a failure").

#include <cstdint>
#include <string>
#include <vector>

namespace mace::store {

struct WaveformRecord {
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  std::string workload;
  int64_t file_id = 0;    // its log_files row (kind waveform); 0: none was written
  std::string path;       // where it is kept, else where it was written; "" when none
  int64_t from_time = 0;  // the window asked for, in simulation time (500 per cycle)
  int64_t to_time = 0;
  int64_t last_time = 0;  // the last time traced
  std::string end;        // window, size or finish; "" when none
  int64_t bytes = 0;
  std::string build_id;   // the traced model's
  bool model_reused = false;
  double build_seconds = 0;
  double sim_seconds = 0;
  std::string problem;    // why there is none
  std::string note;       // what is odd about one
  std::vector<std::string> changed_last;  // "<signal> -> <value> at <time>", latest first
  int64_t created_at_ms = 0;
  bool operator==(const WaveformRecord&) const = default;
};

}  // namespace mace::store

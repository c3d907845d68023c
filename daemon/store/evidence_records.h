#pragma once
// Each log of a run, its copy in the run's evidence, and what the kept copies take
// (store/evidence_records.cc).

#include <cstdint>
#include <string>

#include "core/run_state.h"

namespace mace::store {

// A build's transcript (workload "") or a simulation's sim.log: where it is written, and
// its copy in the run's evidence once its build or simulation has ended (migration 12).
struct LogFileRecord {
  int64_t id = 0;  // assigned by record_log_file
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  std::string narrowing;
  std::string workload;
  // The kept copy once kept; until then where it is written (source_path).
  std::string path;
  int64_t created_at_ms = 0;
  std::string kind;         // the evidence kind: build_log, sim_log
  std::string source_path;  // where it was written
  int64_t kept_at_ms = 0;   // 0: not (yet) kept
  int64_t original_bytes = 0;
  int64_t stored_bytes = 0;  // the copy on disk
  // When the per-log limit cut it: the bytes kept of its start and of its end.
  int64_t cut_head_bytes = 0;
  int64_t cut_tail_bytes = 0;
  bool compressed = false;
  std::string keep_error;     // why it was not kept
  int64_t removed_at_ms = 0;  // 0: not removed
  std::string removed_reason;
};

// What the kept copy of a log file is (evidence/kept_file.h's KeptFile, as stored).
struct KeptLogRecord {
  std::string path;
  int64_t kept_at_ms = 0;
  int64_t original_bytes = 0;
  int64_t stored_bytes = 0;
  int64_t cut_head_bytes = 0;
  int64_t cut_tail_bytes = 0;
  bool compressed = false;
};

// What a run's kept files take, for the retention rule.
struct RunEvidenceRecord {
  std::string run_id;
  RunState state = RunState::queued;
  int64_t finished_at_ms = 0;
  int64_t stored_bytes = 0;
};

}  // namespace mace::store

#pragma once
// What failure analysis leaves of a run: diagnoses, narrowing rebuilds, the post-mortem
// (store/failure_records.cc).

#include <cstdint>
#include <string>

#include "core/diagnosis_source.h"
#include "core/failure_reason.h"

namespace mace::store {

// A diagnosis as recorded (REQ-FAIL-8).
struct DiagnosisRecord {
  int64_t iteration = 0;
  std::string task_id;
  std::string label;
  std::string fix;
  DiagnosisSource source = DiagnosisSource::fallback;
  std::string evidence;
  bool recovered = false;
  int64_t created_at_ms = 0;
};

// A rebuild narrowing made (REQ-FAIL-12).
struct NarrowingBuildRecord {
  std::string run_id;
  int64_t iteration = 0;
  std::string task_id;
  std::string undone;
  std::string build_id;
  std::string checkout;
  bool passed = false;
  FailureReason failure_reason = FailureReason::none;
  int64_t created_at_ms = 0;
};

// REQ-FAIL-10: the run's post-mortem, when one came back with an assessment.
struct PostMortemRecord {
  std::string assessment;  // fixable_config, likely_hardware_limitation, inconclusive
  std::string explanation;
  std::string next_steps;
  int64_t created_at_ms = 0;
};

}  // namespace mace::store

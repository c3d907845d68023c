#pragma once
// What a replay is compared with and served from: the recorded run, as the store has it.

#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace mace::replay {

struct OriginalRun {
  store::RunRecord run;
  std::vector<store::LlmCallRecord> llm_calls;  // oldest first
  std::vector<store::IterationRecord> iterations;
  std::vector<store::TaskRecord> tasks;
  std::vector<store::DiagnosisRecord> diagnoses;
  std::vector<store::NarrowingBuildRecord> narrowing_builds;
  std::optional<store::PostMortemRecord> post_mortem;
};

// Throws std::runtime_error when the store has no such run.
OriginalRun load_original_run(const store::Store& store, const std::string& run_id);

}  // namespace mace::replay

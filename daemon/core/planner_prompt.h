#pragma once
// The planning prompt: everything the planner must know to write one iteration's plan,
// and the exact reply format the plan parser reads (REQ-PLAN-5..11). Every iteration's
// prompt is built from scratch out of the run's history, so nothing a later prompt must
// carry (REQ-PLAN-14, REQ-FAIL-13, REQ-EXEC-19) depends on an earlier prompt's text.

#include <cstddef>
#include <string>
#include <vector>

#include "core/run_spec.h"

namespace mace {

// A triage diagnosis from an earlier iteration of this run (REQ-PLAN-14).
struct PriorDiagnosis {
  int iteration = 0;
  std::string task_id;
  std::string label;
  std::string fix;
  std::string evidence_digest;  // digest_lines of what the diagnosis was drawn from
};

// The "= {}" initializers let callers name only the fields they set, with designated
// initializers, without g++ 12's -Wmissing-field-initializers.
struct PromptInputs {
  const RunSpec& spec;
  std::vector<PriorDiagnosis> diagnoses = {};  // every one so far, oldest first
  // digest_lines of the last failed task's build errors or simulation output
  // (REQ-FAIL-13); empty in the first iteration.
  std::string failure_digest = {};
  // Files the carried RTL edits touch (REQ-EXEC-19); empty when none are carried.
  std::vector<std::string> edited_files = {};
  // Those edits as a unified diff, quoted so the planner sees what changed, not only where.
  std::string edits_diff = {};
  // Why the previous reply in this iteration was rejected (REQ-PLAN-16); empty on the
  // first ask.
  std::vector<std::string> rejection_reasons = {};
  bool rtl_edits = false;  // whether `rtl` tasks are allowed (RunOptions::rtl_edits)
  // OpenPiton's default l1i/l1d/l15/l2 geometry as readable text; passed in so the
  // prompt states whatever the adapter actually builds with.
  std::string default_caches = {};
};

// Sections with nothing to say (no diagnoses, no edited files, no rejection) are left
// out, so the planner is not told about things that have not happened.
std::string planner_prompt(const PromptInputs& in);

// A bounded digest of output lines (REQ-FAIL-13): the first non-blank lines, whole, then
// "… N more lines" naming how many non-blank lines were left out, never longer than
// `max_bytes`. Blank lines are dropped: they carry nothing and would spend the budget.
// When not even the first line fits whole, as much of it as fits is shown, ending in
// "…". When not even the count fits, the digest is just "…" (or empty below 3 bytes):
// a cut count would misstate what was dropped.
std::string digest_lines(const std::vector<std::string>& lines, size_t max_bytes);

}  // namespace mace

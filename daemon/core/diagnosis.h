#pragma once
// Triage of a failed task (REQ-FAIL-1..4, REQ-FAIL-8): what the diagnosis call is told,
// how its reply is read, and the cases settled without an LLM call.
//
// The reply format asked for, read with the directive-line rule (directive_line.h):
//   DIAGNOSIS: <label>     a short lower_snake_case label, e.g. l2_too_small_for_mesh
//   FIX: <suggested fix>   one line; later lines up to the next directive belong to it
// A reply with no DIAGNOSIS line is recorded as `unknown` / `retry with more context`
// and the run goes on (REQ-FAIL-4).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/build_outcome.h"
#include "core/diagnosis_source.h"
#include "core/failure_reason.h"
#include "core/run_spec.h"
#include "core/task_kind.h"
#include "core/verdict.h"

namespace mace {

// Everything REQ-FAIL-2 says the diagnosis call gets, for the first failed task.
struct FailedTaskReport {
  std::string task_id;
  TaskKind kind = TaskKind::config;
  std::string instruction;
  std::vector<std::string> build_flags;  // caches, defines and extra flags, one per entry
  BuildOutcome build_outcome = BuildOutcome::none;
  std::optional<Verdict> verdict;        // of the last workload simulated; none when none ran
  FailureReason failure_reason = FailureReason::none;
  std::vector<std::string> error_lines;  // of a failed build
  std::string build_output_tail;         // of a failed build
  std::string sim_log_tail;              // of a failed run
  std::string status_log;                // of a failed run
  std::string rtl_diff = {};             // the edits the build carried, if any
  // An rtl task whose agent recorded no edit: its closing words (REQ-EXEC-16).
  std::string agent_without_edit = {};
  // What narrowing tried and saw, one line each, when it did not settle the cause.
  std::vector<std::string> narrowing = {};
  // The failed workload's waveform (docs/failures.md), when one was traced: its window in
  // simulation time and the signals near the top that changed last before its end.
  struct Waveform {
    std::string workload;
    int64_t from_time = 0, last_time = 0;
    std::vector<std::string> changed_last;  // "<signal> -> <value> at <time>", latest first
  };
  std::optional<Waveform> waveform = {};
};


struct Diagnosis {
  std::string label;
  std::string fix;
  DiagnosisSource source = DiagnosisSource::fallback;
  std::string evidence;  // what it was drawn from, digested, for later prompts
  bool operator==(const Diagnosis&) const = default;
};

// The prompt of the diagnosis call. `tools_offered`: the diagnostic tools came with the
// call, so the prompt says how to use them.
std::string diagnosis_prompt(const RunSpec& spec, const FailedTaskReport& report,
                             bool tools_offered);

// The DIAGNOSIS and FIX of a reply, source "llm"; nullopt when no DIAGNOSIS line holds a
// label. A label is cut to 80 characters; a missing FIX is "".
std::optional<Diagnosis> parse_diagnosis(std::string_view reply);

// REQ-FAIL-4: what is recorded when the reply has no diagnosis line, or no reply came.
Diagnosis fallback_diagnosis();

// REQ-FAIL-3: a unit_test build that failed on %Error-PINNOTFOUND is testbench_mismatch,
// without a call. nullopt for anything else.
std::optional<Diagnosis> rule_diagnosis(const FailedTaskReport& report);

// The evidence digest of a report: error lines, else the simulation's tail, bounded.
std::string evidence_digest(const FailedTaskReport& report, size_t max_bytes);

}  // namespace mace

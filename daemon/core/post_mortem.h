#pragma once
// The post-mortem of a run that ended without a pass (REQ-FAIL-10, REQ-FAIL-11): when it
// is asked for, what it is told, and how its reply is read.
//
// The reply format asked for, read with the directive-line rule (directive_line.h):
//   ASSESSMENT: fixable_config | likely_hardware_limitation | inconclusive
//   EXPLANATION: <text, may go on over several lines>
//   NEXT_STEPS: <text, may go on over several lines>
// A reply whose ASSESSMENT is missing or not one of the three is discarded; the run's
// status never depends on the post-mortem.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/planner_prompt.h"
#include "core/run_spec.h"
#include "core/run_state.h"

namespace mace {

inline constexpr std::string_view kAssessments[] = {"fixable_config", "likely_hardware_limitation",
                                                    "inconclusive"};

struct PostMortem {
  std::string assessment;  // one of kAssessments
  std::string explanation;
  std::string next_steps;
  bool operator==(const PostMortem&) const = default;
};

// REQ-FAIL-10: only for a run that ended failed or budget_exceeded after at least one
// iteration.
bool post_mortem_due(RunState final_state, int iterations);

struct PostMortemInputs {
  const RunSpec& spec;
  RunState final_state;
  std::string reason;  // why the run ended, as recorded
  int iterations = 0;
  std::vector<PriorDiagnosis> diagnoses = {};
  std::string last_failure_digest = {};
  bool tools_offered = false;
};

std::string post_mortem_prompt(const PostMortemInputs& in);

// nullopt when the reply has no valid ASSESSMENT (REQ-FAIL-11).
std::optional<PostMortem> parse_post_mortem(std::string_view reply);

}  // namespace mace

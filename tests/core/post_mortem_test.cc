#include "core/post_mortem.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace {
namespace {

using ::testing::HasSubstr;

// REQ-FAIL-10: only failed or budget_exceeded, and only after an iteration.
TEST(PostMortem, IsDueOnlyForFailedOrBudgetExceededAfterAnIteration) {
  EXPECT_TRUE(post_mortem_due(RunState::failed, 1));
  EXPECT_TRUE(post_mortem_due(RunState::budget_exceeded, 3));
  EXPECT_FALSE(post_mortem_due(RunState::budget_exceeded, 0));
  for (RunState s : {RunState::passed, RunState::planning_failed, RunState::checksum_mismatch,
                     RunState::error, RunState::cancelled, RunState::unsupported_core})
    EXPECT_FALSE(post_mortem_due(s, 2)) << to_string(s);
}

// REQ-FAIL-10: the request asks for one of the three assessments.
TEST(PostMortem, PromptAsksForTheThreeAssessmentsAndCarriesTheHistory) {
  RunSpec spec;
  spec.core = Core::sparc;
  spec.workloads = {"hello"};
  spec.objective = "Grow the mesh";
  PostMortemInputs in{.spec = spec, .final_state = RunState::budget_exceeded,
                      .reason = "iteration limit reached", .iterations = 2,
                      .diagnoses = {{1, "t1", "l2_too_small", "raise l2", ""}}};
  std::string p = post_mortem_prompt(in);
  for (const char* s : {"fixable_config", "likely_hardware_limitation", "inconclusive",
                        "budget_exceeded after 2 iterations", "iteration limit reached",
                        "l2_too_small", "raise l2", "ASSESSMENT:", "NEXT_STEPS:"})
    EXPECT_THAT(p, HasSubstr(s));
}

TEST(PostMortem, ReadsAssessmentExplanationAndNextSteps) {
  auto pm = parse_post_mortem(
      "## Post-mortem\n**ASSESSMENT:** Likely_Hardware_Limitation.\n"
      "EXPLANATION: the L2 cannot grow\npast its index width.\n"
      "- NEXT_STEPS: try a 2x2 mesh\n");
  ASSERT_TRUE(pm);
  EXPECT_EQ(pm->assessment, "likely_hardware_limitation");
  EXPECT_EQ(pm->explanation, "the L2 cannot grow\npast its index width.");
  EXPECT_EQ(pm->next_steps, "try a 2x2 mesh");
}

// REQ-FAIL-11: no assessment, or one outside the three, is discarded.
TEST(PostMortem, ReplyWithoutAValidAssessmentIsDiscarded) {
  EXPECT_FALSE(parse_post_mortem("EXPLANATION: something\nNEXT_STEPS: more"));
  EXPECT_FALSE(parse_post_mortem("ASSESSMENT: hopeless\nEXPLANATION: x"));
  EXPECT_FALSE(parse_post_mortem("ASSESSMENT:\n"));
  EXPECT_FALSE(parse_post_mortem(""));
}

}  // namespace
}  // namespace mace

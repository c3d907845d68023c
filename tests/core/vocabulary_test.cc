// The daemon's words (task kinds, stages, events, verdicts, build outcomes, failure
// reasons, run states): every one has a name, the names read back to the same word, and
// text no word has is refused rather than mapped to a default.

#include <gtest/gtest.h>

#include "core/build_outcome.h"
#include "core/dispatch.h"
#include "core/eval_state.h"
#include "core/event_kind.h"
#include "core/failure_reason.h"
#include "core/run_outcome.h"
#include "core/run_state.h"
#include "core/task_kind.h"
#include "core/task_stage.h"
#include "core/verdict.h"

namespace mace {
namespace {

// Walks the enumerators 0, 1, ... until to_string says there are no more.
template <typename Enum>
int round_trips(std::optional<Enum> (*parse)(std::string_view)) {
  int count = 0;
  for (int i = 0; i < 256; ++i) {
    const auto value = static_cast<Enum>(i);
    const std::string_view name = to_string(value);
    if (name.empty() && i > 0) break;
    EXPECT_EQ(parse(name), value) << name;
    ++count;
  }
  return count;
}

TEST(VocabularyTest, EveryWordHasANameThatReadsBack) {
  EXPECT_EQ(round_trips<TaskKind>(task_kind_from_string), 4);
  EXPECT_EQ(round_trips<TaskStage>(task_stage_from_string), 8);
  EXPECT_EQ(round_trips<EventKind>(event_kind_from_string), 10);
  EXPECT_EQ(round_trips<Verdict>(verdict_from_string), 5);
  EXPECT_EQ(round_trips<BuildOutcome>(build_outcome_from_string), 4);
  EXPECT_EQ(round_trips<FailureReason>(failure_reason_from_string), 29);
  EXPECT_EQ(round_trips<RunState>(run_state_from_string), 10);
  EXPECT_EQ(round_trips<PlannerKind>(planner_kind_from_string), 5);
  EXPECT_EQ(round_trips<RunOutcome>(run_outcome_from_string), 3);
  EXPECT_EQ(round_trips<Dispatch>(dispatch_from_string), 2);
  EXPECT_EQ(round_trips<EvalBatchState>(eval_batch_state_from_string), 3);
  EXPECT_EQ(round_trips<EvalJobState>(eval_job_state_from_string), 3);
}

TEST(VocabularyTest, UnknownTextIsRefused) {
  EXPECT_EQ(task_kind_from_string("Config"), std::nullopt);
  EXPECT_EQ(task_stage_from_string("simulating"), std::nullopt);
  EXPECT_EQ(event_kind_from_string(""), std::nullopt);
  EXPECT_EQ(verdict_from_string("PASS"), std::nullopt);
  EXPECT_EQ(failure_reason_from_string("disk_full"), std::nullopt);
  EXPECT_EQ(run_state_from_string("paused"), std::nullopt);
  EXPECT_EQ(eval_job_state_from_string("gave up"), std::nullopt);
}

TEST(VocabularyTest, TheEmptyWordsAreNoneAndReadBackSo) {
  EXPECT_EQ(to_string(FailureReason::none), "");
  EXPECT_EQ(failure_reason_from_string(""), FailureReason::none);
  EXPECT_EQ(to_string(BuildOutcome::none), "");
  EXPECT_EQ(describe(BuildOutcome::none), "not built");
  EXPECT_EQ(describe(BuildOutcome::reused), "reused");
}

TEST(VocabularyTest, OnlyReasonsOutsideTheDesignAreNotNarrowed) {  // REQ-FAIL-12
  for (FailureReason r : {FailureReason::budget_exhausted, FailureReason::cancelled,
                          FailureReason::executor_error, FailureReason::no_checkout,
                          FailureReason::cache_miss, FailureReason::node_failure,
                          FailureReason::never_started, FailureReason::killed_by_scheduler})
    EXPECT_TRUE(says_nothing_about_the_design(r)) << r;
  for (FailureReason r : {FailureReason::build_failed, FailureReason::workload_failed,
                          FailureReason::timeout, FailureReason::way_rule,
                          FailureReason::out_of_memory})
    EXPECT_FALSE(says_nothing_about_the_design(r)) << r;
}

}  // namespace
}  // namespace mace

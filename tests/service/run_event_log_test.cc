// A run's log for people: each verdict with its workload, a build's progress folded to
// the last line of each stretch, everything else as it was recorded.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/run_event_log.h"

namespace mace::service {
namespace {

store::EventRecord event(int64_t seq, EventKind kind, const std::string& task,
                         const std::string& message) {
  store::EventRecord e;
  e.seq = seq;
  e.at_ms = 1000 * seq;
  e.kind = kind;
  e.iteration = task.empty() ? 0 : 1;
  e.task_id = task;
  e.message = message;
  if (kind == EventKind::build_progress) e.stage = TaskStage::building;
  return e;
}

std::vector<std::string> texts(const std::vector<RunLogLine>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(std::to_string(l.seq) + " " + l.source + " " + l.text);
  return out;
}

TEST(RunLogTest, AVerdictNamesItsWorkloadAndVerdict) {
  auto verdict = event(1, EventKind::verdict, "build", "1.8 s");
  verdict.workload = "hello";
  verdict.verdict = Verdict::pass;
  EXPECT_THAT(texts(run_log({verdict})), ::testing::ElementsAre("1 iter1/build hello pass (1.8 s)"));
}

TEST(RunLogTest, EachStretchOfABuildsProgressIsFoldedToItsLastLine) {
  std::vector<store::EventRecord> events = {
      event(1, EventKind::state_changed, "", "running"),
      event(2, EventKind::build_progress, "a", "verilating"),
      event(3, EventKind::build_progress, "b", "verilating"),
      event(4, EventKind::build_progress, "a", "compiling 1/50 objects"),
      event(5, EventKind::build_progress, "b", "compiling 1/50 objects"),
      event(6, EventKind::build_progress, "a", "linking 50/50 objects"),
      event(7, EventKind::task_stage, "a", "running"),
      event(8, EventKind::build_progress, "b", "compiling 2/50 objects"),
      event(9, EventKind::task_stage, "b", "failed: build_failed"),
      event(10, EventKind::build_progress, "a", "verilating (narrowing: undo l1d)"),
  };
  events[6].stage = TaskStage::running;
  events[8].stage = TaskStage::failed;
  EXPECT_THAT(texts(run_log(events)),
              ::testing::ElementsAre("1 maced running", "6 iter1/a/building linking 50/50 objects",
                                     "7 iter1/a running",
                                     "8 iter1/b/building compiling 2/50 objects",
                                     "9 iter1/b failed: build_failed",
                                     "10 iter1/a/building verilating (narrowing: undo l1d)"));
}

}  // namespace
}  // namespace mace::service

// What `mace watch` keeps at the bottom of a terminal while a task simulates its gate
// workloads side by side: the workloads running, in the spec's order, and those judged.

#include "client/live_view.h"

#include <capnp/message.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mace::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class LiveViewTest : public ::testing::Test {
 protected:
  void event(api::EventKind kind, const std::string& workload = "", api::TaskStage stage = api::TaskStage::RUNNING) {
    capnp::MallocMessageBuilder message;
    auto e = message.initRoot<api::Event>();
    e.setKind(kind);
    e.setIteration(1);
    e.setTaskId("build");
    e.setStage(stage);
    e.setWorkload(workload);
    e.setAtMs(1000);
    view.on_event(e.asReader());
  }
  std::string task_line() const { return view.lines(2000, 200).at(1); }
  LiveView view;
};

TEST_F(LiveViewTest, ShowsTheWorkloadsRunningAtOnceUntilEachIsJudged) {
  event(api::EventKind::TASK_STAGE);
  event(api::EventKind::WORKLOAD_STARTED, "add.S");
  event(api::EventKind::WORKLOAD_STARTED, "and.S");
  EXPECT_THAT(task_line(), HasSubstr("0 workloads judged; running add.S and.S"));
  event(api::EventKind::VERDICT, "add.S");
  event(api::EventKind::WORKLOAD_STARTED, "beq.S");
  EXPECT_THAT(task_line(), HasSubstr("1 workload judged; running and.S beq.S"));
  event(api::EventKind::VERDICT, "and.S");
  event(api::EventKind::VERDICT, "beq.S");
  EXPECT_THAT(task_line(), HasSubstr("3 workloads judged"));
  EXPECT_THAT(task_line(), Not(HasSubstr("; running")));
}

// A simulation stopped by an earlier failure has no verdict: the task's next stage ends it.
TEST_F(LiveViewTest, ANewStageForgetsWhatWasRunning) {
  event(api::EventKind::TASK_STAGE);
  event(api::EventKind::WORKLOAD_STARTED, "add.S");
  event(api::EventKind::TASK_STAGE, "", api::TaskStage::BUILDING);
  EXPECT_THAT(task_line(), Not(HasSubstr("add.S")));
}

}  // namespace
}  // namespace mace::client

// What replay adds to a run, seen from the run layer: a task's prompt call cached and served
// by tag (REQ-REPLAY-1, 2), a bypassed call with no entry failing without being made
// (REQ-REPLAY-4), and a run that is not a replay left exactly as its loop ends it.

#include "run/run_replay.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/recorded_run.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;

class RunReplayTest : public testing::RecordedRunTest {
 protected:
  // A second run of the same store, submitted with `replay_json` as its spec's replay field.
  std::string submit_with_replay(const std::string& replay_json) {
    auto outcome = service_->submit_json(
        R"({"core": "pico", "mesh": [1, 1], "workloads": ["add.S"], "objective": "run add", )"
        R"("backend": "direct", "replay": )" + replay_json + "}",
        service::Caller{1000});
    EXPECT_THAT(outcome.errors, ::testing::IsEmpty());
    return outcome.run_id;
  }

  RunSpec spec_of(const std::string& run_id) {
    return *parse_run_spec_json(store_->find_run(run_id)->spec_json).spec;
  }

  static loop::PlannerReply reply(const std::string& text, double cost) {
    return {true, text, cost, ""};
  }
};

TEST_F(RunReplayTest, APromptCallIsStoredByTagAndServedToARunThatBypassesIt) {  // REQ-REPLAY-1, 2
  const std::string original = submit_with_replay(R"({"cache": ["prompt"]})");
  {
    RunRecorder recorder(*service_, *store_, [](const std::function<void()>& w) { w(); }, original);
    RunReplay replay(recorder, *store_->find_run(original), spec_of(original), {});
    int calls = 0;
    const auto made = replay.prompt(1, "t1", [&] {
      ++calls;
      return reply("PROMPT REPLY", 0.25);
    });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(made.text, "PROMPT REPLY");
  }
  const std::string again =
      submit_with_replay(R"({"cache": ["prompt"], "bypass": ["prompt"], "from": ")" + original + "\"}");
  RunRecorder recorder(*service_, *store_, [](const std::function<void()>& w) { w(); }, again);
  RunReplay replay(recorder, *store_->find_run(again), spec_of(again), {});
  const auto served = replay.prompt(1, "t1", [&] {
    ADD_FAILURE() << "a bypassed call was made";
    return reply("", 0);
  });
  EXPECT_TRUE(served.ok);
  EXPECT_EQ(served.text, "PROMPT REPLY");
  EXPECT_DOUBLE_EQ(served.cost_usd, 0.25);
}

TEST_F(RunReplayTest, ABypassedCallWithNoEntryFailsWithoutBeingMade) {  // REQ-REPLAY-4
  const std::string again =
      submit_with_replay(R"({"bypass": ["prompt"], "from": ")" + run_id_ + "\"}");
  RunRecorder recorder(*service_, *store_, [](const std::function<void()>& w) { w(); }, again);
  RunReplay replay(recorder, *store_->find_run(again), spec_of(again), {});
  const auto served = replay.prompt(1, "t1", [&] {
    ADD_FAILURE() << "a bypassed call was made";
    return reply("", 0);
  });
  EXPECT_FALSE(served.ok);
  EXPECT_THAT(served.error, HasSubstr("cache miss"));
  EXPECT_THAT(served.error, HasSubstr(run_id_ + "/iter1/t1/prompt"));
}

TEST_F(RunReplayTest, ARunThatIsNotAReplayKeepsItsObserverAndItsEnding) {
  RunReplay replay(*recorder_, *store_->find_run(run_id_), spec_of(run_id_), {"build", "run"});
  EXPECT_FALSE(replay.is_replay());
  EXPECT_FALSE(replay.stopping());
  struct Recording final : loop::LoopObserver {
  } recording;
  EXPECT_EQ(&replay.observer(recording), &recording);
  loop::LoopResult result;
  result.state = RunState::failed;
  result.reason = "gate workload add.S failed";
  const auto [state, reason] = replay.conclude(result);
  EXPECT_EQ(state, RunState::failed);
  EXPECT_EQ(reason, "gate workload add.S failed");
}

}  // namespace
}  // namespace mace::run

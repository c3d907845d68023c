// REQ-EVAL-7: what re-simulating a build-only run's accepted designs asks the executor for,
// and what it records of the answer.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/resimulation.h"

#include <map>

#include "loop/simulated_runner.h"

namespace mace::run {
namespace {

// Answers each job with the outcome given for its task, and keeps the jobs it was asked.
class AnsweringRunner final : public loop::testing::SimulatedRunner {
 public:
  std::map<std::string, loop::TaskOutcome> answers;  // by task id
  std::vector<loop::TaskJob> asked;
  int iteration = 0;
  AnsweringRunner() : SimulatedRunner(2) {
    outcome = [this](int it, const loop::TaskJob& job) {
      iteration = it;
      asked.push_back(job);
      return answers.at(job.task.id);
    };
  }
};

RecordingObserver::AcceptedDesign design(const std::string& id, TaskKind kind, const std::string& build_id) {
  RecordingObserver::AcceptedDesign d;
  d.job.task.id = id;
  d.job.task.kind = kind;
  d.job.simulate = false;  // the build-only check
  d.job.edits.files = {{"piton/design/a.v", "carried"}};
  d.outcome.passed = d.outcome.built = true;
  d.outcome.build_id = build_id;
  d.outcome.applied_edits.files = {{"piton/design/a.v", "carried"}, {"piton/design/b.v", "own"}};
  return d;
}

TEST(ResimulationTest, EachAcceptedDesignIsSimulatedWithoutAskingAnAgentAgain) {
  AnsweringRunner runner;
  loop::TaskOutcome config_answer, rtl_answer;
  config_answer.build_id = "mace_1";
  config_answer.verdicts = {{"hello", Verdict::pass, "/r/1", 1.5, 0}, {"memstress", Verdict::timeout, "/r/2", 9, 1}};
  rtl_answer.build_id = "";  // its build failed: nothing simulated
  runner.answers = {{"c", config_answer}, {"r", rtl_answer}};
  auto records = resimulate_accepted(runner, 3,
                                     {design("c", TaskKind::config, "mace_1"), design("r", TaskKind::rtl, "mace_2")},
                                     {"hello", "memstress"}, {});
  EXPECT_EQ(runner.iteration, 3);
  ASSERT_EQ(runner.asked.size(), 2u);
  EXPECT_TRUE(runner.asked[0].simulate);
  EXPECT_EQ(runner.asked[0].task.kind, TaskKind::config);
  EXPECT_EQ(runner.asked[0].edits.files.size(), 1u);  // the same edits: the model it built
  EXPECT_EQ(runner.asked[1].task.kind, TaskKind::config);  // no agent call for the rtl task
  EXPECT_EQ(runner.asked[1].edits.files.size(), 2u);       // the edits it applied

  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].task_id, "c");
  EXPECT_EQ(records[0].build_id, "mace_1");
  EXPECT_EQ(verdicts_text(records[0]), "hello=pass memstress=timeout");
  EXPECT_EQ(records[0].results[1].run_dir, "/r/2");
  EXPECT_EQ(records[1].build_id, "mace_2");  // the model the run accepted
  EXPECT_EQ(verdicts_text(records[1]), "hello=none memstress=none");
}

TEST(ResimulationTest, NoDesignAsksNothing) {
  AnsweringRunner runner;
  runner.iteration = -1;
  EXPECT_TRUE(resimulate_accepted(runner, 1, {}, {"hello"}, {}).empty());
  EXPECT_EQ(runner.iteration, -1);
}

}  // namespace
}  // namespace mace::run

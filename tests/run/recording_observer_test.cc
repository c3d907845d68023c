// What a run's loop reports, recorded: the task's row from its start to its end with its
// verdicts and edits (REQ-VER-13), the event `mace watch` shows, the designs an iteration
// accepted, diagnoses (REQ-FAIL-8) and the post-mortem (REQ-FAIL-10).

#include "run/recording_observer.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/recorded_run.h"

namespace mace::run {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class RecordingObserverTest : public testing::RecordedRunTest {
 protected:
  void SetUp() override {
    RecordedRunTest::SetUp();
    spec_ = *parse_run_spec_json(store_->find_run(run_id_)->spec_json).spec;
    observer_ = std::make_unique<RecordingObserver>(*recorder_, spec_);
    job_.task.id = "t1";
    job_.task.kind = TaskKind::config;
    job_.task.instruction = "double the L1D";
  }

  static loop::TaskOutcome passed_outcome() {
    loop::TaskOutcome outcome;
    outcome.task_id = "t1";
    outcome.passed = true;
    outcome.built = true;
    outcome.build_id = "mace_0123456789abcdef";
    outcome.checkout = "/srv/piton/0";
    outcome.edits_diff = "--- a/x.v\n+++ b/x.v\n";
    outcome.verdicts = {{"add.S", Verdict::pass, "/runs/t1/add.S", 1.5, 0}};
    return outcome;
  }

  const store::TaskRecord* task_row() {
    rows_ = store_->tasks(run_id_);
    return rows_.empty() ? nullptr : &rows_.front();
  }

  RunSpec spec_;
  std::unique_ptr<RecordingObserver> observer_;
  loop::TaskJob job_;
  std::vector<store::TaskRecord> rows_;
};

TEST_F(RecordingObserverTest, ATasksRowExistsFromItsStartAndEndsWithItsVerdicts) {  // REQ-VER-13
  observer_->iteration_started(1);
  observer_->task_started(1, job_);
  ASSERT_NE(task_row(), nullptr);
  EXPECT_EQ(task_row()->stage, TaskStage::pending);
  EXPECT_FALSE(task_row()->passed.has_value());
  EXPECT_EQ(task_row()->instruction, "double the L1D");

  observer_->task_finished(1, job_, passed_outcome());
  const store::TaskRecord* row = task_row();
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->stage, TaskStage::passed);
  EXPECT_EQ(row->passed, true);
  EXPECT_EQ(row->build_id, "mace_0123456789abcdef");
  EXPECT_EQ(row->rtl_edits, "--- a/x.v\n+++ b/x.v\n");
  ASSERT_THAT(row->results, SizeIs(1));
  EXPECT_EQ(row->results[0].workload, "add.S");
  EXPECT_EQ(row->results[0].verdict, Verdict::pass);
  EXPECT_GT(row->finished_at_ms, 0);
  EXPECT_GE(row->finished_at_ms, row->started_at_ms);
}

TEST_F(RecordingObserverTest, APassedBuiltTaskIsAnAcceptedDesignUntilTheNextIteration) {
  observer_->iteration_started(1);
  observer_->task_finished(1, job_, passed_outcome());
  ASSERT_THAT(observer_->accepted_designs(), SizeIs(1));
  EXPECT_EQ(observer_->accepted_designs()[0].job.task.id, "t1");
  ASSERT_THAT(observer_->passing_run_dirs(), SizeIs(1));
  EXPECT_EQ(observer_->passing_run_dirs()[0], "/runs/t1/add.S");

  observer_->iteration_started(2);
  EXPECT_EQ(observer_->current_iteration(), 2);
  EXPECT_THAT(observer_->accepted_designs(), IsEmpty());
  EXPECT_THAT(observer_->passing_run_dirs(), SizeIs(1));  // references outlive the iteration
}

TEST_F(RecordingObserverTest, AUnitTestOrAFailedTaskIsNoAcceptedDesign) {
  observer_->iteration_started(1);
  loop::TaskJob unit = job_;
  unit.task.kind = TaskKind::unit_test;
  observer_->task_finished(1, unit, passed_outcome());
  loop::TaskOutcome failed = passed_outcome();
  failed.passed = false;
  failed.failure_reason = FailureReason::workload_failed;
  failed.verdicts[0].verdict = Verdict::fail;
  failed.evidence = {"6943250: Simulation -> FAIL (HIT BAD TRAP)"};
  observer_->task_finished(1, job_, failed);
  EXPECT_THAT(observer_->accepted_designs(), IsEmpty());
  EXPECT_THAT(observer_->passing_run_dirs(), SizeIs(1));  // the unit test's pass
  // The event `mace watch` shows says why, with the first line of evidence.
  EXPECT_THAT(messages(), HasSubstr("failed: workload_failed: 6943250: Simulation -> FAIL"));
}

TEST_F(RecordingObserverTest, ADiagnosisAndThePostMortemAreRecordedAndLogged) {  // REQ-FAIL-8, 10
  observer_->iteration_started(1);
  observer_->diagnosed(1, "t1", {"l1d too small", "double it", DiagnosisSource::llm, "FAIL line"});
  const auto diagnoses = store_->diagnoses(run_id_);
  ASSERT_THAT(diagnoses, SizeIs(1));
  EXPECT_EQ(diagnoses[0].label, "l1d too small");
  EXPECT_EQ(diagnoses[0].source, DiagnosisSource::llm);
  EXPECT_FALSE(diagnoses[0].recovered);
  EXPECT_THAT(messages(), HasSubstr("diagnosis of t1 (llm): l1d too small; fix: double it"));

  observer_->failures_recovered();  // REQ-FAIL-9
  EXPECT_TRUE(store_->diagnoses(run_id_)[0].recovered);

  observer_->post_mortem_made({"inconclusive", "the L1D change helped", "try the L2"});
  const auto pm = store_->post_mortem(run_id_);
  ASSERT_TRUE(pm.has_value());
  EXPECT_EQ(pm->assessment, "inconclusive");
  EXPECT_THAT(messages(), HasSubstr("post-mortem: inconclusive: the L1D change helped"));
}

}  // namespace
}  // namespace mace::run

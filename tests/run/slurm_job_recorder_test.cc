// What a run's Slurm jobs leave in its record (REQ-EXEC-4): each job in the store before it
// is waited on, so a maced that dies is followed by one that cancels it; a line in the
// run's log when it starts and when it ends other than by its own doing; and everything
// passed on to maced's own observer first.

#include "run/slurm_job_recorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/recorded_run.h"

namespace mace::run {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

class KeptCalls final : public slurm::JobObserver {
 public:
  std::vector<std::string> calls;
  void submitted(const slurm::SubmittedJob& job) override { calls.push_back("submitted " + job.id); }
  void ended(const slurm::SubmittedJob& job, const std::string& state, const std::string&) override {
    calls.push_back("ended " + job.id + " " + state);
  }
  void node_unavailable(const std::string& node, const std::string&) override {
    calls.push_back("unavailable " + node);
  }
};

class SlurmJobRecorderTest : public testing::RecordedRunTest {
 protected:
  slurm::SubmittedJob build_job() const {
    return {.id = "17", .name = "mace:" + run_id_ + ":t1:build", .comment = "mace:m1:abc", .node = "n2",
            .checkout = "/scratch/b", .purpose = "build"};
  }

};

TEST_F(SlurmJobRecorderTest, AJobIsInTheStoreFromItsSubmissionUntilItEnds) {  // REQ-EXEC-4
  auto also = std::make_shared<KeptCalls>();
  SlurmJobRecorder jobs(*recorder_, also, [] { return 1; });
  jobs.submitted(build_job());
  ASSERT_EQ(store_->unended_slurm_jobs().size(), 1u);  // a maced that dies now leaves it named
  const auto submitted = store_->slurm_jobs(run_id_);
  ASSERT_EQ(submitted.size(), 1u);
  EXPECT_EQ(submitted[0].node, "n2");
  EXPECT_EQ(submitted[0].checkout, "/scratch/b");
  EXPECT_EQ(submitted[0].purpose, "build");
  EXPECT_THAT(messages(), HasSubstr("Slurm job 17 on n2 (mace:" + run_id_ + ":t1:build) submitted"));

  jobs.ended(build_job(), "COMPLETED", "");
  EXPECT_THAT(store_->unended_slurm_jobs(), IsEmpty());
  EXPECT_EQ(store_->slurm_jobs(run_id_)[0].state, "COMPLETED");
  EXPECT_THAT(messages(), Not(HasSubstr("COMPLETED")));  // its command's own end says nothing more
  EXPECT_THAT(also->calls, ElementsAre("submitted 17", "ended 17 COMPLETED"));
}

TEST_F(SlurmJobRecorderTest, AJobEndedByTheClusterAndALostNodeAreSaidInTheRunsLog) {
  auto also = std::make_shared<KeptCalls>();
  SlurmJobRecorder jobs(*recorder_, also, nullptr);
  jobs.submitted(build_job());
  jobs.ended(build_job(), "NODE_FAIL", "Slurm ended it NODE_FAIL");
  jobs.node_unavailable("n2", "node n2 is DOWN");
  const std::string log = messages();
  EXPECT_THAT(log, HasSubstr("Slurm job 17 on n2 (mace:" + run_id_ + ":t1:build): Slurm ended it NODE_FAIL"));
  EXPECT_THAT(log, HasSubstr("node n2 is DOWN: its checkouts are not given to runs until it is back"));
  EXPECT_EQ(store_->slurm_jobs(run_id_)[0].detail, "Slurm ended it NODE_FAIL");
  EXPECT_THAT(also->calls, ElementsAre("submitted 17", "ended 17 NODE_FAIL", "unavailable n2"));
}

}  // namespace
}  // namespace mace::run

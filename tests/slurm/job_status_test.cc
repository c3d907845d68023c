// What squeue and sinfo answer, read; and what a job's final state means for its command.
#include "slurm/job_status.h"

#include <gtest/gtest.h>

namespace mace::slurm {
namespace {

TEST(JobLine, ReadsEveryFieldSqueueWrites) {
  auto job = parse_job_line("12|FAILED|NonZeroExitCode|mace-node1|768|mace:abc:1-2|\n");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->id, "12");
  EXPECT_EQ(job->state, "FAILED");
  EXPECT_EQ(job->reason, "NonZeroExitCode");
  EXPECT_EQ(job->nodes, "mace-node1");
  EXPECT_EQ(job->wait_status, 768);
  EXPECT_EQ(job->comment, "mace:abc:1-2");
}

TEST(JobLine, NullFieldsAreEmptyAndAnUnknownExitCodeIsNone) {
  auto job = parse_job_line("7|PENDING|Resources|||(null)");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->nodes, "");
  EXPECT_FALSE(job->wait_status);
  EXPECT_EQ(job->comment, "");
}

TEST(JobLine, AnotherUsersCommentMayHoldBars) {
  auto job = parse_job_line("8|RUNNING|None|n2|0|a|b|c");
  ASSERT_TRUE(job);
  EXPECT_EQ(job->comment, "a|b|c");
}

TEST(JobLine, RefusesWhatIsNotAJobLine) {
  EXPECT_FALSE(parse_job_line(""));
  EXPECT_FALSE(parse_job_line("squeue: error: Invalid job id specified"));
  EXPECT_FALSE(parse_job_line("x|RUNNING|None|n|0|"));
  EXPECT_FALSE(parse_job_line("1|running|None|n|0|"));
  EXPECT_FALSE(parse_job_line("1|RUNNING|None"));
}

TEST(JobLines, KeepsOnlyTheLinesThatParse) {
  auto jobs = parse_job_lines("1|RUNNING|None|n|0|c\nnoise\n2|PENDING|Priority||0|d\n");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[1].id, "2");
  EXPECT_TRUE(is_pending(jobs[1]));
  EXPECT_TRUE(is_live(jobs[0]));
}

TEST(JobState, CompletingIsLiveAndEndedStatesAreNot) {
  JobStatus job;
  for (const char* live : {"PENDING", "RUNNING", "COMPLETING", "SUSPENDED", "CONFIGURING"}) {
    job.state = live;
    EXPECT_TRUE(is_live(job)) << live;
  }
  for (const char* ended : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                            "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}) {
    job.state = ended;
    EXPECT_FALSE(is_live(job)) << ended;
  }
}

TEST(JobState, ARequeuedJobLostItsWorkAndIsStillLive) {
  for (const char* state : {"REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED"}) {
    auto job = parse_job_line(std::string("12|") + state + "|NodeDown||||");
    ASSERT_TRUE(job) << state;
    EXPECT_TRUE(is_requeued(*job)) << state;
    EXPECT_TRUE(is_live(*job)) << state;
  }
  EXPECT_FALSE(is_requeued(*parse_job_line("12|PENDING|Resources||||")));
  EXPECT_FALSE(is_requeued(*parse_job_line("12|NODE_FAIL|NodeDown|n1|||")));
}

TEST(JobState, OnlyARunningJobTakesSteps) {
  EXPECT_TRUE(is_running(*parse_job_line("12|RUNNING|None|n1|||")));
  for (const char* state : {"PENDING", "COMPLETING", "NODE_FAIL", "CANCELLED"})
    EXPECT_FALSE(is_running(*parse_job_line(std::string("12|") + state + "|None|n1|||"))) << state;
}

TEST(JobState, ARefusalHadNoNodeAndACommandsOwnEndNeedsNoNodeCheck) {
  EXPECT_TRUE(refused_before_a_node(*parse_job_line("12|FAILED|BadConstraints||||")));
  EXPECT_FALSE(refused_before_a_node(*parse_job_line("12|FAILED|NonZeroExitCode|n1|256||")));
  EXPECT_TRUE(ended_by_its_command(*parse_job_line("12|COMPLETED|None|n1|0||")));
  EXPECT_TRUE(ended_by_its_command(*parse_job_line("12|FAILED|NonZeroExitCode|n1|256||")));
  EXPECT_FALSE(ended_by_its_command(*parse_job_line("12|NODE_FAIL|NodeDown|n1|||")));
  EXPECT_FALSE(ended_by_its_command(*parse_job_line("12|CANCELLED|None|n1|||")));
}

TEST(NodeLine, ReadsStateAndTheOperatorsReason) {
  auto node = parse_node_line("down*|disk died [root@2026-12-01T16:00:00]");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->state, "down*");
  EXPECT_EQ(node->reason, "disk died [root@2026-12-01T16:00:00]");
  EXPECT_EQ(parse_node_line("idle|none")->reason, "");
}

TEST(NodeState, OnlyKnownWorkingStatesAcceptWork) {
  for (const char* ok : {"idle", "mixed", "allocated", "completing", "planned"})
    EXPECT_TRUE(accepts_work({ok, ""})) << ok;
  for (const char* bad : {"down", "down*", "idle*", "drained", "draining", "fail", "maint",
                          "reserved", "unknown", "future", "idle~", "new-state"})
    EXPECT_FALSE(accepts_work({bad, ""})) << bad;
}

TEST(NodeState, IsDescribedWithItsReason) {
  EXPECT_EQ(describe_node("n1", {"down", "disk died"}), "node n1 is down (disk died)");
  EXPECT_EQ(describe_node("n1", {"drained", ""}), "node n1 is drained");
}

os::ProcessResult final_result(const std::string& state, const std::string& reason,
                               std::optional<int> status,
                               std::optional<NodeStatus> node_now = std::nullopt) {
  os::ProcessResult result;
  JobStatus job{.id = "5", .state = state, .reason = reason, .nodes = "n1",
                .wait_status = status, .comment = ""};
  apply_final_state(job, "n1", node_now, result);
  return result;
}

TEST(FinalState, ACommandsOwnExitIsItsExitCode) {
  auto ok = final_result("COMPLETED", "None", 0);
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.host_stop, os::HostStop::none);
  auto failed = final_result("FAILED", "NonZeroExitCode", 3 << 8);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.host_stop, os::HostStop::none);
  auto killed = final_result("FAILED", "JobLaunchFailure", 9);
  EXPECT_EQ(killed.term_signal, 9);
  EXPECT_EQ(killed.host_stop, os::HostStop::none);
}

TEST(FinalState, SlurmsTimeLimitIsATimeout) {
  auto result = final_result("TIMEOUT", "TimeLimit", 15);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.host_stop, os::HostStop::none);
}

TEST(FinalState, ANodeFailureNamesTheNodeAndItsReason) {
  auto result = final_result("NODE_FAIL", "NodeDown", 0, NodeStatus{"down", "disk died"});
  EXPECT_EQ(result.host_stop, os::HostStop::node_failure);
  EXPECT_NE(result.host_stop_detail.find("Slurm job 5 on node n1"), std::string::npos);
  EXPECT_NE(result.host_stop_detail.find("NodeDown"), std::string::npos);
  EXPECT_NE(result.host_stop_detail.find("node n1 is down (disk died)"), std::string::npos);
  EXPECT_FALSE(result.succeeded());
}

TEST(FinalState, MemoryAndOthersCancelsAreTheirOwnReasons) {
  EXPECT_EQ(final_result("OUT_OF_MEMORY", "OutOfMemory", 9).host_stop, os::HostStop::out_of_memory);
  EXPECT_EQ(final_result("CANCELLED", "None", 15).host_stop, os::HostStop::killed_by_scheduler);
  EXPECT_EQ(final_result("PREEMPTED", "None", 15).host_stop, os::HostStop::killed_by_scheduler);
  EXPECT_EQ(final_result("BOOT_FAIL", "None", 0).host_stop, os::HostStop::node_failure);
}

}  // namespace
}  // namespace mace::slurm

// Evaluation batches as the service keeps them, without maced: runs are ended by hand as a
// supervisor would end them.

#include "service/eval_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/service_error.h"
#include "support/child_process.h"

namespace mace::service {
namespace {

using ::testing::HasSubstr;

constexpr const char* kSuite = R"({"suite": "s", "tasks": [
  {"id": "a", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct"}, "expert": {}},
  {"id": "b", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct"}, "expert": {}}]})";

class EvalServiceTest : public ::testing::Test {
 protected:
  EvalServiceTest()
      : store_(store::Store::open(dir_.file("mace.db"))),
        runs_(*store_, {}, [this] { return ++now_; }),
        eval_(*store_, runs_, [this] { return ++now_; }) {
    runs_.set_on_final([this](const std::string&) { eval_.advance(); });
  }

  std::string submit() {
    eval::BatchRequest request;
    request.methods = {eval::Method::mace};
    auto outcome = eval_.submit(kSuite, request, 1000);
    EXPECT_TRUE(outcome.errors.empty());
    return outcome.batch_id;
  }
  // The run of the job under way; "" when none is.
  std::string current_run() {
    auto queued = store_->runs_in_states({RunState::queued, RunState::running});
    return queued.size() == 1 ? queued[0].id : "";
  }

  testing::TempDir dir_;
  int64_t now_ = 1'800'000'000'000;
  std::unique_ptr<store::Store> store_;
  RunService runs_;
  EvalService eval_;
  static constexpr Caller kOwner{1000, false};
};

// REQ-EVAL-3: one job at a time; a run ended in error is replaced, up to kMaxJobAttempts,
// then the job is given up; a run ended otherwise finishes its job.
TEST_F(EvalServiceTest, ErrorsAreRetriedAFixedNumberOfTimesAndOtherEndsFinishTheJob) {
  std::string batch = submit();
  std::string first = current_run();
  ASSERT_FALSE(first.empty());
  for (int attempt = 1; attempt <= kMaxJobAttempts; ++attempt) {
    std::string run = current_run();
    ASSERT_FALSE(run.empty()) << "attempt " << attempt;
    runs_.finish(run, RunState::error, "maced restarted during the run");
  }
  // The first job gave up; the second started and fails (a real failure, not an error).
  std::string second = current_run();
  ASSERT_FALSE(second.empty());
  runs_.finish(second, RunState::failed, "workload_failed");
  EXPECT_EQ(current_run(), "");
  auto view = eval_.view(batch, kOwner);
  EXPECT_EQ(view.state, "done");
  ASSERT_EQ(view.jobs.size(), 2u);
  EXPECT_EQ(view.jobs[0].job_state, "gave_up");
  EXPECT_EQ(view.jobs[0].attempts, kMaxJobAttempts);
  EXPECT_EQ(view.jobs[1].job_state, "done");
  EXPECT_EQ(view.jobs[1].attempts, 1);
  EXPECT_EQ(view.jobs[1].run_state, "failed");
  // Advancing again changes nothing: no job runs twice.
  eval_.advance();
  EXPECT_EQ(current_run(), "");
  EXPECT_EQ(store_->eval_runs(batch).size(), 4u);
}

// A batch is its submitter's and the administrators' to read.
TEST_F(EvalServiceTest, OthersMayNotReadABatch) {
  std::string batch = submit();
  EXPECT_NO_THROW(eval_.view(batch, kOwner));
  EXPECT_NO_THROW(eval_.view(batch, Caller{1, true}));
  try {
    eval_.view(batch, Caller{1001, false});
    ADD_FAILURE() << "another user read the batch";
  } catch (const RequestError& e) {
    EXPECT_THAT(e.what(), HasSubstr("only its submitter and maced's administrators may read it"));
  }
  EXPECT_THROW(eval_.view("eval-none", kOwner), RequestError);
}

// docs/operating-maced.md "Limits": the jobs of one user's unfinished batches are bounded;
// the refusal names the limit and the counts, and stores nothing. A job's run is counted
// by the job limit, never refused by the run limit (its job would be given up).
TEST_F(EvalServiceTest, ABatchBeyondTheUsersPendingJobLimitIsRefusedAndStoresNothing) {
  ServiceSettings limited;
  limited.queue.max_eval_jobs_per_user = 3;
  limited.queue.max_runs_per_user = 1;
  RunService runs(*store_, limited, [this] { return ++now_; });
  EvalService eval(*store_, runs, [this] { return ++now_; });
  // A run of the user's own holds the one place the run limit gives.
  ASSERT_FALSE(runs.submit_json(R"({"workloads": ["hello"], "objective": "o", "core": "pico"})", 1000)
                   .run_id.empty());
  eval::BatchRequest request;
  request.methods = {eval::Method::mace};
  auto first = eval.submit(kSuite, request, 1000);
  ASSERT_TRUE(first.errors.empty()) << first.errors.front().to_string();
  ASSERT_EQ(store_->eval_runs(first.batch_id).size(), 1u) << "the first job's run was refused";

  auto second = eval.submit(kSuite, request, 1000);
  EXPECT_TRUE(second.batch_id.empty());
  ASSERT_EQ(second.errors.size(), 1u);
  EXPECT_EQ(second.errors[0].path, "queue.max_eval_jobs_per_user");
  EXPECT_THAT(second.errors[0].message, HasSubstr("this batch has 2 jobs"));
  EXPECT_THAT(second.errors[0].message, HasSubstr("2 pending ones"));
  EXPECT_THAT(second.errors[0].message, HasSubstr("at most 3 per user"));
  EXPECT_EQ(store_->eval_batches({}).size(), 1u);

  // Another user's batches are their own; a cancelled batch's jobs no longer count.
  EXPECT_TRUE(eval.submit(kSuite, request, 1001).errors.empty());
  eval.cancel(first.batch_id, kOwner);
  EXPECT_TRUE(eval.submit(kSuite, request, 1000).errors.empty());
}

}  // namespace
}  // namespace mace::service

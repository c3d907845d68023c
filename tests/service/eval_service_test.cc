// Evaluation batches as the service keeps them, without maced: runs are ended by hand as a
// supervisor would end them.

#include "service/eval_service.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/service_error.h"
#include "store/sqlite.h"
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
    auto outcome = eval_.submit(kSuite, request, kOwner);
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
  EXPECT_EQ(view.state, EvalBatchState::done);
  ASSERT_EQ(view.jobs.size(), 2u);
  EXPECT_EQ(view.jobs[0].job_state, EvalJobState::gave_up);
  EXPECT_EQ(view.jobs[0].attempts, kMaxJobAttempts);
  EXPECT_EQ(view.jobs[1].job_state, EvalJobState::done);
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
  ASSERT_FALSE(runs.submit_json(R"({"workloads": ["hello"], "objective": "o", "core": "pico"})", Caller{1000})
                   .run_id.empty());
  eval::BatchRequest request;
  request.methods = {eval::Method::mace};
  auto first = eval.submit(kSuite, request, Caller{1000});
  ASSERT_TRUE(first.errors.empty()) << first.errors.front().to_string();
  ASSERT_EQ(store_->eval_runs(first.batch_id).size(), 1u) << "the first job's run was refused";

  auto second = eval.submit(kSuite, request, Caller{1000});
  EXPECT_TRUE(second.batch_id.empty());
  ASSERT_EQ(second.errors.size(), 1u);
  EXPECT_EQ(second.errors[0].path, "queue.max_eval_jobs_per_user");
  EXPECT_THAT(second.errors[0].message, HasSubstr("this batch has 2 jobs"));
  EXPECT_THAT(second.errors[0].message, HasSubstr("2 pending ones"));
  EXPECT_THAT(second.errors[0].message, HasSubstr("at most 3 per user"));
  EXPECT_EQ(store_->eval_batches({}).size(), 1u);

  // Another user's batches are their own; a cancelled batch's jobs no longer count.
  EXPECT_TRUE(eval.submit(kSuite, request, Caller{1001}).errors.empty());
  eval.cancel(first.batch_id, kOwner);
  EXPECT_TRUE(eval.submit(kSuite, request, Caller{1000}).errors.empty());
}

// REQ-REPLAY-3: a suite task's spec names runs as a submitted spec does; replay.from is
// checked for the batch's submitter before anything is recorded.
TEST_F(EvalServiceTest, ATaskReplayingARunTheSubmitterMayNotReadIsRefusedAndNothingRecorded) {
  const std::string owners =
      runs_.submit_json(R"({"core": "pico", "workloads": ["hello"], "objective": "o"})", kOwner).run_id;
  ASSERT_FALSE(owners.empty());
  const std::string suite = R"({"suite": "s", "tasks": [
    {"id": "a", "spec": {"core": "pico", "workloads": ["hello"], "objective": "o", "backend": "direct",
      "replay": {"bypass": ["build", "run"], "from": ")" + owners + R"("}}, "expert": {}}]})";
  eval::BatchRequest request;
  request.methods = {eval::Method::mace};
  auto refused = eval_.submit(suite, request, Caller{1001, false});
  EXPECT_TRUE(refused.batch_id.empty());
  ASSERT_EQ(refused.errors.size(), 1u);
  EXPECT_EQ(refused.errors[0].path, "suite.tasks[0].spec.replay.from");
  EXPECT_THAT(refused.errors[0].message, HasSubstr("belongs to uid 1000"));
  EXPECT_TRUE(store_->eval_batches({}).empty());
  EXPECT_EQ(store_->runs_in_states({RunState::queued}).size(), 1u);
  EXPECT_TRUE(eval_.submit(suite, request, kOwner).errors.empty());
}

// Cancelling changes a batch and its run: who may not cancel both changes neither, even
// where everyone may read every batch.
TEST_F(EvalServiceTest, ACancelRefusedLeavesTheBatchAndItsRunAsTheyWere) {
  ServiceSettings open;
  open.others_see = OthersSee::everything;
  RunService runs(*store_, open, [this] { return ++now_; });
  EvalService eval(*store_, runs, [this] { return ++now_; });
  runs.set_on_final([&](const std::string&) { eval.advance(); });
  eval::BatchRequest request;
  request.methods = {eval::Method::mace};
  const std::string batch = eval.submit(kSuite, request, kOwner).batch_id;
  ASSERT_FALSE(batch.empty());
  const std::string run = current_run();
  ASSERT_FALSE(run.empty());
  runs.set_state(run, RunState::running, "");
  const Caller bob{1001, false};
  ASSERT_NO_THROW(eval.view(batch, bob));
  try {
    eval.cancel(batch, bob);
    ADD_FAILURE() << "another user cancelled the batch";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.field_error().path, "batchId");
    EXPECT_THAT(e.what(), HasSubstr("only that user and maced's administrators may cancel it"));
  }
  auto view = eval.view(batch, kOwner);
  EXPECT_EQ(view.state, EvalBatchState::running);
  EXPECT_EQ(view.finished_at_ms, 0);
  EXPECT_EQ(store_->find_run(run)->state, RunState::running);
  for (const auto& job : view.jobs) EXPECT_EQ(job.job_state, EvalJobState::pending);

  eval.cancel(batch, Caller{1, true});
  EXPECT_EQ(eval.view(batch, kOwner).state, EvalBatchState::cancelled);
  EXPECT_EQ(store_->find_run(run)->state, RunState::cancelled);
  EXPECT_EQ(current_run(), "") << "a cancelled batch started its next job";
}

// REQ-VER-13: a batch, its jobs and its first job's run are one write. The store is held to
// the pages it has (SQLite's max_page_count, as a full disk holds it): when any of these
// writes is refused, the submit fails whole, and no batch answered with an error runs later.
// The scheduler hears of a run only once it is recorded.
TEST_F(EvalServiceTest, ASubmitTheStoreCannotRecordWholeRecordsNothing) {
  ServiceSettings settings;
  settings.queue.max_eval_jobs_per_user = kMaxMaxPendingEvalJobsPerUser;
  std::vector<std::string> told;
  settings.on_queued = [&](const std::string& run_id) { told.push_back(run_id); };
  RunService runs(*store_, settings, [this] { return ++now_; });
  EvalService eval(*store_, runs, [this] { return ++now_; });
  store::Database& db = store_->database();
  auto page_count = [&] {
    auto stmt = db.prepare("PRAGMA page_count");
    stmt.step();
    return stmt.int64(0);
  };
  eval::BatchRequest request;
  request.methods = {eval::Method::mace};
  size_t accepted = 0;
  int refused = 0;
  bool held = true;
  for (int i = 0; i < 1000 && refused < 30; ++i) {
    // Held to its pages until a submit is refused, then let one more grow it.
    db.exec("PRAGMA max_page_count = " + std::to_string(held ? page_count() : 1'000'000));
    try {
      ASSERT_TRUE(eval.submit(kSuite, request, kOwner).errors.empty());
      ++accepted;
      held = true;
    } catch (const std::exception& e) {
      EXPECT_THAT(e.what(), HasSubstr("full"));
      ++refused;
      held = false;
    }
    const auto batches = store_->eval_batches({});
    ASSERT_EQ(batches.size(), accepted) << "a refused submit left a batch (submit " << i << ")";
    for (const auto& batch : batches)
      ASSERT_EQ(store_->eval_runs(batch.id).size(), 1u) << batch.id << " has no run";
    const auto queued = store_->runs_in_states({RunState::queued});
    ASSERT_EQ(queued.size(), accepted) << "a refused submit left a run (submit " << i << ")";
    ASSERT_EQ(told.size(), accepted) << "the scheduler was told of a run never recorded";
  }
  EXPECT_GE(refused, 30);
}

}  // namespace
}  // namespace mace::service

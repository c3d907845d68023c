// A task's build and workload runs through the cache, on the fixture checkout whose sims
// counts its invocations: tagged per phase (REQ-REPLAY-1), stored when cached
// (REQ-REPLAY-2), served without running sims when bypassed (REQ-REPLAY-3), and a miss
// fails the task naming the tag, running nothing (REQ-REPLAY-4).

#include <mutex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "executor/local_executor.h"
#include "replay/cached_task_calls.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "support/child_process.h"
#include "support/fixture_checkout.h"

namespace mace::replay {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CachedTaskCallsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = store::Store::open(dir_.file("mace.db"));
    for (const char* id : {"R1", "R2"}) {
      store::RunRecord run;
      run.id = id;
      db_->insert_run(run);
    }
    spec_.core = Core::pico;
    spec_.workloads = {"add.S", "princeton-test-test.s"};
    spec_.objective = "x";
  }

  // One task of iteration `iteration` on the fixture, through a cache with `policy`.
  loop::TaskOutcome run_task(const CallPolicy& policy, const std::string& task_id, int iteration = 1,
                             const std::string& narrowing = "") {
    CallCache cache(policy,
                    // A task's workloads may simulate side by side: as a run's recorder does,
                    // the store is reached one call at a time.
                    {[this](const std::string& tag) {
                       std::lock_guard lock(db_mutex_);
                       return db_->find_cache_entry(tag);
                     },
                     [this](const store::CacheEntryRecord& e) {
                       std::lock_guard lock(db_mutex_);
                       db_->put_cache_entry(e);
                     }},
                    [] { return int64_t{1}; }, MACE_VERSION);
    cache.on_miss = [this](const std::string& tag) {
      std::lock_guard lock(db_mutex_);
      missed_.push_back(tag);
    };
    cache.on_notice = [this](const std::string& m) {
      std::lock_guard lock(db_mutex_);
      notices_.push_back(m);
    };
    cache.checkout_fingerprint = current_checkout_fingerprint;
    executor::DirectTaskCalls direct;
    CachedTaskCalls calls(cache, direct, MACE_VERSION);
    executor::LocalExecutor executor(spec_, {.workloads_dir = dir_.file("workloads"),
                                             .task_calls = &calls});
    loop::TaskJob job;
    job.task.id = task_id;
    job.task.kind = TaskKind::config;
    // The loop's jobs carry every cache, defaults filled in: the fixture's.
    job.caches = {{"l1i", {16384, 4}}, {"l1d", {8192, 4}}, {"l15", {8192, 4}}, {"l2", {65536, 4}}};
    job.build_limit = std::chrono::seconds(60);
    job.run_limit = std::chrono::seconds(60);
    job.narrowing = narrowing;
    return executor.run(iteration, job, openpiton::Checkout(checkout_.root()));
  }

  std::vector<std::string> tags(const std::string& run) {
    std::vector<std::string> out;
    for (const auto& e : db_->cache_entries(run)) out.push_back(e.tag + " " + e.function);
    return out;
  }

  testing::TempDir dir_;
  testing::FixtureCheckout checkout_;
  std::unique_ptr<store::Store> db_;
  std::mutex db_mutex_;
  RunSpec spec_;
  std::vector<std::string> missed_;
  std::vector<std::string> notices_;
};

TEST_F(CachedTaskCallsTest, CachingTagsTheBuildAndEachWorkloadRun) {  // REQ-REPLAY-1, 2
  auto outcome = run_task(call_policy("R1", std::nullopt, {}, std::nullopt, {"build", "run"}), "t1", 3);
  ASSERT_TRUE(outcome.passed) << outcome.failure_reason;
  ASSERT_EQ(outcome.verdicts.size(), 2u);
  // The workloads' entries in whatever order their simulations ended.
  EXPECT_THAT(tags("R1"), ::testing::UnorderedElementsAre("R1/iter3/t1/build build", "R1/iter3/t1/run run",
                                                          "R1/iter3/t1/run:princeton-test-test.s run"));
  auto entry = db_->find_cache_entry("R1/iter3/t1/build");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->mace_version, MACE_VERSION);
  EXPECT_EQ(entry->checkout_fingerprint.size(), 64u) << "the build's source fingerprint";
  EXPECT_EQ(db_->find_cache_entry("R1/iter3/t1/run")->checkout_fingerprint, entry->checkout_fingerprint)
      << "a run is of the sources its model was built from";

  // A narrowing rebuild of the same task keeps entries of its own.
  run_task(call_policy("R1", std::nullopt, {}, std::nullopt, {"build"}), "t1", 3, "undo define X");
  EXPECT_TRUE(db_->find_cache_entry("R1/iter3/t1/build[undo define X]"));
  EXPECT_FALSE(db_->find_cache_entry("R1/iter3/t1/run[undo define X]")) << "run is not cached";
}

TEST_F(CachedTaskCallsTest, BypassServesTheCallsWithoutRunningSims) {  // REQ-REPLAY-3
  checkout_.set_control("run", "fail");
  auto original = run_task(call_policy("R1", std::nullopt, {}, std::nullopt, {"build", "run"}), "t1");
  ASSERT_FALSE(original.passed);
  const int invocations = checkout_.invocations();
  ASSERT_GT(invocations, 0);

  auto served = run_task(replay_policy("R2", "R1"), "t1");
  EXPECT_EQ(checkout_.invocations(), invocations) << "sims ran for a bypassed call";
  EXPECT_TRUE(missed_.empty());
  EXPECT_EQ(served.passed, original.passed);
  EXPECT_EQ(served.failure_reason, original.failure_reason);
  EXPECT_EQ(served.build_id, original.build_id);
  EXPECT_EQ(served.built, original.built);
  EXPECT_EQ(served.reused, original.reused);
  ASSERT_EQ(served.verdicts.size(), original.verdicts.size());
  EXPECT_EQ(served.verdicts[0].verdict, original.verdicts[0].verdict);
  EXPECT_EQ(served.verdicts[0].run_dir, original.verdicts[0].run_dir);
  EXPECT_EQ(served.evidence, original.evidence);
  EXPECT_EQ(served.sim_log_tail, original.sim_log_tail);
  EXPECT_FALSE(original.status_log.empty());
  EXPECT_EQ(served.status_log, original.status_log) << "status.log's tail travels in the entry";
  EXPECT_TRUE(notices_.empty()) << "the same checkout, the same MACE";
  EXPECT_TRUE(db_->cache_entries("R2").empty()) << "a replay stores nothing";
}

TEST_F(CachedTaskCallsTest, AMissFailsTheTaskNamingTheTagAndRunsNothing) {  // REQ-REPLAY-4
  run_task(call_policy("R1", std::nullopt, {}, std::nullopt, {"build", "run"}), "t1");
  const int invocations = checkout_.invocations();

  auto no_build = run_task(replay_policy("R2", "R1"), "t2");
  EXPECT_FALSE(no_build.passed);
  EXPECT_EQ(no_build.failure_reason, FailureReason::cache_miss);
  EXPECT_THAT(no_build.evidence, ElementsAre("cache miss: no cache entry for tag R1/iter1/t2/build"));

  // The build is there, the second workload's run is not: the first runs from the cache,
  // the second fails.
  db_->database().exec("DELETE FROM call_cache WHERE tag = 'R1/iter1/t1/run:princeton-test-test.s'");
  auto no_run = run_task(replay_policy("R2", "R1"), "t1");
  EXPECT_EQ(no_run.failure_reason, FailureReason::cache_miss);
  ASSERT_EQ(no_run.verdicts.size(), 1u);
  EXPECT_EQ(no_run.verdicts[0].verdict, Verdict::pass);
  EXPECT_THAT(no_run.evidence,
              ElementsAre("cache miss: no cache entry for tag R1/iter1/t1/run:princeton-test-test.s"));
  EXPECT_THAT(missed_, ElementsAre("R1/iter1/t2/build", "R1/iter1/t1/run:princeton-test-test.s"));
  EXPECT_EQ(checkout_.invocations(), invocations);
}

TEST_F(CachedTaskCallsTest, AnEntryOfAnotherCheckoutIsServedAndSaidSo) {
  run_task(call_policy("R1", std::nullopt, {}, std::nullopt, {"build", "run"}), "t1");
  const int invocations = checkout_.invocations();
  checkout_.write("piton/design/new_file.v", "// changes the source fingerprint\n");
  auto served = run_task(replay_policy("R2", "R1"), "t1");
  EXPECT_TRUE(served.passed);
  EXPECT_EQ(checkout_.invocations(), invocations);
  ASSERT_EQ(notices_.size(), 1u);
  EXPECT_THAT(notices_[0], HasSubstr("cache entry R1/iter1/t1/build was made on a checkout with source fingerprint"));
  EXPECT_THAT(notices_[0], HasSubstr("served as recorded"));
}

}  // namespace
}  // namespace mace::replay

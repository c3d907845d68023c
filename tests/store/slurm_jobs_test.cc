// The Slurm jobs maced submitted: recorded before they are waited on, ended once, and what
// is not seen to end found again at the next start.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/store.h"
#include "temp_dir.h"

namespace mace::store {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class SlurmJobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.db());
    RunRecord run;
    run.id = "r1";
    run.core = "pico";
    store->insert_run(run);
    run.id = "r2";
    store->insert_run(run);
  }

  SlurmJobRecord job(const std::string& id, const std::string& run, int64_t at) {
    return {.job_id = id, .comment = "mace:i:" + id, .run_id = run,
            .name = "mace:" + run + ":t1:build", .node = "n1", .checkout = "/scratch/a",
            .purpose = "build", .submitted_at_ms = at, .ended_at_ms = 0, .state = "", .detail = ""};
  }

  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(SlurmJobsTest, AJobIsUnendedUntilItsEndIsRecorded) {
  store->record_slurm_job(job("10", "r1", 1000));
  store->record_slurm_job(job("11", "r2", 2000));
  EXPECT_THAT(store->unended_slurm_jobs(), ElementsAre(job("10", "r1", 1000), job("11", "r2", 2000)));

  EXPECT_TRUE(store->end_slurm_job("10", "mace:i:10", 3000, "NODE_FAIL", "node n1 is down (fan)"));
  EXPECT_THAT(store->unended_slurm_jobs(), ElementsAre(job("11", "r2", 2000)));
  auto ended = job("10", "r1", 1000);
  ended.ended_at_ms = 3000;
  ended.state = "NODE_FAIL";
  ended.detail = "node n1 is down (fan)";
  EXPECT_THAT(store->slurm_jobs("r1"), ElementsAre(ended));
}

TEST_F(SlurmJobsTest, AnIdReusedAfterAClusterResetIsAnotherJob) {
  store->record_slurm_job(job("10", "r1", 1000));
  auto again = job("10", "r2", 5000);
  again.comment = "mace:i:other";
  store->record_slurm_job(again);
  EXPECT_EQ(store->unended_slurm_jobs().size(), 2u);
  EXPECT_FALSE(store->end_slurm_job("10", "mace:i:nobody", 6000, "COMPLETED", ""));
}

TEST_F(SlurmJobsTest, RecordingAJobTwiceKeepsTheFirst) {
  store->record_slurm_job(job("10", "r1", 1000));
  store->record_slurm_job(job("10", "r1", 9000));
  EXPECT_THAT(store->slurm_jobs("r1"), ElementsAre(job("10", "r1", 1000)));
  EXPECT_THAT(store->slurm_jobs("r2"), IsEmpty());
}

}  // namespace
}  // namespace mace::store

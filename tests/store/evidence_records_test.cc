// The store's record of each run's logs (migration 12): where each is written, its copy in
// the run's evidence, what the retention rule removed; and who planned a run and what a
// fault check concluded.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/migrations.h"
#include "store/sqlite.h"
#include "store/store.h"
#include "temp_dir.h"

namespace mace::store {
namespace {

using testing::TempDir;

RunRecord run_of(const std::string& id, RunState state, int64_t finished_at_ms = 0) {
  RunRecord r;
  r.id = id;
  r.state = state;
  r.core = "pico";
  r.workloads = {"hello"};
  r.finished_at_ms = finished_at_ms;
  return r;
}

LogFileRecord written(const std::string& run, const std::string& task, const std::string& workload,
                      const std::string& path) {
  LogFileRecord f;
  f.run_id = run;
  f.iteration = 1;
  f.task_id = task;
  f.workload = workload;
  f.path = path;
  f.kind = workload.empty() ? "build_log" : "sim_log";
  f.created_at_ms = 5;
  return f;
}

TEST(EvidenceRecords, ALogIsRecordedWhereItIsWrittenThenPointsAtItsCopy) {
  TempDir dir;
  auto store = Store::open(dir.db());
  store->insert_run(run_of("R", RunState::running));
  const int64_t id = store->record_log_file(written("R", "t1", "", "/co/build/m/mace_build.log"));
  auto live = store->find_log_file("R", 0, "", "");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->id, id);
  EXPECT_EQ(live->path, "/co/build/m/mace_build.log");
  EXPECT_EQ(live->source_path, "/co/build/m/mace_build.log");
  EXPECT_EQ(live->kept_at_ms, 0);

  store->keep_log_file(id, {"/state/runs/R/iter1/t1/build.log.gz", 9, 4000, 700, 1000, 2000, true});
  auto kept = store->find_log_file(id);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->path, "/state/runs/R/iter1/t1/build.log.gz");
  EXPECT_EQ(kept->source_path, "/co/build/m/mace_build.log");
  EXPECT_EQ(kept->kept_at_ms, 9);
  EXPECT_EQ(kept->original_bytes, 4000);
  EXPECT_EQ(kept->stored_bytes, 700);
  EXPECT_EQ(kept->cut_head_bytes, 1000);
  EXPECT_EQ(kept->cut_tail_bytes, 2000);
  EXPECT_TRUE(kept->compressed);

  const int64_t sim = store->record_log_file(written("R", "t1", "hello", "/co/runs/hello-1/sim.log"));
  store->log_file_not_kept(sim, "cannot create /state/runs/R: No space left on device");
  EXPECT_EQ(store->find_log_file("R", 1, "t1", "hello")->keep_error,
            "cannot create /state/runs/R: No space left on device");
  EXPECT_EQ(store->log_files("R").size(), 2u);
}

TEST(EvidenceRecords, TheRetentionRuleSeesWhatEachRunKeepsAndItsRemovalsAreStamped) {
  TempDir dir;
  auto store = Store::open(dir.db());
  store->insert_run(run_of("old", RunState::passed, 100));
  store->insert_run(run_of("live", RunState::running));
  for (const auto& [run, bytes] : {std::pair{"old", 300}, {"old", 200}, {"live", 50}}) {
    const int64_t id = store->record_log_file(written(run, "t", "", "/x"));
    store->keep_log_file(id, {"/kept", 1, bytes * 2, bytes, 0, 0, false});
  }
  store->record_log_file(written("live", "t", "hello", "/still/written"));
  auto usage = store->evidence_by_run();
  ASSERT_EQ(usage.size(), 2u);
  std::map<std::string, RunEvidenceRecord> by_run;
  for (const auto& u : usage) by_run[u.run_id] = u;
  EXPECT_EQ(by_run["old"].stored_bytes, 500);
  EXPECT_EQ(by_run["old"].finished_at_ms, 100);
  EXPECT_EQ(by_run["old"].state, RunState::passed);
  EXPECT_EQ(by_run["live"].stored_bytes, 50) << "a log still being written takes nothing yet";

  EXPECT_EQ(store->mark_evidence_removed("old", 777, "over evidence.max_mb"), 2);
  EXPECT_EQ(store->mark_evidence_removed("old", 888, "again"), 0) << "removed once";
  auto removed = store->find_log_file("old", 0, "", "");
  ASSERT_TRUE(removed);
  EXPECT_EQ(removed->removed_at_ms, 777);
  EXPECT_EQ(removed->removed_reason, "over evidence.max_mb");
  ASSERT_EQ(store->evidence_by_run().size(), 1u);
}

TEST(EvidenceRecords, WhoPlannedARunAndAFaultChecksConclusionAreKept) {
  TempDir dir;
  auto store = Store::open(dir.db());
  store->insert_run(run_of("R", RunState::queued));
  EXPECT_FALSE(store->find_run("R")->planner) << "not known before its planning starts";
  EXPECT_EQ(store->find_run("R")->outcome, RunOutcome::none);
  store->set_run_planner("R", PlannerKind::fault_check);
  store->set_run_outcome("R", RunOutcome::caught);
  EXPECT_EQ(store->find_run("R")->planner, PlannerKind::fault_check);
  EXPECT_EQ(store->find_run("R")->outcome, RunOutcome::caught);
}

// Logs recorded before runs kept them say so, and runs already started get their planner
// from what was recorded of them.
TEST(EvidenceRecords, TheMigrationMarksEarlierLogsAsNeverKeptAndNamesEarlierPlanners) {
  TempDir dir;
  {
    Database db(dir.db());
    ASSERT_EQ(migrate(db, 11), 11);  // the schema before runs kept their logs
    db.exec(R"sql(INSERT INTO runs (id, state, backend, started_at_ms) VALUES
        ('d', 'passed', 'direct', 1), ('l', 'failed', 'vertex', 1), ('q', 'queued', 'direct', NULL);
      INSERT INTO log_files (run_id, iteration, task_id, workload, path, created_at_ms) VALUES
        ('d', 1, 'build', '', '/co/build/m/mace_build.log', 1),
        ('d', 1, 'build', 'hello', '/co/build/m/runs/hello-1/sim.log', 2))sql");
  }
  auto store = Store::open(dir.db());
  EXPECT_EQ(store->find_run("d")->planner, PlannerKind::direct);
  EXPECT_EQ(store->find_run("l")->planner, PlannerKind::llm);
  EXPECT_FALSE(store->find_run("q")->planner);
  auto sim = store->find_log_file("d", 0, "", "hello");
  ASSERT_TRUE(sim);
  EXPECT_EQ(sim->kind, "sim_log");
  EXPECT_EQ(sim->source_path, "/co/build/m/runs/hello-1/sim.log");
  EXPECT_EQ(sim->kept_at_ms, 0);
  EXPECT_THAT(sim->keep_error, ::testing::HasSubstr("recorded before maced kept a copy"));
  EXPECT_EQ(store->find_log_file("d", 0, "", "")->kind, "build_log");
}

}  // namespace
}  // namespace mace::store
